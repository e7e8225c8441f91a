"""Rescore: other judges over a run's stored transcripts, into a new run, with no target calls;
and a trial that raises is recorded as unscored with its reason while the others go on."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from medeval.engine import judging
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import resume_config, run
from medeval.engine.progress import PlainProgress, QuietProgress, choose_progress
from medeval.engine.rescore import rescore
from medeval.errors import ConfigError
from medeval.records.audit import verify_run
from medeval.records.storage import CALLS, MANIFEST, RESULTS
from tests.engine_support import FOLLOWUP, SCENARIO_001, strict_lines


def test_rescore_judges_stored_transcripts_without_calling_targets(tmp_path: Path) -> None:
    source = run(
        RunConfig(
            scenarios=[SCENARIO_001, FOLLOWUP],
            targets=["fake:accurate", "fake:invented"],
            epochs=2,
            out=tmp_path,
        )
    ).store.directory
    result = rescore(source, ["fake:judge"], judge_count=3)
    new = result.store.directory
    assert new != source

    roles = {c["role"] for c in strict_lines(new / CALLS)}
    assert "target" not in roles and {"extractor", "verifier"} <= roles
    old_trials, new_trials = strict_lines(source / RESULTS), strict_lines(new / RESULTS)
    assert sorted(t["trial_key"] for t in old_trials) == sorted(t["trial_key"] for t in new_trials)
    by_key = {t["trial_key"]: t for t in old_trials}
    for fresh in new_trials:
        old = by_key[fresh["trial_key"]]
        assert fresh["conversation"] == old["conversation"]
        assert fresh["judges"] == ["fake:judge"] * 3 and old["judges"] == ["rules", "rules"]
    manifest = json.loads((new / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["source_run"]["run_id"] == source.name
    assert manifest["source_run"]["results"]["records"] == 8
    assert [f.severity for f in verify_run(new)] == ["ok"]
    with pytest.raises(ConfigError, match="is a rescore of run"):
        resume_config(new)
    # Editing the source run's trials afterwards shows up when the rescored run is verified.
    lines = (source / RESULTS).read_text(encoding="utf-8").splitlines(keepends=True)
    (source / RESULTS).write_text("".join(lines[:-1]), encoding="utf-8")
    assert any("no longer holds the 8 trial records" in f.message for f in verify_run(new))


def test_a_trial_that_raises_is_unscored_with_its_reason_and_the_rest_go_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real_score = judging.scorer.score

    def score_or_fail(*args: Any, **kwargs: Any) -> Any:
        if args[2].scenario_id == "scenario_001":
            raise RuntimeError("scorer exploded")
        return real_score(*args, **kwargs)

    monkeypatch.setattr(judging.scorer, "score", score_or_fail)
    result = run(RunConfig(scenarios=[SCENARIO_001, FOLLOWUP], targets=["fake:accurate"], out=tmp_path))
    by_scenario = {r.scenario_id: r for r in result.records}
    broken = by_scenario["scenario_001"]
    assert broken.status == "unscored"
    assert broken.unscored[0].reason == "RuntimeError: scorer exploded"
    assert by_scenario["employer_coverage_followup"].status in ("scored", "partial")


def test_progress_is_plain_off_a_terminal_and_silent_when_quiet(tmp_path: Path) -> None:
    stream = io.StringIO()
    progress = choose_progress(quiet=False, stream=stream)
    assert isinstance(progress, PlainProgress)
    assert isinstance(choose_progress(quiet=True, stream=stream), QuietProgress)
    run(
        RunConfig(scenarios=[SCENARIO_001], targets=["fake:accurate"], epochs=3, out=tmp_path),
        progress=progress,
    )
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("trials 0/3")
    assert lines[-1].startswith("trials 3/3  calls 3  cache hits 0  errors 0  unscored 0  cost $0.0000")
