"""`medeval report` runs `verify`'s checks first: a damaged run still gets its report, with a warning
in the terminal, at the top of report.md and report.html; a duplicated trial is counted once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run
from medeval.records.storage import RESULTS
from medeval.reporting.loading.run import Corpus
from tests.conftest import medeval
from tests.engine_support import FOLLOWUP, SCENARIO_001

WARNING = "Warning: the run failed its integrity checks"


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    config = RunConfig(scenarios=[SCENARIO_001, FOLLOWUP], targets=["fake:accurate"], out=tmp_path / "runs")
    return run(config).store.directory


def test_an_intact_run_reports_without_a_warning(run_dir: Path, tmp_path: Path) -> None:
    done = medeval("report", str(run_dir), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
    assert WARNING not in (run_dir / "report" / "report.md").read_text(encoding="utf-8")
    assert WARNING not in (run_dir / "report" / "report.html").read_text(encoding="utf-8")


def test_an_edited_run_is_reported_with_a_prominent_warning(run_dir: Path, tmp_path: Path) -> None:
    results = run_dir / RESULTS
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[0])
    record["final_scores"]["accuracy"] = 1.0 if record["final_scores"]["accuracy"] != 1.0 else 0.5
    lines[0] = json.dumps(record) + "\n"
    results.write_text("".join(lines), encoding="utf-8")

    done = medeval("report", str(run_dir), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (warned,) = [
        line for line in done.stderr.splitlines() if line.startswith("warning: failed medeval verify")
    ]
    assert "results.jsonl:1: record 1 was changed" in warned
    markdown = (run_dir / "report" / "report.md").read_text(encoding="utf-8")
    assert markdown.index(WARNING) < markdown.index("trials from run(s)")
    assert "record 1 was changed" in markdown
    html = (run_dir / "report" / "report.html").read_text(encoding="utf-8")
    assert WARNING in html and 'role="alert"' in html


def test_a_duplicated_trial_is_counted_once_and_warned_about(run_dir: Path, tmp_path: Path) -> None:
    results = run_dir / RESULTS
    first = results.read_text(encoding="utf-8").splitlines(keepends=True)[0]
    with results.open("a", encoding="utf-8") as handle:
        handle.write(first)  # what a second writer used to do
    corpus = Corpus([run_dir])
    try:
        assert corpus.trial_count() == 2
    finally:
        corpus.close()
    done = medeval("report", str(run_dir), cwd=tmp_path)
    assert "chain broken" in done.stderr
    assert "2 trials from run(s)" in (run_dir / "report" / "report.md").read_text(encoding="utf-8")
