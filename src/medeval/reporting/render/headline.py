"""The headline as Markdown lines and as a terminal table (report.html renders it from its template)."""

from __future__ import annotations

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from medeval.reporting.render.md_cells import cell as md_cell
from medeval.reporting.render.terminal import emit, fit
from medeval.reporting.stats.intervals import Difference, Interval, fmt_points
from medeval.reporting.tables.headline import HEADLINE_CATEGORIES, SHORT_LABELS, Headline, HeadlineBlock

DELTA_MODES = (("combined", "Δ A&C vs combined"), ("phone", "vs phone"), ("face_to_face", "vs face to face"))


def rate(interval: Interval, digits: int = 1) -> str:
    """The estimate with its Wilson interval, "41.2% (35.0–47.6)"; "n/a" without data."""
    if interval.estimate is None:
        return "n/a"
    if interval.low is None or interval.high is None:
        return f"{100 * interval.estimate:.{digits}f}%"
    low, high = 100 * interval.low, 100 * interval.high
    return f"{100 * interval.estimate:.{digits}f}% ({low:.{digits}f}–{high:.{digits}f})"


def delta(difference: Difference, digits: int = 1) -> str:
    if digits == 1:
        return fmt_points(difference.difference, difference.low, difference.high)
    if difference.difference is None:
        return "n/a"
    text = f"{100 * difference.difference:+.0f} pp"
    if difference.low is not None and difference.high is not None:
        text += f" ({100 * difference.low:+.0f} to {100 * difference.high:+.0f})"
    return text


def block_rows(block: HeadlineBlock, digits: int = 1) -> tuple[list[str], list[list[str]]]:
    header = [
        "Target / counselors",
        "n",
        *(SHORT_LABELS[c] for c in HEADLINE_CATEGORIES),
        *(label for _, label in DELTA_MODES),
        "Needs review",
        "Not scored",
    ]
    rows: list[list[str]] = []
    for target in block.targets:
        rows.append(
            [
                (target.label or target.target) + (" (web search)" if target.web_search else ""),
                str(target.n),
                *(rate(target.rates[c], digits) for c in HEADLINE_CATEGORIES),
                *(delta(target.delta_ac[mode], digits) for mode, _ in DELTA_MODES),
                str(target.needs_review),
                str(target.not_scored),
            ]
        )
    for human in block.counselors:
        rows.append(
            [
                human.label,
                str(human.n),
                *(rate(human.rates[c], digits) for c in HEADLINE_CATEGORIES),
                "",
                "",
                "",
                "",
                "",
            ]
        )
    return header, rows


def headline_markdown(headline: Headline) -> list[str]:
    lines = ["## Headline: the AI targets beside the SHIP counselors", ""]
    for block in headline.blocks():
        if not block.targets:
            continue
        header, rows = block_rows(block)
        lines += [f"**{block.title}** ({len(block.groups)})", ""]
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
        lines.append("")
    lines += [headline.sentence(), ""]
    return lines


def _compact_rate(interval: Interval) -> str:
    if interval.estimate is None:
        return "n/a"
    if interval.low is None or interval.high is None:
        return f"{100 * interval.estimate:.0f}"
    return f"{100 * interval.estimate:.0f} ({100 * interval.low:.0f}–{100 * interval.high:.0f})"


def _compact_delta(difference: Difference) -> str:
    if difference.difference is None:
        return "n/a"
    text = f"{100 * difference.difference:+.0f}"
    if difference.low is not None and difference.high is not None:
        text += f" ({100 * difference.low:+.0f} to {100 * difference.high:+.0f})"
    return text


def _table(title: str, header: list[str], rows: list[list[str]]) -> Table:
    table = Table(title=title, title_justify="left", box=None, padding=(0, 1), pad_edge=False)
    for column in header:
        table.add_column(column, justify="left" if column == header[0] else "right", no_wrap=True)
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    return table


def compact_tables(block: HeadlineBlock) -> list[RenderableType]:
    """The block as two narrow tables (rates, then A&C against the counselors) and a line for what
    is outside n: at 80-160 columns each target stays one line instead of a 12-line block."""
    rates = [
        [t.name, str(t.n), *(_compact_rate(t.rates[c]) for c in HEADLINE_CATEGORIES)] for t in block.targets
    ]
    rates += [
        # "SHIP phone": the study's counselors by mode, short enough for 80 columns.
        [
            f"SHIP {h.mode.replace('_', ' ')}",
            str(h.n),
            *(_compact_rate(h.rates[c]) for c in HEADLINE_CATEGORIES),
        ]
        for h in block.counselors
    ]
    deltas = [[t.name, *(_compact_delta(t.delta_ac[mode]) for mode, _ in DELTA_MODES)] for t in block.targets]
    out: list[RenderableType] = [
        _table(
            f"{block.title} ({len(block.groups)}): rates, % (95% CI)",
            ["Target", "n", *(SHORT_LABELS[c] for c in HEADLINE_CATEGORIES)],
            rates,
        ),
        _table(
            "A&C minus the counselors, points (95% CI)",
            ["Target", "vs combined", "vs phone", "vs face to face"],
            deltas,
        ),
    ]
    outside = [
        f"{t.name}: {t.needs_review} needs review, {t.not_scored} not scored"
        for t in block.targets
        if t.needs_review or t.not_scored
    ]
    if outside:
        out.append(Text("Outside n: " + "; ".join(outside)))
    return out


def print_headline(headline: Headline, console: Console) -> None:
    """The headline in the terminal: whole percentages; the full table when it fits, else two narrow
    tables (rates; A&C against the counselors), each falling back to `header: value` blocks
    (terminal.fit) only below their own width, so an 80-column terminal still reads every number."""
    parts: list[RenderableType] = []
    for block in headline.blocks():
        if not block.targets:
            continue
        header, rows = block_rows(block, digits=0)
        table = Table(title=f"{block.title} ({len(block.groups)})", title_justify="left")
        for column in header:
            table.add_column(column, justify="left" if column == header[0] else "right", no_wrap=True)
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        shown = fit(table, console)
        if shown is table:
            parts.append(table)
            continue
        for part in compact_tables(block):
            parts += [Text(""), fit(part, console) if isinstance(part, Table) else part]
    parts.append(Text(headline.sentence()))
    emit(console, *parts)
