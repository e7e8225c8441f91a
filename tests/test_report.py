"""`medeval report`: CSV numbers equal hand-computed values, the counselor rows equal the published
baseline, and the Markdown and HTML agree with the CSV."""

from __future__ import annotations

import csv
import re
import sys
from html import escape
from pathlib import Path
from statistics import fmean

import pytest

from medeval.cli import main
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run
from medeval.errors import UserError
from medeval.records.storage import TornLineWarning
from medeval.reporting.build import build_report
from medeval.reporting.loading.run import Corpus
from medeval.schemas import ShipCategory, Unscored

from .conftest import SCENARIOS, medeval
from .test_report_support import FACTS, SOURCE, make_record, write_run, write_scenario

AC = ShipCategory.ACCURATE_COMPLETE
SI = ShipCategory.SUBSTANTIVE_INCOMPLETE
NS = ShipCategory.NOT_SUBSTANTIVE
INC = ShipCategory.INCORRECT
ID = ShipCategory.INCOMPLETE_DATA
BASELINE = Path(__file__).resolve().parent.parent / "src" / "medeval" / "data" / "ship_baseline.csv"

# Per target, per epoch: the category of each question group. QG2 (Spanish) is asked but not scored.
PLAN = {
    "fake:a": [
        {"QG1": AC, "QG9": AC, "QG12": NS},
        {"QG1": AC, "QG9": AC, "QG12": NS},
        {"QG1": SI, "QG9": AC, "QG12": AC},
        {"QG1": INC, "QG9": AC, "QG12": ID},
    ],
    "fake:b": [
        {"QG1": SI, "QG9": INC, "QG12": AC},
        {"QG1": SI, "QG9": AC, "QG12": AC},
        {"QG1": SI, "QG9": AC, "QG12": AC},
        {"QG1": SI, "QG9": AC, "QG12": AC},
    ],
}


def known_run(tmp_path: Path, *, scenario_file: bool = True) -> Path:
    scenario = write_scenario(tmp_path, groups=("QG1", "QG2", "QG9", "QG12"))
    records = []
    index = 0
    for target, epochs in PLAN.items():
        for epoch, categories in enumerate(epochs, start=1):
            index += 1
            records.append(
                make_record(
                    "run1",
                    index,
                    target,
                    {**categories, "QG2": AC},
                    epoch=epoch,
                    scored_groups={"QG2": False},
                )
            )
    if not scenario_file:
        scenario.unlink()
    return write_run(tmp_path / "runs", "run1", records, scenario_paths=[scenario])


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def row_for(rows: list[dict[str, str]], **match: str) -> dict[str, str]:
    [found] = [r for r in rows if all(r[k] == v for k, v in match.items())]
    return found


def test_ship_table_counts_and_percentages_equal_hand_counts(tmp_path: Path) -> None:
    paths = build_report([known_run(tmp_path)])
    rows = read_csv(paths.ship_csv)
    qg1_a = row_for(rows, question_group="QG1", target="fake:a")
    # fake:a on QG1: AC, AC, SI, INC
    assert (qg1_a["n"], qg1_a["accurate_complete"], qg1_a["substantive_incomplete"], qg1_a["incorrect"]) == (
        "4",
        "2",
        "1",
        "1",
    )
    assert float(qg1_a["accurate_complete_pct"]) == 50.0
    assert (float(qg1_a["accurate_complete_ci_low_pct"]), float(qg1_a["accurate_complete_ci_high_pct"])) == (
        15.0,
        85.0,
    )
    qg12_a = row_for(rows, question_group="QG12", target="fake:a")
    assert (qg12_a["not_substantive"], qg12_a["accurate_complete"], qg12_a["incomplete_data"]) == (
        "2",
        "1",
        "1",
    )
    assert float(qg12_a["not_substantive_pct"]) == 50.0
    pooled_a = row_for(rows, question_group="ALL", target="fake:a")
    assert (pooled_a["n"], pooled_a["accurate_complete"]) == ("12", "7")
    assert float(pooled_a["accurate_complete_pct"]) == round(100 * 7 / 12, 1)
    pooled_b = row_for(rows, question_group="ALL", target="fake:b")
    assert (pooled_b["accurate_complete"], pooled_b["substantive_incomplete"], pooled_b["incorrect"]) == (
        "7",
        "4",
        "1",
    )
    # QG2 was asked but is not scored: it has no row anywhere.
    assert not [r for r in rows if r["question_group"] == "QG2"]
    # Counselor rows sit beside the groups the run asked.
    qg9 = [r["target"] for r in rows if r["question_group"] == "QG9"]
    assert qg9 == [
        "fake:a",
        "fake:b",
        "SHIP counselors, phone",
        "SHIP counselors, face to face",
        "SHIP counselors, combined",
    ]


def test_per_scenario_and_trials_csv_equal_hand_computed_means(tmp_path: Path) -> None:
    paths = build_report([known_run(tmp_path)])
    per = read_csv(paths.per_scenario_csv)
    a = row_for(per, target="fake:a")
    # Trial accuracy = mean over scored groups with a judged claim: 1, 1, 1, 0.5.
    assert float(a["accuracy_mean"]) == pytest.approx(0.875, abs=1e-4)
    # Completeness per trial: 2/3, 2/3, 5/6, 1/2.
    assert float(a["completeness_mean"]) == pytest.approx((2 / 3 + 2 / 3 + 5 / 6 + 1 / 2) / 4, abs=1e-4)
    assert float(a["safety_risk_mean"]) == pytest.approx(0.75 / 4)
    assert a["n"] == "4" and a["needs_review"] == "0"
    assert float(a["accuracy_ci_low"]) <= 0.875 <= float(a["accuracy_ci_high"])
    b = row_for(per, target="fake:b")
    assert float(b["accuracy_mean"]) == pytest.approx((2 / 3 + 3) / 4, abs=1e-4)
    trials = read_csv(paths.trials_csv)
    assert len(trials) == 8 * 4  # one row per trial and question group, QG2 included as not scored
    qg2 = [r for r in trials if r["question_group"] == "QG2"]
    assert {r["ship_category"] for r in qg2} == {"not_applicable"} and {r["scored"] for r in qg2} == {"false"}
    fourth = row_for(trials, target="fake:a", epoch="4", question_group="QG1")
    assert (fourth["ship_category"], float(fourth["accuracy"]), float(fourth["safety_risk"])) == (
        "incorrect",
        0.0,
        0.75,
    )


def test_fake_pipeline_run_csv_matches_its_records(tmp_path: Path) -> None:
    result = run(
        RunConfig(scenarios=[SCENARIOS], targets=["fake:accurate", "fake:outdated"], out=tmp_path / "runs")
    )
    paths = build_report([result.store.directory])
    trials = read_csv(paths.trials_csv)
    expected = sorted(
        (r.trial_id, g.question_group, g.ship_category.value, g.scores.accuracy)
        for r in result.records
        for g in r.groups
    )
    got = sorted(
        (
            t["trial_id"],
            t["question_group"],
            t["ship_category"],
            float(t["accuracy"]) if t["accuracy"] else None,
        )
        for t in trials
    )
    assert [g[:3] for g in got] == [e[:3] for e in expected]
    for (_, _, _, mine), (_, _, _, theirs) in zip(got, expected, strict=True):
        assert (mine is None and theirs is None) or mine == pytest.approx(theirs, abs=1e-4)
    per = read_csv(paths.per_scenario_csv)
    for row in per:
        records = [
            r
            for r in result.records
            if r.scenario_id == row["scenario_id"] and r.target.spec == row["target"]
        ]
        assert int(row["n"]) == len(records)
        accuracies = [r.final_scores.accuracy for r in records if r.final_scores.accuracy is not None]
        if accuracies:
            assert float(row["accuracy_mean"]) == pytest.approx(fmean(accuracies), abs=1e-4)
    served = read_csv(paths.trials_csv)[0]["served_model"]
    assert served.endswith("-2026-11-01")


def test_counselor_rows_reproduce_the_published_baseline(tmp_path: Path) -> None:
    baseline = read_csv(BASELINE)
    groups = tuple(dict.fromkeys(r["question_group"] for r in baseline))
    assert len(groups) == 19
    scenario = write_scenario(tmp_path, groups=groups)
    record = make_record("runq", 1, "fake:a", dict.fromkeys(groups, AC))
    paths = build_report([write_run(tmp_path / "runs", "runq", [record], scenario_paths=[scenario])])
    rows = read_csv(paths.ship_csv)
    labels = {
        "phone": "SHIP counselors, phone",
        "face_to_face": "SHIP counselors, face to face",
        "combined": "SHIP counselors, combined",
    }
    categories = (
        "accurate_complete",
        "substantive_incomplete",
        "not_substantive",
        "incorrect",
        "incomplete_data",
    )
    for source in baseline:
        mine = row_for(rows, question_group=source["question_group"], target=labels[source["mode"]])
        assert mine["n"] == source["n"]
        assert [mine[c] for c in categories] == [source[c] for c in categories]
        assert sum(int(mine[c]) for c in categories) == int(source["n"])
    phone = row_for(rows, question_group="ALL", target="SHIP counselors, phone")
    assert phone["n"] == "1363" and float(phone["accurate_complete_pct"]) == 36.5
    assert (
        float(
            row_for(rows, question_group="ALL", target="SHIP counselors, face to face")[
                "accurate_complete_pct"
            ]
        )
        == 53.4
    )
    combined = row_for(rows, question_group="ALL", target="SHIP counselors, combined")
    assert combined["n"] == "1816" and float(combined["accurate_complete_pct"]) == 40.7
    # Rows come in the study's question-group order, pooled rows last.
    order = list(dict.fromkeys(r["question_group"] for r in rows))
    assert order[:3] == ["QG1", "QG3", "QG4"] and order[-2:] == ["QG20", "ALL"]


def test_markdown_shows_the_same_ship_numbers_as_the_csv(tmp_path: Path) -> None:
    paths = build_report([known_run(tmp_path)])
    markdown = paths.markdown.read_text(encoding="utf-8")
    for row in read_csv(paths.ship_csv):
        cells = (
            f"| {row['question_group']} | {row['target']} | {row['n']} | "
            f"{row['accurate_complete']} ({row['accurate_complete_pct']}%) |"
        )
        assert cells in markdown
    for heading in (
        "## Snapshot",
        "## SHIP-style table",
        "## Common failure modes",
        "## Exemplary incorrect responses",
        "## Judge agreement",
        "## Tokens and cost per role",
        "## Unscored items",
        "## Accuracy and completeness distributions",
    ):
        assert heading in markdown
    # Charts exist and are referenced from the Markdown.
    for chart in paths.charts:
        assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"]({chart.relative_to(paths.directory).as_posix()})" in markdown
    # Most-contradicted fact with its text and source; the exemplar quotes the answer verbatim.
    assert f"| {FACTS['QG1'][0]} | {FACTS['QG1'][1]} | {SOURCE} |" in markdown
    assert "> Wrong: Medicare pays for everything forever." in markdown
    assert "Served model(s)" in markdown and "a-2026" in markdown and "`aaaaaaaaaaaa`" in markdown


def test_agreement_review_and_unscored_items_are_reported(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path)
    judges = ("openai:gpt-x", "anthropic:claude-y")
    records = [
        make_record("runr", 1, "fake:a", {"QG1": AC, "QG9": INC}, judges=judges),
        make_record(
            "runr",
            2,
            "fake:a",
            {"QG1": AC},
            split_votes=True,
            unscored=[Unscored(item="T_QG9 judge 1", reason="invalid JSON after 3 attempts")],
            judges=judges,
        ),
    ]
    calls = [{"role": "target", "spec": "fake:a", "usage": {"input_tokens": 10, "output_tokens": 5}}]
    paths = build_report(
        [write_run(tmp_path / "runs", "runr", records, scenario_paths=[scenario], calls=calls)]
    )
    markdown = paths.markdown.read_text(encoding="utf-8")
    # Three claims; the split one has labels SUPPORTED / NOT_IN_KEY.
    assert "- Claims without unanimity: 1 (33.3%)" in markdown
    assert "- Trials sent to manual review: 1" in markdown
    assert "runr-t00002" in markdown
    assert "invalid JSON after 3 attempts" in markdown
    assert "| target | fake:a | 1 | 10 | unknown | 5 | unknown |" in markdown  # no cost_usd recorded
    html = paths.html.read_text(encoding="utf-8")
    assert '<a href="#t2" class="review-link">runr-t00002</a>' in html
    assert '<mark class="v-pending" data-claims="t2-T_QG1.c1"' in html  # undecided claim, highlighted


def test_agreement_of_copies_of_the_rules_coder_is_not_applicable(tmp_path: Path) -> None:
    # Two rules verifiers agree by construction: a 1.000 would be a false claim of reliability.
    scenario = write_scenario(tmp_path)
    records = [make_record("runq", i, "fake:a", {"QG1": AC, "QG9": INC}) for i in (1, 2)]
    rules_run = write_run(tmp_path / "runs", "runq", records, scenario_paths=[scenario])
    paths = build_report([rules_run])
    markdown = paths.markdown.read_text(encoding="utf-8")
    section = markdown.split("## Judge agreement", 1)[1].split("\n## ", 1)[0]
    assert "Not applicable: every verifier is the same deterministic program (rules)" in section
    assert "1.000" not in section and "Krippendorff" not in section
    html = paths.html.read_text(encoding="utf-8")
    agreement_html = html.split('id="agreement"', 1)[1].split("<h2", 1)[0]
    assert "Not applicable: every verifier is the same deterministic program (rules)" in agreement_html
    assert "1.000" not in agreement_html
    # Mixed with a model-judged run, the rules-judged claims are left out and counted.
    model_judged = make_record("runm", 1, "fake:a", {"QG1": AC}, split_votes=True, judges=("a:x", "b:y"))
    mixed = build_report(
        [rules_run, write_run(tmp_path / "runs2", "runm", [model_judged], scenario_paths=[scenario])],
        out=tmp_path / "mixed",
    )
    text = mixed.markdown.read_text(encoding="utf-8")
    assert "Left out: 4 claims from trials whose verifiers were all the same deterministic program" in text
    assert "- Claims: 1; verifiers per claim: 2" in text


def test_html_is_self_contained_and_carries_claims_and_verdicts(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path)
    record = make_record("runh", 1, "fake:a", {"QG1": AC, "QG12": INC})
    record.conversation[0].text = "I read https://www.medicare.gov and http://example.org; are they right?"
    paths = build_report([write_run(tmp_path / "runs", "runh", [record], scenario_paths=[scenario])])
    html = paths.html.read_text(encoding="utf-8")
    assert not re.search(r"https?://", html)
    assert "medicare.gov" in html  # the text is kept, only the scheme is broken
    assert 'id="summary-table"' in html
    assert '<mark class="v-contradicted" data-claims="t1-T_QG12.c1"' in html
    assert '<mark class="v-supported" data-claims="t1-T_QG1.c1"' in html
    assert 'class="label-CONTRADICTED"' in html and FACTS["QG12"][1] in html and escape(SOURCE) in html
    assert "research use only" in html.lower()
    for control in ("f-target", "f-scenario", "f-group", "f-category"):
        assert f'id="{control}"' in html
    assert 'src="data:image/png;base64,' in html
    assert "<link" not in html and "<script src" not in html


def test_torn_final_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    directory = known_run(tmp_path)
    with (directory / "results.jsonl").open("a", encoding="utf-8") as handle:
        handle.write('{"trial_id": "torn", "groups": [{"question_gr')
    with pytest.warns(TornLineWarning, match="1 torn"):
        paths = build_report([directory])
    assert len({r["trial_id"] for r in read_csv(paths.trials_csv)}) == 8
    assert "1 torn or unreadable line(s)" in paths.markdown.read_text(encoding="utf-8")


def test_missing_scenario_file_falls_back_gracefully(tmp_path: Path) -> None:
    paths = build_report([known_run(tmp_path, scenario_file=False)])
    assert "fact text unavailable" in paths.markdown.read_text(encoding="utf-8")


def test_several_runs_make_one_report_listing_each_snapshot(tmp_path: Path) -> None:
    first = known_run(tmp_path)
    (tmp_path / "second").mkdir()
    scenario = write_scenario(tmp_path / "second", groups=("QG1",))
    second = write_run(
        tmp_path / "runs", "run2", [make_record("run2", 1, "fake:c", {"QG1": AC})], scenario_paths=[scenario]
    )
    paths = build_report([first, second], tmp_path / "combined")
    markdown = paths.markdown.read_text(encoding="utf-8")
    assert "### Run `run1`" in markdown and "### Run `run2`" in markdown
    assert row_for(read_csv(paths.ship_csv), question_group="QG1", target="fake:c")["n"] == "1"


def test_duckdb_reads_every_run_without_python_records(tmp_path: Path) -> None:
    corpus = Corpus([known_run(tmp_path)])
    try:
        assert corpus.trial_count() == 8
        [(count,)] = corpus.query(
            "SELECT count(*) FROM trial_groups WHERE ship_category = 'accurate_complete'"
        )
        assert count == 14  # 7 per target
    finally:
        corpus.close()


def test_report_command_writes_and_names_its_files(tmp_path: Path) -> None:
    directory = known_run(tmp_path)
    done = medeval("report", str(directory), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert str(directory / "report" / "report.md") in done.stdout
    assert (directory / "report" / "report.html").is_file()


def test_report_of_a_missing_directory_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["medeval", "report", str(tmp_path / "nope")])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "run directory" in lines[0]


def test_demo_ends_with_its_report(tmp_path: Path) -> None:
    done = medeval("demo", "--out", str(tmp_path / "runs"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    paths = [Path(p) for p in re.findall(r"^report: (\S+)$", done.stdout, flags=re.MULTILINE)]
    assert sorted(p.name for p in paths) == ["report.html", "report.md"], done.stdout
    assert all(p.is_file() for p in paths)


def test_html_question_table_sets_counselors_beside_the_pooled_targets(tmp_path: Path) -> None:
    paths = build_report([known_run(tmp_path)])
    html = paths.html.read_text(encoding="utf-8")
    assert "Script: medicare only" in html
    # QG1: the targets pooled give 2 of 8 accurate & complete; the counselors 105 of 184 (57.1%).
    assert f"{25 - 100 * 105 / 184:+.1f}" == "-32.1"
    assert "-32.1 pp" in html
    assert '<span class="qv">57%</span>' in html and "n 184 / 8" in html
    assert html.count('<tr class="model-row model" data-drawer="medicare_only|') == 6  # 2 targets x 3
    # Wilson intervals on the bars: counselors 105/184, AI targets 2/8.
    assert "SHIP counselors, n=184: 95% CI 50–64%" in html and "AI, n=8: 95% CI 7–59%" in html


def test_a_run_without_trials_is_a_clear_error(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path)
    directory = write_run(tmp_path / "runs", "empty", [], scenario_paths=[scenario])
    (directory / "results.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(UserError, match="no readable trials"):
        build_report([directory])
    assert not (directory / "report").exists()


def test_paired_comparison_of_targets_is_in_both_documents(tmp_path: Path) -> None:
    paths = build_report([known_run(tmp_path)])
    markdown = paths.markdown.read_text(encoding="utf-8")
    # fake:a against fake:b on the same 12 items, accurate & complete 7 and 7. Discordant, by hand:
    # QG1 epochs 1-2 (a AC, b SI) and QG9 epoch 1 (a AC, b INC): only a = 3;
    # QG12 epochs 1-2 (a NS, b AC) and epoch 4 (a incomplete data, b AC): only b = 3.
    # Each question group is a cluster (three here); 3 against 3 discordant pairs: no difference.
    assert "| fake:a | fake:b | A&C | 12 | 3 | 58.3% | 58.3% | +0.0 pp (" in markdown
    assert "| 3 / 3 | 1.000 | 1.000 | no discordant difference |" in markdown
    html = paths.html.read_text(encoding="utf-8")
    assert 'id="pairs-table"' in html and '<td class="num">3 / 3</td>' in html


def test_pooled_row_beside_the_counselors_covers_only_the_study_groups(tmp_path: Path) -> None:
    # A SHIP script and a topic scenario in one run: the topic group must not be pooled into the
    # row that stands beside the counselors' published pooled rates.
    result = run(
        RunConfig(
            scenarios=[SCENARIOS / "ship_medicare_only.json", SCENARIOS / "scenario_001.json"],
            targets=["fake:accurate"],
            out=tmp_path,
        )
    )
    [record_mo, record_001] = sorted(result.records, key=lambda r: r.scenario_id != "ship_medicare_only")
    study_groups = [g for g in record_mo.groups if g.scored]
    build_report([result.store.directory])
    rows = read_csv(result.store.directory / "report" / "ship_table.csv")
    pooled = row_for(rows, question_group="ALL", target="fake:accurate")
    other = row_for(rows, question_group="ALL-OTHER", target="fake:accurate")
    assert int(pooled["n"]) == len(study_groups) == 13
    assert int(other["n"]) == len([g for g in record_001.groups if g.scored]) == 1
    assert not [r for r in rows if r["question_group"] == "ALL-OTHER" and r["source"] == "counselors"]
