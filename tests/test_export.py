"""Data you can query: tidy tables exported as Parquet or CSV, SQL over runs, the Python API."""

from __future__ import annotations

import asyncio
import csv
import re
import shlex
import shutil
from pathlib import Path
from typing import Literal

import duckdb
import pytest

from medeval import api
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import RunResult, run
from medeval.export import COLUMNS, TABLES, export_runs, views
from medeval.export.cache import table_files

from .conftest import REPO, SCENARIOS, medeval
from .export_oracle import same_tables

SCENARIO_001 = SCENARIOS / "scenario_001.json"
FOLLOWUP = SCENARIOS / "employer_coverage_followup.json"


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two offline runs under one runs/ folder (the second with two epochs)."""
    parent = tmp_path_factory.mktemp("work")
    out = parent / "runs"
    targets = ["fake:accurate", "fake:refusal"]
    run(RunConfig(scenarios=[SCENARIO_001, FOLLOWUP], targets=targets, out=out))
    run(RunConfig(scenarios=[SCENARIO_001], targets=targets, out=out, epochs=2))
    return parent


def test_query_prints_a_table_over_every_run_under_runs(two_runs: Path) -> None:
    done = medeval(
        "query", "select target, avg(accurate_complete) as ac from groups group by 1 order by 1", cwd=two_runs
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"fake:accurate\s*│\s*1\b", done.stdout), done.stdout
    assert re.search(r"fake:refusal\s*│\s*0\b", done.stdout), done.stdout
    done = medeval("query", "select count(distinct run_id) as runs, count(*) as n from trials", cwd=two_runs)
    # 2 scenarios x 2 targets, then 1 scenario x 2 targets x 2 epochs
    assert re.search(r"2\s*│\s*8\b", done.stdout), done.stdout


def test_a_bad_query_is_one_line(two_runs: Path) -> None:
    done = medeval("query", "select nope from groups", cwd=two_runs)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "query failed" in done.stderr
    done = medeval("query", "select 1", "nowhere", cwd=two_runs)
    assert done.returncode == 2 and "nowhere is not a run directory" in done.stderr


def test_parquet_export_opens_in_duckdb_with_the_documented_columns(two_runs: Path) -> None:
    done = medeval("export", "runs", "--format", "parquet", "--out", "tables", cwd=two_runs)
    assert done.returncode == 0, done.stderr
    con = duckdb.connect()
    documented = (REPO / "docs" / "data.md").read_text(encoding="utf-8")
    for table in TABLES:
        path = two_runs / "tables" / f"{table}.parquet"
        columns = [row[0] for row in con.execute(f"describe select * from '{path}'").fetchall()]
        assert columns == list(COLUMNS[table])
        for column in columns:
            assert f"`{column}`" in documented, f"{table}.{column} is not in docs/data.md"
    (trials,) = con.execute(
        f"select count(*) from '{two_runs / 'tables' / 'trials.parquet'}'"
    ).fetchone() or (0,)
    assert trials == 8
    calls = con.execute(
        f"select count(*) from '{two_runs / 'tables' / 'calls.parquet'}' where role = 'target'"
    ).fetchone()
    assert calls is not None and calls[0] > 0


def test_csv_export_has_a_header_row_per_table(two_runs: Path) -> None:
    done = medeval("export", "runs", "--format", "csv", "--out", "csv", cwd=two_runs)
    assert done.returncode == 0, done.stderr
    with (two_runs / "csv" / "groups.csv").open(encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert header == list(COLUMNS["groups"])
    done = medeval("export", "runs", "--format", "xlsx", cwd=two_runs)
    assert done.returncode == 2 and "not parquet or csv" in done.stderr


def test_api_loads_runs_as_relations_and_rates_by_target(two_runs: Path) -> None:
    runs = api.load(two_runs / "runs")
    rates = {row[0]: row[2] for row in runs.rates(("target",)).fetchall()}
    assert rates == {"fake:accurate": 1.0, "fake:refusal": 0.0}
    assert runs.trials.aggregate("count(*)").fetchall() == [(8,)]
    with pytest.raises(KeyError, match="tables: trials"):
        runs.table("nope")
    runs.close()


def test_api_runs_inside_a_running_event_loop(tmp_path: Path) -> None:
    config = RunConfig(scenarios=[SCENARIO_001], targets=["fake:accurate"], out=tmp_path)

    async def notebook_cell() -> RunResult:
        # As in Jupyter: a loop is already running when the user calls the API.
        return api.run(config)

    result = asyncio.run(notebook_cell())
    assert len(result.records) == 1 and result.records[0].status == "scored"


def test_every_documented_query_example_runs(two_runs: Path) -> None:
    """The command lines of docs/data.md (and the API lines beside them) run as written."""
    documented = (REPO / "docs" / "data.md").read_text(encoding="utf-8")
    commands = [line for line in documented.splitlines() if line.startswith("medeval ")]
    assert sum(line.startswith("medeval query ") for line in commands) >= 3
    run_a, run_b = sorted(p.name for p in (two_runs / "runs").iterdir())
    for line in commands:
        line = line.split("   #")[0].replace("RUN_A", run_a).replace("RUN_B", run_b)
        done = medeval(*shlex.split(line)[1:], cwd=two_runs)
        assert done.returncode == 0, (line, done.stderr)
        assert done.stderr == "", (line, done.stderr)
    runs = api.load(two_runs / "runs")
    assert runs.rates(by=("target", "variant")).fetchall()
    assert runs.sql("select * from calls where role = 'target'").fetchall()
    runs.close()


def test_the_duckdb_tables_equal_the_obvious_python_ones(two_runs: Path) -> None:
    for run_dir in sorted((two_runs / "runs").iterdir()):
        assert same_tables(table_files(run_dir), run_dir) == {}


def test_tables_are_built_once_and_again_when_the_run_changes(two_runs: Path, tmp_path: Path) -> None:
    source = sorted((two_runs / "runs").iterdir())[0]
    run_dir = tmp_path / source.name
    shutil.copytree(source, run_dir, ignore=shutil.ignore_patterns(".cache"))
    first = table_files(run_dir)
    stamp = first["groups"].stat().st_mtime_ns
    assert table_files(run_dir) == first and first["groups"].stat().st_mtime_ns == stamp
    # A new line in the run (as an appended trial would be) gives a new key and fresh tables.
    with (run_dir / "calls.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("\n")
    second = table_files(run_dir)
    assert second["groups"] != first["groups"] and second["groups"].is_file()
    assert not first["groups"].parent.exists()  # the old build was removed


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_streamed_export_equals_the_sorted_one(
    two_runs: Path, tmp_path: Path, fmt: Literal["parquet", "csv"], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs with their own ids stream out of their stored tables, in the order a sort gives."""
    runs = sorted(m.parent for m in (two_runs / "runs").glob("*/manifest.json"))[::-1]
    streamed = export_runs(runs, tmp_path / "streamed", fmt)
    monkeypatch.setattr(views, "_in_run_id_order", lambda _runs: None)
    for path, other in zip(streamed, export_runs(runs, tmp_path / "sorted", fmt), strict=True):
        if fmt == "csv":
            assert path.read_bytes() == other.read_bytes()
        else:
            con = duckdb.connect()
            assert (
                con.execute(f"select * from '{path}'").fetchall()
                == con.execute(f"select * from '{other}'").fetchall()
            )


def test_runs_sharing_a_run_id_are_sorted_together(two_runs: Path, tmp_path: Path) -> None:
    """A copied run's rows interleave with its original's, so the export sorts them."""
    runs = sorted(m.parent for m in (two_runs / "runs").glob("*/manifest.json"))
    copy = tmp_path / "copy"
    shutil.copytree(runs[0], copy, ignore=shutil.ignore_patterns(".cache"))
    out = tmp_path / "out"
    export_runs([copy, *runs], out, "parquet")
    con = duckdb.connect()
    for name in TABLES:
        rows = con.execute(f"select * from '{out / f'{name}.parquet'}'").fetchall()
        assert rows == con.execute(f"select * from '{out / f'{name}.parquet'}' order by all").fetchall()
        counts = [con.execute(f"select count(*) from '{table_files(r)[name]}'").fetchone() for r in runs]
        assert len(rows) == sum(c[0] for c in counts if c) + (counts[0] or (0,))[0]
