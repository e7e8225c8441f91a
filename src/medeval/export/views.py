"""The tables in DuckDB: an in-memory database with one view per tidy table over the cached Parquet
files of any number of runs (what `medeval query` and `medeval.api` read), and export to Parquet or
CSV. DuckDB does the work: reading, joining and writing never pass rows through Python."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Literal

import duckdb

from medeval.errors import UserError
from medeval.export.cache import table_files
from medeval.export.sandbox import lock_down
from medeval.export.tables import COLUMNS, ROW_GROUP, TABLES
from medeval.records.safe_output import csv_select
from medeval.records.storage import MANIFEST

Format = Literal["parquet", "csv"]
EXPORT_MEMORY_MIB = 256


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


def table_paths(run_dirs: list[Path]) -> dict[str, list[Path]]:
    """Each table's Parquet files, one per run, built where a run changed since its last build."""
    paths: dict[str, list[Path]] = {name: [] for name in TABLES}
    for directory in run_dirs:
        try:
            files = table_files(directory)
        except (OSError, ValueError, KeyError, duckdb.Error) as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise UserError(
                f"{directory}: cannot read the run ({type(error).__name__}: {first}); "
                f"see medeval verify {directory}"
            ) from None
        for name, path in files.items():
            paths[name].append(path.resolve())
    return paths


def connect(
    run_dirs: list[Path],
    connection: duckdb.DuckDBPyConnection | None = None,
    *,
    contained: bool = False,
) -> duckdb.DuckDBPyConnection:
    """A DuckDB database with one view per table (trials, groups, claims, checklist, calls) over the
    runs' cached Parquet files. `contained`: nothing but those files can be read, nothing written
    (what `medeval query` runs in)."""
    paths = table_paths(run_dirs)
    con = connection or duckdb.connect(":memory:")
    for name in TABLES:
        files = ", ".join("'" + str(p).replace("'", "''") + "'" for p in paths[name])
        con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM read_parquet([{files}])")
    if contained:
        lock_down(con, [p for files in paths.values() for p in files])
    return con


def export_runs(run_dirs: list[Path], out: Path, fmt: Format) -> list[Path]:
    """One file per table in `out` (trials.parquet, groups.parquet...), rows in ORDER BY ALL order;
    returns the files written."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(
            f"cannot create {out} ({error.strerror or error}); pass --out with a writable folder"
        ) from None
    ordered = _in_run_id_order(run_dirs)
    written = []
    with tempfile.TemporaryDirectory(prefix="medeval-export-") as spill:
        # One thread streams each file through in order, a row group at a time: memory stays flat
        # however large the run. A sort (runs sharing a run id) spills to the scratch folder.
        con = duckdb.connect(
            ":memory:",
            config={"threads": 1, "memory_limit": f"{EXPORT_MEMORY_MIB}MiB", "temp_directory": spill},
        )
        try:
            connect(ordered or run_dirs, con)
            for name in TABLES:
                path = out / f"{name}.{fmt}"
                option = (
                    f"FORMAT parquet, ROW_GROUP_SIZE {ROW_GROUP}"
                    if fmt == "parquet"
                    else "FORMAT csv, HEADER true"
                )
                # Each run's cached table is stored sorted (export/build.py) and every table leads
                # with run_id, so runs in run-id order are already in ORDER BY ALL order.
                rows = f"SELECT * FROM {name}" + ("" if ordered else " ORDER BY ALL")
                if fmt == "csv":  # a formula-like cell is neutralised (records.safe_output)
                    rows = csv_select(rows, [c for c, t in COLUMNS[name].items() if t == "VARCHAR"])
                con.execute(f"COPY ({rows}) TO '{_quoted(str(path))}' ({option})")
                written.append(path)
        finally:
            con.close()
    return written


def _in_run_id_order(run_dirs: list[Path]) -> list[Path] | None:
    """The runs sorted by run id, or None when two share one (or one has none): then their rows
    interleave in sorted order and the export sorts them."""
    ids: dict[str, Path] = {}
    for directory in run_dirs:
        try:
            run_id = json.loads((directory / MANIFEST).read_text(encoding="utf-8")).get("run_id")
        except (OSError, ValueError, AttributeError):
            return None
        if not isinstance(run_id, str) or run_id in ids:
            return None
        ids[run_id] = directory
    # Python orders text by code point, as DuckDB orders UTF-8 VARCHAR by its bytes.
    return [ids[run_id] for run_id in sorted(ids)]


def _quoted(text: str) -> str:
    return text.replace("'", "''")
