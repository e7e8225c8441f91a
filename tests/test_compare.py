"""`medeval compare`: exactly the question group that changed is flagged; snapshot changes stand out."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from medeval.cli import main
from medeval.reporting.build import build_report
from medeval.reporting.compare.runs import compare_runs, print_comparison, write_comparison
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
        # The fixture runs carry made-up prompt and scenario hashes, so they fail verify by design.
        [
            sys.executable,
            "-m",
            "medeval",
            "compare",
            str(run_a),
            str(run_b),
            "--out",
            str(tmp_path / "cmp"),
            "--allow-damaged",
        ],
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


def one_epoch_run(parent: Path, run_id: str, scenarios: list[Path], plan: dict[str, ShipCategory]) -> Path:
    """One epoch per target, every question group of every scenario in the category `plan` gives."""
    records = []
    index = 0
    for target, category in plan.items():
        for scenario in scenarios:
            index += 1
            groups = [t["question_group"] for t in json.loads(scenario.read_text())["scripted_turns"]]
            records.append(
                make_record(run_id, index, target, dict.fromkeys(groups, category), scenario_id=scenario.stem)
            )
    return write_run(parent, run_id, records, scenario_paths=scenarios)


def five_scenarios(tmp_path: Path) -> list[Path]:
    layout = {"s1": ("QG1", "QG9", "QG12"), "s2": ("QG1", "QG9"), "s3": ("QG12",), "s4": ("QG1",)}
    layout |= {"s5": ("QG9",)}
    return [write_scenario(tmp_path, scenario_id=s, groups=groups) for s, groups in layout.items()]


def test_always_right_against_always_wrong_is_significant_pooled(tmp_path: Path) -> None:
    scenarios = five_scenarios(tmp_path)
    run_a = one_epoch_run(tmp_path / "runs", "runA", scenarios, {"fake:accurate": AC})
    run_b = one_epoch_run(tmp_path / "runs", "runB", scenarios, {"fake:outdated": INC, "fake:extra": AC})
    comparison = compare_runs(run_a, run_b)
    # One epoch per group: no single group can reach significance, the pooled test can.
    assert comparison.flagged() == []
    pooled = {(p.target_a, p.target_b): p for p in comparison.pooled}
    outdated = pooled[("fake:accurate", "fake:outdated")]
    assert (outdated.ac.n_pairs, outdated.ac.clusters, outdated.ac.difference) == (8, 5, -1.0)
    assert outdated.ac.significant and outdated.incorrect.significant
    assert outdated.ac.low is not None and outdated.ac.high is not None
    assert -1.0 <= outdated.ac.low < outdated.ac.high < 0
    assert not pooled[("fake:accurate", "fake:extra")].ac.significant
    markdown, _ = write_comparison(comparison, tmp_path / "out")
    text = markdown.read_text(encoding="utf-8")
    pooled_section = text.split("## Pooled across question groups")[1].split("## Significant changes")[0]
    assert "| fake:accurate | fake:outdated | A&C | 8 | 5 | 100.0% | 0.0% | -100.0 pp (" in pooled_section
    assert "SIGNIFICANT | 8 / 0 | 0.008 |" in pooled_section  # exact McNemar: 2 * 0.5 ** 8


def test_targets_scenarios_and_groups_in_one_run_only_are_listed(tmp_path: Path) -> None:
    scenarios = five_scenarios(tmp_path)
    run_a = one_epoch_run(tmp_path / "runs", "runA", scenarios[:4], {"fake:a": AC, "fake:b": AC})
    run_b = one_epoch_run(tmp_path / "runs", "runB", scenarios[1:], {"fake:a": AC, "fake:c": AC})
    comparison = compare_runs(run_a, run_b)
    assert comparison.presence is not None
    assert comparison.presence.targets_a == ["fake:b"] and comparison.presence.targets_b == ["fake:c"]
    assert comparison.presence.scenarios_a == ["s1"] and comparison.presence.scenarios_b == ["s5"]
    changes = "\n".join(comparison.snapshot_changes)
    assert "Targets only in B (1): fake:c" in changes and "Scenarios only in A (1): s1" in changes
    markdown, _ = write_comparison(comparison, tmp_path / "out")
    assert "Nothing:" not in markdown.read_text(encoding="utf-8")


def test_runs_with_no_target_in_common_say_so_instead_of_an_empty_table(tmp_path: Path) -> None:
    scenarios = five_scenarios(tmp_path)
    run_a = one_epoch_run(tmp_path / "runs", "runA", scenarios, {"fake:a": AC, "fake:b": AC})
    run_b = one_epoch_run(tmp_path / "runs", "runB", scenarios, {"fake:c": INC, "fake:d": AC})
    comparison = compare_runs(run_a, run_b)
    assert comparison.pooled == []
    console = Console(record=True, width=200)
    print_comparison(comparison, console)
    shown = console.export_text()
    assert "no target of A is paired with one of B" in shown
    assert "Targets only in A (2): fake:a, fake:b" in shown and "B − A (clustered" not in shown
    markdown, _ = write_comparison(comparison, tmp_path / "out")
    assert "No target answered items in both runs." in markdown.read_text(encoding="utf-8")


def test_a_run_compared_with_itself_says_so(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path)
    run_a = fixture_run(tmp_path / "runs", "runA", scenario, qg9=AC)
    comparison = compare_runs(run_a, run_a)
    assert comparison.same_run
    markdown, _ = write_comparison(comparison, tmp_path / "out")
    assert "A and B are the same run" in markdown.read_text(encoding="utf-8")


def test_report_of_two_single_model_runs_pairs_their_trials(tmp_path: Path) -> None:
    scenarios = five_scenarios(tmp_path)
    run_a = one_epoch_run(tmp_path / "runs", "runA", scenarios, {"fake:accurate": AC})
    run_b = one_epoch_run(tmp_path / "runs", "runB", scenarios, {"fake:outdated": INC})
    paths = build_report([run_a, run_b], tmp_path / "report")
    text = paths.markdown.read_text(encoding="utf-8")
    assert "| fake:accurate | fake:outdated | A&C | 8 | 5 | 100.0% | 0.0% | -100.0 pp (" in text
