"""Where the command line writes: one stdout console for tables, one-line errors on stderr.

Tables fit the terminal: `fit` gives the table when its natural width fits, and otherwise one block
per row (the row's first cell whole, then each column as `header: value`), so no name is ever cut
to `fake:i…`. Off a terminal `emit` strips the padding rich adds after the last column."""

from __future__ import annotations

import os
import sys

from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from medeval.records.redact import redact

#: Off a terminal (logs, CI, pipes) without $COLUMNS: wide enough that tables keep their shape.
OFF_TERMINAL_WIDTH = 200


def stdout_console() -> Console:
    """$COLUMNS when set (on a terminal or off it), else the terminal's width, else 200."""
    columns = os.environ.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() and int(columns) > 0 else None
    if width is None and not sys.stdout.isatty():
        width = OFF_TERMINAL_WIDTH
    return Console(width=width)


def error_line(message: str) -> None:
    """One unwrapped line on stderr, so every problem stays greppable."""
    print(f"error: {redact(message)}", file=sys.stderr, flush=True)


def _text(cell: RenderableType) -> Text:
    if isinstance(cell, Text):
        return cell
    return Text.from_markup(cell) if isinstance(cell, str) else Text(str(cell))


def fit(table: Table, console: Console) -> RenderableType:
    """`table` if it fits `console` unwrapped; else the same rows as blocks of `header: value`."""
    unbounded = console.options.update_width(1_000_000)
    if Measurement.get(console, unbounded, table).maximum <= console.width:
        return table
    columns = table.columns
    rows = len(columns[0]._cells) if columns else 0
    parts: list[RenderableType] = []
    if table.title:
        parts.append(_text(table.title))
    for row in range(rows):
        if row:
            parts.append(Text(""))
        heading = _text(columns[0]._cells[row]).copy()
        heading.stylize("bold")
        parts.append(heading)
        for column in columns[1:]:
            value = _text(column._cells[row])
            if value.plain:
                parts.append(Text.assemble(f"  {column.header}: ", value))
    return Group(*parts)


def emit(console: Console, *renderables: RenderableType) -> None:
    """Print; off a terminal, without the trailing spaces rich pads table lines with."""
    if console.is_terminal:
        console.print(*renderables)
        return
    with console.capture() as captured:
        console.print(*renderables)
    lines = captured.get().splitlines()
    console.file.write("".join(line.rstrip() + "\n" for line in lines))
    console.file.flush()
