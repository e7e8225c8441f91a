"""`medeval export` and `medeval query`: runs as tidy tables, for other tools and for SQL."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from medeval.errors import UserError
from medeval.reporting.render.terminal import stdout_console

# The tables' names for the help text; medeval.export (and duckdb) load inside the commands.
# tests/test_cli_startup.py checks this list against medeval.export.TABLES.
TABLE_NAMES = ("trials", "groups", "claims", "checklist", "calls")
DAMAGED_HELP = "Read a run that fails medeval verify (with a warning) instead of refusing it"


def export_command(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories (or folders of runs)")],
    fmt: Annotated[str, typer.Option("--format", help="parquet or csv")] = "parquet",
    out_dir: Annotated[
        Path, typer.Option("--out", help="Folder for the table files (default runs/export, beside the runs)")
    ] = Path("runs") / "export",
    allow_damaged: Annotated[bool, typer.Option(help=DAMAGED_HELP)] = False,
) -> None:
    """Write tidy tables (trials, groups, claims, checklist, calls) as Parquet or CSV files."""
    from medeval.export import export_runs, find_runs
    from medeval.records.integrity import check_runs

    if fmt not in ("parquet", "csv"):
        raise UserError(f"--format {fmt!r} is not parquet or csv; pass --format parquet or --format csv")
    runs = find_runs(run_dirs)
    check_runs(runs, allow_damaged=allow_damaged)
    written = export_runs(runs, out_dir, "parquet" if fmt == "parquet" else "csv")
    console = stdout_console()
    for path in written:
        console.print(str(path))


def query_command(
    sql: Annotated[str, typer.Argument(help=f"SQL over the tables {', '.join(TABLE_NAMES)}")],
    run_dirs: Annotated[
        list[Path] | None, typer.Argument(help="Run directories or folders of runs (default: ./runs)")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="Rows shown at most")] = 200,
    allow_damaged: Annotated[bool, typer.Option(help=DAMAGED_HELP)] = False,
) -> None:
    """One read-only SQL query (DuckDB) over runs, e.g. "select target, count(*) from groups group by 1"."""
    from rich.table import Table
    from rich.text import Text

    from medeval.export import connect, find_runs
    from medeval.export.sandbox import fetch, run_query
    from medeval.records.integrity import check_runs

    runs = find_runs(run_dirs)
    check_runs(runs, allow_damaged=allow_damaged)
    con = connect(runs, contained=True)
    try:
        relation = run_query(con, sql)
        if relation is None:
            return
        rows, more = fetch(relation, limit)
        table = Table(show_lines=False)
        for name in relation.columns:
            table.add_column(Text(str(name)))
        for row in rows:
            table.add_row(*(Text(_cell(v)) for v in row))
        console = stdout_console()
        console.print(table, highlight=False, emoji=False, markup=False)
        if more:
            console.print(f"(first {limit} rows; pass --limit for more)", highlight=False)
    finally:
        con.close()


def _cell(value: object) -> str:
    """A value as data: text verbatim, floats to four significant digits, NULL as empty."""
    if value is None:
        return ""
    return f"{value:.4g}" if isinstance(value, float) else str(value)
