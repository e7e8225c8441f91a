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
from medeval.reporting.compare.runs import compare_runs
from medeval.reporting.compare.show import print_comparison, write_comparison
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
    # Eight question groups answered once each: eight clusters (not the five scenarios).
    assert (outdated.ac.n_pairs, outdated.ac.clusters, outdated.ac.difference) == (8, 8, -1.0)
    assert outdated.ac.significant and outdated.incorrect.significant
    assert outdated.ac.low is not None and outdated.ac.high is not None
    assert -1.0 <= outdated.ac.low < outdated.ac.high < 0
    assert not pooled[("fake:accurate", "fake:extra")].ac.significant
    markdown, _ = write_comparison(comparison, tmp_path / "out")
    text = markdown.read_text(encoding="utf-8")
    pooled_section = text.split("## Pooled across question groups")[1].split("## Significant changes")[0]
    assert "| fake:accurate | fake:outdated | A&C | 8 | 8 | 100.0% | 0.0% | -100.0 pp (" in pooled_section
    # Exact McNemar, 2 * 0.5 ** 8 = 0.0078, Holm-adjusted over the table's four tests: 0.031.
    assert "SIGNIFICANT | 8 / 0 | 0.031 (exact McNemar (no between-cluster variation)) |" in pooled_section


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
    assert "| fake:accurate | fake:outdated | A&C | 8 | 8 | 100.0% | 0.0% | -100.0 pp (" in text


def variant_run(
    parent: Path, run_id: str, scenarios: list[Path], target: str, *, review: str | None = None
) -> Path:
    """Two variants x two epochs of every scenario; in variant "short" the groups answer AC, in
    "long" INC. `review` leaves that question group in review in every trial."""
    records = []
    for variant, category in (("short", AC), ("long", INC)):
        for epoch in (1, 2):
            for scenario in scenarios:
                groups = [t["question_group"] for t in json.loads(scenario.read_text())["scripted_turns"]]
                record = make_record(
                    run_id,
                    len(records) + 1,
                    target,
                    dict.fromkeys(groups, category),
                    scenario_id=scenario.stem,
                    epoch=epoch,
                )
                kept = [
                    g.model_copy(update={"ship_category": ShipCategory.NEEDS_REVIEW})
                    if g.question_group == review
                    else g
                    for g in record.groups
                ]
                records.append(record.model_copy(update={"variant": variant, "groups": kept}))
    return write_run(parent, run_id, records, scenario_paths=scenarios)


def test_two_variants_are_paired_variant_with_variant_and_none_is_dropped(tmp_path: Path) -> None:
    scenarios = five_scenarios(tmp_path)  # 8 question groups over 5 scenarios
    run_a = variant_run(tmp_path / "runs", "runA", scenarios, "fake:a")
    run_b = variant_run(tmp_path / "runs", "runB", scenarios, "fake:a")
    comparison = compare_runs(run_a, run_b)
    # 2 variants x 8 groups x 2 epochs = 32 pairs: one variant no longer overwrites the other.
    (row,) = comparison.pooled
    assert row.ac.n_pairs == 32 and row.ac.difference == 0
    assert comparison.variants() == ["long", "short"]
    per_group = {(c.variant, c.scenario_id, c.question_group) for c in comparison.changes}
    assert len(per_group) == 16 and comparison.flagged() == []
    # Each variant compared with itself: short (all AC) against short, never against long (all INC).
    rates = {c.variant: c.result.a for c in comparison.changes if c.metric == "rate:accurate_complete"}
    assert rates == {"short": 1.0, "long": 0.0}
    markdown, csv_path = write_comparison(comparison, tmp_path / "out")
    assert "| fake:a \\[long\\] | s1 | QG1 |" in markdown.read_text(encoding="utf-8")
    with csv_path.open(encoding="utf-8") as handle:
        assert {row["variant"] for row in csv.DictReader(handle)} == {"short", "long"}


def test_a_group_left_in_review_by_the_other_run_is_not_only_in_one(tmp_path: Path) -> None:
    scenarios = five_scenarios(tmp_path)
    run_a = variant_run(tmp_path / "runs", "runA", scenarios, "fake:a")
    run_b = variant_run(tmp_path / "runs", "runB", scenarios, "fake:a", review="QG9")
    comparison = compare_runs(run_a, run_b)
    assert comparison.only_a == [] and comparison.only_b == []
    assert comparison.presence is not None and comparison.presence.groups_a == []
    assert "QG9" not in {c.question_group for c in comparison.changes}


def test_targets_with_different_names_are_paired_with_pair(tmp_path: Path) -> None:
    scenarios = five_scenarios(tmp_path)
    run_a = one_epoch_run(tmp_path / "runs", "runA", scenarios, {"fake:a": AC, "fake:b": AC})
    run_b = one_epoch_run(tmp_path / "runs", "runB", scenarios, {"fake:c": INC, "fake:d": AC})
    assert compare_runs(run_a, run_b).pooled == []
    comparison = compare_runs(run_a, run_b, [("fake:a", "fake:c"), ("fake:b", "fake:d")])
    pooled = {(p.target_a, p.target_b): p for p in comparison.pooled}
    assert set(pooled) == {("fake:a", "fake:c"), ("fake:b", "fake:d")}
    assert pooled[("fake:a", "fake:c")].ac.difference == -1.0
    assert pooled[("fake:b", "fake:d")].ac.difference == 0
    assert comparison.presence is not None and comparison.presence.targets_a == []


def test_pair_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenarios = five_scenarios(tmp_path)
    run_a = one_epoch_run(tmp_path / "runs", "runA", scenarios, {"fake:a": AC, "fake:b": AC})
    run_b = one_epoch_run(tmp_path / "runs", "runB", scenarios, {"fake:c": INC, "fake:d": AC})
    out = tmp_path / "cmp"
    args = [
        "compare",
        str(run_a),
        str(run_b),
        "--allow-damaged",
        "--pair",
        "fake:a=fake:c",
        "--out",
        str(out),
    ]
    done = subprocess.run([sys.executable, "-m", "medeval", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "| fake:a | fake:c | A&C |" in (out / "compare.md").read_text(encoding="utf-8")
    for bad, says in (("fake:a", "is not A=B"), ("fake:x=fake:c", "not a target of run A")):
        wrong = [sys.executable, "-m", "medeval", "compare", str(run_a), str(run_b), "--allow-damaged"]
        wrong += ["--pair", bad]
        refused = subprocess.run(wrong, capture_output=True, text=True)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
        # (The fixture runs have no checkpoint: --allow-damaged reads them with a warning line.)
        (line,) = [x for x in refused.stderr.splitlines() if x.startswith("error: ")]
        assert says in line
