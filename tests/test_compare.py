"""`medeval compare`: exactly the question group that changed is flagged; snapshot changes stand out."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from medeval.cli import main
from medeval.reporting.compare import compare_runs, write_comparison
from medeval.schemas import ShipCategory

from .test_report_support import PROMPTS, SCENARIO_ID, make_record, write_run, write_scenario

AC = ShipCategory.ACCURATE_COMPLETE
SI = ShipCategory.SUBSTANTIVE_INCOMPLETE
INC = ShipCategory.INCORRECT
EPOCHS = 10


def fixture_run(
    parent: Path,
    run_id: str,
    scenario: Path,
    *,
    qg9: ShipCategory,
    target: str = "fake:a",
    served: str | None = None,
    prompts: dict[str, str] | None = None,
    scenario_sha: str = "c" * 64,
) -> Path:
    records = [
        # A realistic mix in the unchanged groups: QG1 varies across epochs, identically in both runs.
        make_record(
            run_id,
            epoch,
            target,
            {"QG1": AC if epoch % 3 else SI, "QG9": qg9, "QG12": AC},
            epoch=epoch,
            served=served,
        )
        for epoch in range(1, EPOCHS + 1)
    ]
    return write_run(
        parent, run_id, records, scenario_paths=[scenario], prompts=prompts, scenario_sha=scenario_sha
    )


def test_exactly_the_changed_question_group_is_flagged(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path)
    run_a = fixture_run(tmp_path / "runs", "runA", scenario, qg9=AC)
    run_b = fixture_run(tmp_path / "runs", "runB", scenario, qg9=INC)
    comparison = compare_runs(run_a, run_b)
    assert comparison.flagged_groups() == [("fake:a", SCENARIO_ID, "QG9")]
    flagged_metrics = {c.metric for c in comparison.flagged()}
    assert {"rate:accurate_complete", "rate:incorrect"} <= flagged_metrics
    # Accuracy moved too, but from one constant sample to another: no test is possible, so it is
    # reported and not called significant.
    accuracy = next(c for c in comparison.changes if c.question_group == "QG9" and c.metric == "accuracy")
    assert accuracy.result.difference not in (0.0, None) and accuracy.result.p_value is None
    assert "accuracy" not in flagged_metrics
    ac = next(
        c for c in comparison.changes if c.question_group == "QG9" and c.metric == "rate:accurate_complete"
    )
    assert ac.result.difference == -1.0 and ac.result.low is not None and ac.result.high is not None
    assert ac.result.low <= -1.0 + 1e-9 or ac.result.low < ac.result.high < 0
    unchanged = [c for c in comparison.changes if c.question_group != "QG9"]
    assert unchanged and all(c.result.difference in (0.0, None) and not c.significant for c in unchanged)
    assert comparison.snapshot_changes == []

    markdown, csv_path = write_comparison(comparison, tmp_path / "out")
    rows = list(csv.DictReader(csv_path.open(encoding="utf-8")))
    assert {r["question_group"] for r in rows if r["significant"] == "True"} == {"QG9"}
    text = markdown.read_text(encoding="utf-8")
    assert "QG9" in text.split("## Significant changes")[1].split("## Every question group")[0]
    assert "QG1 " not in text.split("## Significant changes")[1].split("## Every question group")[0]


def test_identical_runs_flag_nothing(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path)
    run_a = fixture_run(tmp_path / "runs", "runA", scenario, qg9=AC)
    run_b = fixture_run(tmp_path / "runs", "runB", scenario, qg9=AC)
    assert compare_runs(run_a, run_b).flagged() == []


def test_served_model_prompt_and_scenario_changes_are_prominent(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path)
    run_a = fixture_run(tmp_path / "runs", "runA", scenario, qg9=AC, served="a-2026-01")
    run_b = fixture_run(
        tmp_path / "runs",
        "runB",
        scenario,
        qg9=AC,
        served="a-2026-06",
        prompts={**PROMPTS, "verifier": "f" * 64},
        scenario_sha="d" * 64,
    )
    comparison = compare_runs(run_a, run_b)
    changes = "\n".join(comparison.snapshot_changes)
    assert "Served model of fake:a: a-2026-01 -> a-2026-06" in changes
    assert "Prompt hash of verifier: aaaaaaaaaaaa -> ffffffffffff" in changes
    assert f"Scenario hash of {SCENARIO_ID}: cccccccccccc -> dddddddddddd" in changes
    markdown, _ = write_comparison(comparison, tmp_path / "out")
    head = markdown.read_text(encoding="utf-8").split("## Significant changes")[0]
    assert "**Served model of fake:a: a-2026-01 -> a-2026-06**" in head


def test_two_models_one_target_each_are_compared_with_each_other(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path)
    run_a = fixture_run(tmp_path / "runs", "runA", scenario, qg9=AC, target="fake:a")
    run_b = fixture_run(tmp_path / "runs", "runB", scenario, qg9=INC, target="fake:b")
    comparison = compare_runs(run_a, run_b)
    assert comparison.flagged_groups() == [("fake:b", SCENARIO_ID, "QG9")]
    assert any("fake:a (A) is compared with fake:b (B)" in line for line in comparison.snapshot_changes)


def test_compare_command_prints_and_writes(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path)
    run_a = fixture_run(tmp_path / "runs", "runA", scenario, qg9=AC)
    run_b = fixture_run(tmp_path / "runs", "runB", scenario, qg9=INC, served="other-model")
    done = subprocess.run(
        [sys.executable, "-m", "medeval", "compare", str(run_a), str(run_b), "--out", str(tmp_path / "cmp")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"COLUMNS": "200", "PATH": ""},
    )
    assert done.returncode == 0, done.stderr
    assert "Served model of fake:a" in done.stdout and "SIGNIFICANT" in done.stdout
    assert (tmp_path / "cmp" / "compare.md").is_file() and (tmp_path / "cmp" / "compare.csv").is_file()


def test_compare_with_a_missing_run_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = write_scenario(tmp_path)
    run_a = fixture_run(tmp_path / "runs", "runA", scenario, qg9=AC)
    monkeypatch.setattr(sys, "argv", ["medeval", "compare", str(run_a), str(tmp_path / "nope")])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "nope" in lines[0]
