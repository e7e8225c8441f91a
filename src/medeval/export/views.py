"""The tables in DuckDB: an in-memory database with one table per tidy table over any number of
runs (what `medeval query` and `medeval.api` read), and export to Parquet or CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import duckdb

from medeval.errors import UserError
from medeval.export.tables import COLUMNS, TABLES, run_tables
from medeval.records.safe_output import csv_select
from medeval.records.storage import MANIFEST

Format = Literal["parquet", "csv"]


def find_runs(paths: list[Path] | None = None, default: Path = Path("runs")) -> list[Path]:
    """Run directories: each path that is one, or the runs directly inside it (default: ./runs)."""
    found: list[Path] = []
    for path in paths or [default]:
        if (path / MANIFEST).is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if (p / MANIFEST).is_file()))
        else:
            raise UserError(
                f"{path} is not a run directory or a folder of runs; pass one made by medeval run"
            )
    if not found:
        where = ", ".join(str(p) for p in paths or [default])
        raise UserError(f"no run directories in {where}; run medeval run (or medeval demo) first")
    return found


def connect(
    run_dirs: list[Path], connection: duckdb.DuckDBPyConnection | None = None
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB database holding the tables (trials, groups, claims, checklist, calls)."""
    con = connection or duckdb.connect(":memory:")
    for name in TABLES:
        columns = ", ".join(f'"{c}" {t}' for c, t in COLUMNS[name].items())
        con.execute(f"CREATE OR REPLACE TABLE {name} ({columns})")
    for directory in run_dirs:
        try:
            tables = run_tables(directory)
        except (OSError, ValueError, KeyError) as error:
            raise UserError(
                f"{directory}: cannot read the run ({type(error).__name__}: {error}); "
                f"see medeval verify {directory}"
            ) from None
        for name, rows in tables.items():
            if rows:
                marks = ", ".join("?" for _ in COLUMNS[name])
                con.executemany(f"INSERT INTO {name} VALUES ({marks})", [list(r) for r in rows])
    return con


def export_runs(run_dirs: list[Path], out: Path, fmt: Format) -> list[Path]:
    """One file per table in `out` (trials.parquet, groups.parquet...); returns the files written."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(
            f"cannot create {out} ({error.strerror or error}); pass --out with a writable folder"
        ) from None
    con = connect(run_dirs)
    written = []
    for name in TABLES:
        path = out / f"{name}.{fmt}"
        option = "FORMAT parquet" if fmt == "parquet" else "FORMAT csv, HEADER true"
        target = str(path).replace("'", "''")
        rows = f"SELECT * FROM {name} ORDER BY ALL"
        if fmt == "csv":  # text a spreadsheet would run as a formula is neutralised (records.safe_output)
            rows = csv_select(rows, [c for c, t in COLUMNS[name].items() if t == "VARCHAR"])
        con.execute(f"COPY ({rows}) TO '{target}' ({option})")
        written.append(path)
    con.close()
    return written
