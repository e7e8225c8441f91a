"""A small Python API for notebooks and scripts: run a study, load runs as DuckDB relations (which
convert with `.df()` to pandas or `.arrow()` to Arrow where those are installed), compare runs.

Works inside a running event loop (Jupyter): a run is then driven by `asyncio.run` in a worker
thread, because a loop cannot run a second loop on its own thread.

    from medeval import api
    result = api.run_study("study.toml")
    runs = api.load("runs")
    runs.sql("select target, avg(accurate_complete) from groups where study_category group by 1")
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import RunResult, execute
from medeval.engine.progress import QuietProgress
from medeval.export import TABLES, connect, find_runs
from medeval.records.integrity import DamagedRunError, check_runs
from medeval.reporting.compare.runs import Comparison, compare_runs
from medeval.study import load_study

__all__ = ["DamagedRunError", "Runs", "compare", "load", "run", "run_study"]
T = TypeVar("T")
PathLike = str | Path


def _complete(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to the end, from plain code or from inside a running loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="medeval-run") as pool:
        return pool.submit(asyncio.run, coroutine).result()


def run(config: RunConfig) -> RunResult:
    """Run a configuration (what `medeval run` builds) and return its result."""
    return _complete(execute(config, progress=QuietProgress()))


def run_study(study: PathLike, **overrides: Any) -> RunResult:
    """Run a study file; keyword arguments override RunConfig fields (e.g. out="runs", seed=7),
    validated as the file's own values are and recorded in the manifest (study.overrides)."""
    from medeval.study.overrides import with_overrides

    return run(with_overrides(load_study(Path(study)), overrides))


class Runs:
    """Runs loaded into an in-memory DuckDB database, one table per tidy table (docs/data.md)."""

    def __init__(self, run_dirs: list[Path]) -> None:
        self.run_dirs = run_dirs
        self.connection = connect(run_dirs)

    def table(self, name: str) -> duckdb.DuckDBPyRelation:
        if name not in TABLES:
            raise KeyError(f"no table {name!r}; tables: {', '.join(TABLES)}")
        return self.connection.table(name)

    def sql(self, query: str) -> duckdb.DuckDBPyRelation:
        return self.connection.sql(query)

    @property
    def trials(self) -> duckdb.DuckDBPyRelation:
        return self.table("trials")

    @property
    def groups(self) -> duckdb.DuckDBPyRelation:
        return self.table("groups")

    @property
    def claims(self) -> duckdb.DuckDBPyRelation:
        return self.table("claims")

    @property
    def checklist(self) -> duckdb.DuckDBPyRelation:
        return self.table("checklist")

    @property
    def calls(self) -> duckdb.DuckDBPyRelation:
        return self.table("calls")

    def rates(self, by: Sequence[str] = ("target",)) -> duckdb.DuckDBPyRelation:
        """The study's four category rates over the groups set beside the counselors, by columns."""
        keys = ", ".join(f'"{c}"' for c in by)
        return self.sql(
            f"select {keys}, count(*) as n, "
            "avg((ship_category = 'accurate_complete')::int) as accurate_complete, "
            "avg((ship_category = 'substantive_incomplete')::int) as substantive_incomplete, "
            "avg((ship_category = 'not_substantive')::int) as not_substantive, "
            "avg((ship_category = 'incorrect')::int) as incorrect "
            f"from groups where study_category group by {keys} order by {keys}"
        )

    def close(self) -> None:
        self.connection.close()


def load(runs: PathLike | Sequence[PathLike] | None = None, *, allow_damaged: bool = False) -> Runs:
    """Load run directories (or folders of runs; default ./runs). A run that fails `medeval verify`
    raises DamagedRunError, unless `allow_damaged` (then its warning goes to stderr)."""
    if runs is None:
        paths = None
    elif isinstance(runs, str | Path):
        paths = [Path(runs)]
    else:
        paths = [Path(p) for p in runs]
    found = find_runs(paths)
    check_runs(found, allow_damaged=allow_damaged)
    return Runs(found)


def compare(
    run_a: PathLike,
    run_b: PathLike,
    pairs: dict[str, str] | None = None,
    *,
    allow_damaged: bool = False,
) -> Comparison:
    """Run-to-run comparison, as `medeval compare` computes it (and checks the runs first, as load);
    `pairs` maps a target of A to the target of B it is compared with (`--pair A=B`), by default the
    same spec in both runs."""
    check_runs([Path(run_a), Path(run_b)], allow_damaged=allow_damaged)
    return compare_runs(Path(run_a), Path(run_b), list((pairs or {}).items()))
