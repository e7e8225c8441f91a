"""`medeval export` and `medeval query`: runs as tidy tables, for other tools and for SQL."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import duckdb
import typer
from rich.table import Table

from medeval.errors import UserError
from medeval.export import TABLES, connect, export_runs, find_runs
from medeval.reporting.render.terminal import stdout_console


def export_command(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories (or folders of runs)")],
    fmt: Annotated[str, typer.Option("--format", help="parquet or csv")] = "parquet",
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for the table files")] = Path("export"),
) -> None:
    """Write tidy tables (trials, groups, claims, checklist, calls) as Parquet or CSV files."""
    if fmt not in ("parquet", "csv"):
        raise UserError(f"--format {fmt!r} is not parquet or csv; pass --format parquet or --format csv")
    written = export_runs(find_runs(run_dirs), out_dir, "parquet" if fmt == "parquet" else "csv")
    console = stdout_console()
    for path in written:
        console.print(str(path))


def query_command(
    sql: Annotated[str, typer.Argument(help=f"SQL over the tables {', '.join(TABLES)}")],
    run_dirs: Annotated[
        list[Path] | None, typer.Argument(help="Run directories or folders of runs (default: ./runs)")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="Rows shown at most")] = 200,
) -> None:
    """Run SQL (DuckDB) over runs, e.g. "select target, avg(accurate_complete) from groups group by 1"."""
    con = connect(find_runs(run_dirs))
    try:
        result = con.execute(sql)
    except duckdb.Error as error:
        first = str(error).splitlines()[0]
        raise UserError(
            f"query failed: {first}; the tables are {', '.join(TABLES)} (see docs/data.md)"
        ) from None
    if result.description is None:
        return
    table = Table(show_lines=False)
    for column in result.description:
        table.add_column(str(column[0]))
    rows = result.fetchmany(limit)
    for row in rows:
        table.add_row(*("" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v) for v in row))
    console = stdout_console()
    console.print(table)
    if result.fetchone() is not None:
        console.print(f"(first {limit} rows; pass --limit for more)")
    con.close()
