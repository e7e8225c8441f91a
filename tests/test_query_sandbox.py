"""`medeval query` is read-only and contained: attacks are refused in one line, the run is unchanged,
and values print as data."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run

from .conftest import SCENARIOS, medeval


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    parent = tmp_path_factory.mktemp("sandbox")
    scenario = SCENARIOS / "scenario_001.json"
    run(RunConfig(scenarios=[scenario], targets=["fake:accurate"], out=parent / "runs"))
    return parent


def run_hashes(work: Path) -> dict[str, str]:
    """Every file the run wrote (the query's table cache aside), by content."""
    (run_dir,) = [p for p in (work / "runs").iterdir() if p.is_dir()]
    return {
        str(p.relative_to(run_dir)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(run_dir.rglob("*"))
        if p.is_file() and ".cache" not in p.parts
    }


def results_path(work: Path) -> Path:
    (run_dir,) = [p for p in (work / "runs").iterdir() if p.is_dir()]
    return run_dir / "results.jsonl"


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("copy (select 1 as a) to '{results}' (format csv)", "COPY writes or reads files"),
        ("copy groups to '{results}'", "COPY writes or reads files"),
        ("select * from read_text('/etc/passwd')", "file access is disabled"),
        ("select * from read_csv('/etc/passwd')", "file access is disabled"),
        ("attach '{work}/evil.db' as evil", "ATTACH opens or creates other databases"),
        ("install httpfs", "INSTALL and LOAD fetch or run extensions"),
        ("load httpfs", "INSTALL and LOAD fetch or run extensions"),
        ("set enable_external_access = true", "SET changes settings"),
        ("select 1; copy groups to '{results}'", "2 statements given"),
    ],
)
def test_an_attack_is_refused_in_one_line_and_the_run_is_unchanged(work: Path, sql: str, why: str) -> None:
    before = run_hashes(work)
    done = medeval("query", sql.format(results=results_path(work), work=work), cwd=work)
    assert done.returncode == 2, done.stdout
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "query refused" in done.stderr and why in done.stderr, done.stderr
    assert run_hashes(work) == before
    assert not (work / "evil.db").exists()


def test_values_print_verbatim_as_data(work: Path) -> None:
    done = medeval(
        "query",
        "select '[/INST] :x: [bold]b[/bold]' as \"[/INST]\", "
        "timestamptz '2026-01-02 03:04:05+00' as at, count(*) as groups from groups",
        cwd=work,
    )
    assert done.returncode == 0, done.stderr
    assert "[/INST] :x: [bold]b[/bold]" in done.stdout
    assert "❌" not in done.stdout
    assert "2026-01-02 03:04:05+00" in done.stdout
    header = done.stdout.splitlines()[1]
    assert "[/INST]" in header, done.stdout


def test_reading_queries_still_work(work: Path) -> None:
    done = medeval("query", "with g as (from groups) select count(*) as n from g", cwd=work)
    assert done.returncode == 0 and "n" in done.stdout, done.stderr
    done = medeval("query", "describe groups", cwd=work)
    assert done.returncode == 0 and "ship_category" in done.stdout, done.stderr
