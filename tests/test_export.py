"""Data you can query: tidy tables exported as Parquet or CSV, SQL over runs, the Python API."""

from __future__ import annotations

import asyncio
import csv
import re
from pathlib import Path

import duckdb
import pytest

from medeval import api
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import RunResult, run
from medeval.export import COLUMNS, TABLES

from .conftest import REPO, SCENARIOS, medeval

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
