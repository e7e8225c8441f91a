"""The streamed report gives the figures computed from whole records in Python: a run with every
category, two scenarios, three targets, three epochs, model and rules verifiers, split votes,
unscored items and people's codes (two coders, so consensus and splits). Lists that grow with the run
are capped in report.md, with the count left out and the CSV that holds them all."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from medeval.reporting.build import build_report, collect
from medeval.reporting.loading.run import Corpus
from medeval.reporting.render import markdown
from medeval.reporting.stats.intervals import (
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    ClusterSums,
    Interval,
    agreement_from_patterns,
    cluster_bootstrap,
    cluster_bootstrap_mean,
)
from medeval.reporting.stats.paired import paired_rate
from medeval.reporting.tables import findings
from medeval.reporting.tables.people import apply_reviews
from medeval.reporting.tables.run_tables import SCORED_FILTER
from medeval.review.export import make_export
from medeval.review.importing import import_codes
from medeval.review.precedence import outcomes
from medeval.review.store import read_imports
from medeval.schemas import GroupResult, ShipCategory, TrialRecord, Unscored

from .review_support import codes_file, flip
from .test_report_support import make_record, write_run, write_scenario

TARGETS = ("fake:alpha", "fake:beta", "fake:gamma")
SCENARIOS = ("ship_mo_fixture", "ship_other_fixture")
GROUPS = ("QG1", "QG9", "QG12")
FIVE = (
    ShipCategory.ACCURATE_COMPLETE,
    ShipCategory.SUBSTANTIVE_INCOMPLETE,
    ShipCategory.NOT_SUBSTANTIVE,
    ShipCategory.INCORRECT,
    ShipCategory.INCOMPLETE_DATA,
)
# Set after the record is built (make_record scores only the five above).
LATER = (ShipCategory.NEEDS_REVIEW, ShipCategory.NOT_SCORED, ShipCategory.NOT_APPLICABLE)


def _recode(group: GroupResult, category: ShipCategory) -> GroupResult:
    scored = category != ShipCategory.NOT_APPLICABLE
    return group.model_copy(update={"ship_category": category, "scored": scored})


def _records() -> list[TrialRecord]:
    records = []
    index = 0
    for epoch in (1, 2, 3):
        for scenario_id in SCENARIOS:
            for t, target in enumerate(TARGETS):
                index += 1
                cats = {g: FIVE[(index + 2 * k + t) % len(FIVE)] for k, g in enumerate(GROUPS)}
                judges = ("rules", "rules") if index % 3 == 0 else ("fake:judge-a", "fake:judge-b")
                record = make_record(
                    "run1",
                    index,
                    target,
                    cats,
                    scenario_id=scenario_id,
                    epoch=epoch,
                    split_votes=index % 4 == 1,
                    unscored=[Unscored(item=f"verifier 2 on T_QG{index}", reason="not JSON")]
                    * (index % 5 == 0),
                    judges=judges,
                )
                groups = list(record.groups)
                later = LATER[index % len(LATER)]
                groups[index % len(groups)] = _recode(groups[index % len(groups)], later)
                records.append(record.model_copy(update={"groups": groups}))
    return records


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("stream")
    scenarios = [write_scenario(base, s, groups=GROUPS) for s in SCENARIOS]
    run_dir = write_run(base / "runs", "run1", _records(), scenario_paths=scenarios)
    study = ("accurate_complete", "substantive_incomplete", "not_substantive", "incorrect")
    items = [i for i in make_export(run_dir, 1.0, 3, blind=False).items if i.judge_category in study]
    for coder, flipped in (("alice", range(0, 12)), ("bob", range(6, 18))):
        entries = [
            {
                "item_id": item.item_id,
                "item_hash": item.item_hash,
                "category": flip(item.judge_category) if n in flipped else item.judge_category,
                "item_codes": {item.facts[0].fact_id: "covered"} if item.facts else {},
            }
            for n, item in enumerate(items[:24])
        ]
        path = codes_file(base / f"codes-{coder}.json", items[0].run_id, entries, coder=coder)
        import_codes(run_dir, path, coder)
    return run_dir


def _final(run_dir: Path) -> tuple[list[TrialRecord], dict[tuple[str, str], str]]:
    """Every trial, and each coded group's final category by the documented precedence."""
    lines = (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [
        TrialRecord.model_validate(
            {k: v for k, v in json.loads(line).items() if k not in ("hash", "prev_hash")}
        )
        for line in lines
    ]
    people = {(o.trial_id, o.question_group): o.category for o in outcomes(read_imports(run_dir))}
    return records, {k: v for k, v in people.items() if v is not None}


def _category(record: TrialRecord, group: GroupResult, people: dict[tuple[str, str], str]) -> str:
    return people.get((record.trial_id, group.question_group), group.ship_category.value)


def _counted(category: str, group: GroupResult) -> bool:
    return group.scored and category not in ("not_scored", "not_applicable", "needs_review")


def test_every_figure_equals_the_one_from_whole_records(run: Path, tmp_path: Path) -> None:
    records, people = _final(run)
    assert {g.ship_category for r in records for g in r.groups} == set(ShipCategory)
    assert len(set(people.values())) > 1 and len({r.epoch for r in records}) == 3
    corpus = Corpus([run])
    try:
        data = collect(corpus, apply_reviews(corpus))
        assert data.human.by_consensus and data.human.splits  # two coders: consensus and splits
    finally:
        corpus.close()
    seed = data.seed

    # SHIP counts per group and target, with people's codes first.
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in records:
        for g in r.groups:
            category = _category(r, g, people)
            if _counted(category, g):
                counts[(g.question_group, r.target.spec)][category] += 1
    shown = {(row.question_group, row.target): row for row in data.ship if row.source == "ai"}
    for key, expected in counts.items():
        assert {c: n for c, n in shown[key].counts.items() if n} == dict(expected)

    # Per target: trial means with a bootstrap over scenarios; per scenario: over trials.
    for row in data.targets:
        mine = sorted((r for r in records if r.target.spec == row.target), key=lambda r: r.trial_id)
        for metric in ("accuracy", "completeness"):
            values = [getattr(r.final_scores, metric) for r in mine]
            expected_interval = cluster_bootstrap_mean(values, [r.scenario_id for r in mine], seed=seed)
            assert getattr(row, metric) == expected_interval
        scored = sum(_counted(_category(r, g, people), g) for r in mine for g in r.groups)
        assert row.ac.n == scored and row.unscored_items == sum(len(r.unscored) for r in mine)
    for srow in data.scenarios:
        mine = sorted(
            (r for r in records if r.target.spec == srow.target and r.scenario_id == srow.scenario_id),
            key=lambda r: r.trial_id,
        )
        values = [r.final_scores.accuracy for r in mine]
        assert srow.accuracy == cluster_bootstrap_mean(values, [r.trial_id for r in mine], seed=seed)

    # Paired comparisons: the same items, the same counts, the same interval and test.
    items: dict[str, dict[tuple[str, ...], str]] = defaultdict(dict)
    for r in records:
        for g in r.groups:
            category = _category(r, g, people)
            if _counted(category, g):
                items[r.target.spec][(r.scenario_id, g.question_group, str(r.epoch), "")] = category
    assert data.findings.pairs
    for pair in data.findings.pairs:
        a, b = items[pair.target_a], items[pair.target_b]
        for field, category in (("ac", "accurate_complete"), ("incorrect", "incorrect")):
            expected = paired_rate(
                {k: v == category for k, v in a.items()}, {k: v == category for k, v in b.items()}
            )
            got = getattr(pair, field)
            assert (got.both, got.only_a, got.only_b, got.neither, got.clusters) == (
                expected.both,
                expected.only_a,
                expected.only_b,
                expected.neither,
                expected.clusters,
            )
            # The report adjusts its table's p-values together (Holm); the one comparison alone is not.
            assert got.model_dump(exclude={"p_adjusted"}) == pytest.approx(
                expected.model_dump(exclude={"p_adjusted"})
            )

    # Agreement over the claims of trials with distinct verifiers, by the libraries, claim by claim.
    votes = [
        [v.label.value if v.label else None for v in sorted(fc.votes, key=lambda v: v.judge_index)]
        for r in records
        if r.judges[0] != "rules"
        for fc in r.final_claims
    ]
    code = {"SUPPORTED": 0, "CONTRADICTED": 1, "NOT_IN_KEY": 2}
    matrix = np.array([[code[x] if x else np.nan for x in v] for v in votes]).T
    agreement = data.findings.agreement
    assert agreement.claims == len(votes)
    assert agreement.krippendorff_alpha == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"), abs=1e-12
    )
    table, _ = aggregate_raters(matrix.T.astype(int), n_cat=3)
    assert agreement.fleiss_kappa == pytest.approx(fleiss_kappa(table, method="fleiss"), abs=1e-12)
    assert agreement.excluded_claims == sum(len(r.final_claims) for r in records if r.judges[0] == "rules")

    # The whole report renders with every list in full below the cap.
    paths = build_report([run], tmp_path / "report")
    with (paths.directory / "unscored.csv").open(encoding="utf-8") as handle:
        assert len(list(csv.DictReader(handle))) == sum(len(r.unscored) for r in records)
    assert "more are left out here" not in paths.markdown.read_text(encoding="utf-8")
    assert SCORED_FILTER  # the filter the figures above re-implement


def test_long_lists_are_capped_with_the_count_and_the_csv(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(findings, "LIST_CAP", 2)
    monkeypatch.setattr(markdown, "LIST_CAP", 2)
    records, _ = _final(run)
    unscored = sum(len(r.unscored) for r in records)
    review = sum(r.flags.needs_manual_review for r in records)
    paths = build_report([run], tmp_path / "report")
    text = paths.markdown.read_text(encoding="utf-8")
    unscored_part = text.split("## Unscored items", 1)[1]
    assert unscored_part.count("| verifier 2 on") == 2
    assert f"Showing the first 2 of {unscored}: {unscored - 2} more are left out here." in unscored_part
    assert f"All {unscored} are in `unscored.csv`." in unscored_part
    assert f"All {review} are in `review_trials.csv`." in text
    assert f"- Trials sent to manual review: {review}" in text
    for name, rows in (("unscored.csv", unscored), ("review_trials.csv", review)):
        with (paths.directory / name).open(encoding="utf-8") as handle:
            assert len(list(csv.DictReader(handle))) == rows
    html = paths.html.read_text(encoding="utf-8")
    assert f"{review - 2} more, all listed in review_trials.csv" in html


def test_the_bootstrap_from_cluster_sums_draws_as_one_draw_of_every_resample() -> None:
    rng = np.random.default_rng(5)
    for clusters in (2, 3, 7, 250):
        values = list(rng.random(clusters * 3))
        labels = [f"c{i % clusters}" for i in range(len(values))]
        sums = ClusterSums()
        for value, label in zip(values, labels, strict=True):
            sums.add(value, label)
        # The interval as drawn before the draws were chunked: every resample at once.
        ordered = sorted(set(labels))
        totals = np.array([sums.sums[x] for x in ordered])
        counts = np.array([float(sums.counts[x]) for x in ordered])
        draws = np.random.default_rng(9).integers(
            0, clusters, size=(BOOTSTRAP_RESAMPLES, clusters), dtype=np.int32
        )
        means = totals[draws].sum(axis=1) / counts[draws].sum(axis=1)
        low, high = np.percentile(means, [(1 - CONFIDENCE) / 2 * 100, 100 - (1 - CONFIDENCE) / 2 * 100])
        expected = Interval(estimate=float(totals.sum() / counts.sum()), low=low, high=high, n=len(values))
        assert cluster_bootstrap(sums, seed=9) == expected


def test_agreement_from_patterns_counts_each_pattern_as_its_claims() -> None:
    votes = [["SUPPORTED", "SUPPORTED"]] * 5 + [["SUPPORTED", "CONTRADICTED"]] * 2 + [["NOT_IN_KEY", None]]
    patterns = agreement_from_patterns(
        [(("SUPPORTED", "SUPPORTED"), 5), (("SUPPORTED", "CONTRADICTED"), 2), (("NOT_IN_KEY", None), 1)], 3
    )
    code = {"SUPPORTED": 0, "CONTRADICTED": 1, "NOT_IN_KEY": 2}
    matrix = np.array([[code[x] if x else np.nan for x in v] for v in votes]).T
    assert patterns.claims == 8 and patterns.fleiss_claims == 7 and patterns.not_unanimous == 3
    assert patterns.krippendorff_alpha == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"), abs=1e-12
    )
    table, _ = aggregate_raters(matrix[:, :7].T.astype(int), n_cat=3)
    assert patterns.fleiss_kappa == pytest.approx(fleiss_kappa(table, method="fleiss"), abs=1e-12)
