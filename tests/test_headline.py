"""The headline: each target beside the counselors over the study's question groups only, with Wilson
intervals, Newcombe differences, a second table without deviating groups, and review counts apart."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from rich.console import Console
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

from medeval.cli.report import print_headline_of
from medeval.reporting.build import build_report
from medeval.reporting.loading.run import Corpus
from medeval.reporting.tables.headline import headline
from medeval.schemas import ShipCategory

from .test_report_support import make_record, write_run, write_scenario

AC = ShipCategory.ACCURATE_COMPLETE
SI = ShipCategory.SUBSTANTIVE_INCOMPLETE
INC = ShipCategory.INCORRECT
NR = ShipCategory.NEEDS_REVIEW
BASELINE = Path(__file__).resolve().parent.parent / "src" / "medeval" / "data" / "ship_baseline.csv"


def counselors(mode: str, groups: set[str] | None = None) -> tuple[int, int]:
    """(A&C, n) of the counselors, summed straight from the published table."""
    with BASELINE.open(encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["mode"] == mode]
    rows = [r for r in rows if groups is None or r["question_group"] in groups]
    return sum(int(r["accurate_complete"]) for r in rows), sum(int(r["n"]) for r in rows)


def headline_run(tmp_path: Path) -> Path:
    """fake:a on the study script (3 epochs) plus a topic scenario that must not count; QG9 declares a
    deviation; one QG12 answer needs review."""
    study = write_scenario(tmp_path, groups=("QG1", "QG9", "QG12"))
    topic = write_scenario(tmp_path, scenario_id="topic_fixture", groups=("QG1",))
    data = json.loads(topic.read_text(encoding="utf-8"))
    topic.write_text(json.dumps({**data, "script": "topic"}), encoding="utf-8")
    plan = [
        {"QG1": AC, "QG9": AC, "QG12": INC},
        {"QG1": SI, "QG9": AC, "QG12": AC},
        {"QG1": AC, "QG9": INC, "QG12": SI},  # QG12 becomes needs_review below
    ]
    records = []
    for epoch, categories in enumerate(plan, start=1):
        record = make_record("runh", epoch, "fake:a", categories, epoch=epoch)
        for group in record.groups:
            if group.question_group == "QG9":
                group.deviations = ["D-QG9-plan-lookup"]
            if epoch == 3 and group.question_group == "QG12":
                group.ship_category = NR
        records.append(record)
    # The topic scenario: always Incorrect, which would change every rate if it were pooled in.
    for epoch in (1, 2):
        records.append(
            make_record("runh", 10 + epoch, "fake:a", {"QG1": INC}, scenario_id="topic_fixture", epoch=epoch)
        )
    return write_run(tmp_path / "runs", "runh", records, scenario_paths=[study, topic])


def test_headline_counts_only_study_groups_with_wilson_and_newcombe(tmp_path: Path) -> None:
    corpus = Corpus([headline_run(tmp_path)])
    try:
        result = headline(corpus)
    finally:
        corpus.close()
    [target] = result.study.targets
    # Study script only: A&C = QG1 e1, e3; QG9 e1, e2; QG12 e2 = 5 of 8 (the needs-review answer is
    # outside n, the topic scenario's two Incorrect answers are not counted at all).
    assert (target.n, target.needs_review, target.not_scored) == (8, 1, 0)
    ac = target.rates["accurate_complete"]
    low, high = proportion_confint(5, 8, method="wilson")
    assert ac.estimate == 5 / 8 and ac.low is not None and abs(ac.low - low) < 1e-9
    assert ac.high is not None and abs(ac.high - high) < 1e-9
    assert target.rates["incorrect"].estimate == 2 / 8
    # Beside the counselors' published combined rate, with a Newcombe interval (target minus SHIP).
    human_ac, human_n = counselors("combined")
    combined = next(c for c in result.study.counselors if c.mode == "combined")
    assert (combined.n, combined.counts["accurate_complete"]) == (human_n, human_ac)
    delta = target.delta_ac["combined"]
    expected = confint_proportions_2indep(5, 8, human_ac, human_n, method="newcomb")
    assert delta.difference is not None and abs(delta.difference - (5 / 8 - human_ac / human_n)) < 1e-12
    assert delta.low is not None and abs(delta.low - expected[0]) < 1e-9
    assert set(target.delta_ac) == {"phone", "face_to_face", "combined"}


def test_groups_with_a_declared_deviation_get_their_own_table(tmp_path: Path) -> None:
    corpus = Corpus([headline_run(tmp_path)])
    try:
        result = headline(corpus)
    finally:
        corpus.close()
    assert result.deviating == ["QG9"]
    assert result.no_deviation.groups == ["QG1", "QG12"]
    [target] = result.no_deviation.targets
    assert target.n == 5 and target.rates["accurate_complete"].estimate == 3 / 5
    # Counselors over the same two groups, not their published pooled rate.
    combined = next(c for c in result.no_deviation.counselors if c.mode == "combined")
    assert (combined.counts["accurate_complete"], combined.n) == counselors("combined", {"QG1", "QG12"})
    assert [b.title for b in result.blocks()] == [result.study.title, result.no_deviation.title]
    sentence = result.sentence()
    assert "QG1, QG9, QG12" in sentence and "declared deviation (QG9)" in sentence
    assert "judges (rules)" in sentence and "0 group decisions by people" in sentence
    assert "so these rates are uncorrected for judge error" in sentence


def test_headline_opens_report_md_and_html_and_the_snapshot_closes_them(tmp_path: Path) -> None:
    paths = build_report([headline_run(tmp_path)])
    markdown = paths.markdown.read_text(encoding="utf-8")
    assert markdown.index("## Headline") < markdown.index("## Summary per target")
    assert markdown.index("## Snapshot") > markdown.index("## Unscored items")
    assert "| fake:a | 8 | 62.5% (30.6–86.3) |" in markdown
    assert "| SHIP counselors, combined | 1816 | 40.7% (38.5–43.0) |" in markdown
    html = paths.html.read_text(encoding="utf-8")
    assert html.index('id="headline"') < html.index('id="summary"') < html.index('id="snapshot"')
    assert '<details id="snapshot"' in html  # collapsed to one line until opened


def test_terminal_summary_prints_the_headline(tmp_path: Path) -> None:
    buffer = io.StringIO()
    print_headline_of(headline_run(tmp_path), Console(file=buffer, width=240))
    text = buffer.getvalue()
    assert "Study question groups (3)" in text and "SHIP counselors, combined" in text
    assert "62% (31–86)" in text and "0 group decisions by people" in text


def test_the_sentence_counts_the_groups_people_decided(tmp_path: Path) -> None:
    corpus = Corpus([headline_run(tmp_path)])
    try:
        assert headline(corpus).decided_by_people == 0
        # What reporting/human.apply_reviews leaves after importing one person's code for a study
        # group and one for the topic scenario (which the headline does not count).
        corpus.con.execute("ALTER TABLE trial_groups ADD COLUMN decided_by VARCHAR DEFAULT 'judges'")
        corpus.con.execute(
            "UPDATE trial_groups SET decided_by = 'coder' WHERE (scenario_id = 'ship_mo_fixture' "
            "AND question_group = 'QG1' AND epoch = 1) OR scenario_id = 'topic_fixture'"
        )
        result = headline(corpus)
    finally:
        corpus.close()
    assert result.decided_by_people == 1 and "1 group decision by people" in result.sentence()


def test_a_narrow_terminal_gets_the_headline_as_narrow_tables(tmp_path: Path) -> None:
    buffer = io.StringIO()
    print_headline_of(headline_run(tmp_path), Console(file=buffer, width=80))
    lines = buffer.getvalue().splitlines()
    assert all(len(line) <= 80 for line in lines)
    # Whole percentages with their interval, the target's rates on one line.
    assert any("62 (31–86)" in line and line.startswith("fake:") for line in lines)
