"""Each run's tidy tables, built once and kept as Parquet in the run's cache folder.

RUN/.cache/tables-KEY/NAME.parquet, where KEY is the run's state (records/integrity.run_key: its
chain heads as its checkpoints record them and each run file's size and modification time, which
covers people's codes too). While the run is unchanged every `query` and `export` reads those files;
any append, import or edit gives a new key and the tables are built again (the old folder is
removed). A run folder that cannot be written to gets its tables in a temporary folder for the
process instead.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from medeval.export.tables import TABLES
from medeval.records.integrity import CACHE_DIR, run_key

#: Bump when the tables' columns or their building change, so older cached tables are rebuilt.
TABLES_VERSION = "2"
DONE = "complete"
_TEMPORARY: list[Path] = []


def table_files(run_dir: Path) -> dict[str, Path]:
    """NAME -> the Parquet file of that table for this run, built now if the run changed."""
    key = f"{TABLES_VERSION}-{run_key(run_dir)[:20]}"
    cache = run_dir / CACHE_DIR
    folder = cache / f"tables-{key}"
    if not (folder / DONE).is_file():
        try:
            cache.mkdir(exist_ok=True)
            _build_into(run_dir, cache, folder)
        except OSError:
            folder = _temporary_tables(run_dir)
        else:
            _drop_others(cache, folder)
    return {name: folder / f"{name}.parquet" for name in TABLES}


def _build_into(run_dir: Path, cache: Path, folder: Path) -> None:
    """Build in a scratch folder beside the final one, then rename it into place: a reader never
    sees half a build, and two builders at once both end with whole tables."""
    # The builder (and the models it reads people's codes with) loads only when a run changed.
    from medeval.export.build import build_run_tables

    scratch = Path(tempfile.mkdtemp(prefix="building-", dir=cache))
    try:
        build_run_tables(run_dir, scratch)
        (scratch / DONE).write_text("", encoding="utf-8")
        try:
            os.rename(scratch, folder)
        except OSError:
            if not (folder / DONE).is_file():
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _drop_others(cache: Path, keep: Path) -> None:
    for old in cache.glob("tables-*"):
        if old != keep:
            shutil.rmtree(old, ignore_errors=True)


def _temporary_tables(run_dir: Path) -> Path:
    from medeval.export.build import build_run_tables

    folder = Path(tempfile.mkdtemp(prefix="medeval-tables-"))
    if not _TEMPORARY:
        atexit.register(_remove_temporary)
    _TEMPORARY.append(folder)
    build_run_tables(run_dir, folder)
    return folder


def _remove_temporary() -> None:
    for folder in _TEMPORARY:
        shutil.rmtree(folder, ignore_errors=True)
