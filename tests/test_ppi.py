"""Rates corrected for judge error (reporting/stats/ppi.py): a seeded simulation of the coverage,
the worked example of docs/statistics.md, and the report's corrected section."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from medeval.reporting.build import build_report
from medeval.reporting.stats.intervals import wilson
from medeval.reporting.stats.ppi import (
    corrected_difference,
    corrected_rate,
    difference_from_published,
)
from medeval.reporting.tables.corrected import Corrected, CorrectedTarget

from .review_support import code_audit_sample, fresh_copy, make_demo_run, read_csv

#: True category shares (A&C, SBI, NS, Incorrect) and the judge's misclassification matrix
#: (rows: truth, columns: the judge's call). The judge under-calls A&C and over-calls Incorrect.
SHARES = np.array([0.40, 0.30, 0.15, 0.15])
CONFUSION = np.array(
    [
        [0.80, 0.10, 0.02, 0.08],
        [0.10, 0.75, 0.05, 0.10],
        [0.02, 0.08, 0.85, 0.05],
        [0.03, 0.07, 0.05, 0.85],
    ]
)


def simulate(seed: int, studies: int = 200, groups: int = 400, audit: int = 60) -> dict[str, np.ndarray]:
    """Coverage of the true shares by the corrected and by the judges' (Wilson) 95% intervals, per
    category, over `studies` replicate studies, each with an audit of `audit` random groups."""
    rng = np.random.default_rng(seed)
    corrected = np.zeros(4)
    judges = np.zeros(4)
    for _ in range(studies):
        truth = rng.choice(4, size=groups, p=SHARES)
        judged = (rng.random(groups)[:, None] > CONFUSION.cumsum(axis=1)[truth]).sum(axis=1)
        sample = rng.choice(groups, size=audit, replace=False)
        for c in range(4):
            rate = corrected_rate(
                judged == c, list(zip(judged[sample] == c, truth[sample] == c, strict=True))
            )
            assert rate.low is not None and rate.high is not None
            corrected[c] += rate.low <= SHARES[c] <= rate.high
            plain = wilson(int((judged == c).sum()), groups)
            assert plain.low is not None and plain.high is not None
            judges[c] += plain.low <= SHARES[c] <= plain.high
    return {"corrected": corrected / studies, "judges": judges / studies}


def test_corrected_intervals_cover_the_truth_and_the_judges_do_not() -> None:
    coverage = simulate(seed=2026)
    # Printed in docs/statistics.md; A&C and Incorrect are the categories the judge biases.
    for c in (0, 3):
        assert 0.93 <= coverage["corrected"][c] <= 0.97, coverage
        assert coverage["judges"][c] < 0.80, coverage
    assert 0.93 <= coverage["corrected"].mean() <= 0.97, coverage


def test_the_worked_example_of_the_docs() -> None:
    # 400 decided groups, the judges call 80 Incorrect; of 60 audited, the judges called 12
    # Incorrect, people agree on 9 and call 1 of the other 48 Incorrect.
    decided = [True] * 80 + [False] * 320
    audit = [(True, True)] * 9 + [(True, False)] * 3 + [(False, True)] + [(False, False)] * 47
    rate = corrected_rate(decided, audit)
    assert rate.judge == pytest.approx(0.20)
    assert rate.estimate == pytest.approx(0.2 - 2 / 60)
    assert rate.variance == pytest.approx(
        (68.667 / 404) * (1 - 68.667 / 404) / 400 + 0.85 * (4 - 60 * (2 / 60) ** 2) / 59 / 60, rel=1e-4
    )
    assert (rate.low, rate.high) == pytest.approx((0.0961, 0.2373), abs=5e-4)
    assert not rate.useful and rate.codes_for_useful == 144
    target = CorrectedTarget(
        target="m", n=400, decided=400, codes=60, rates={"incorrect": rate}, vs_counselors={}
    )
    sentences = Corrected(codes=60, targets=[target], pairs=[]).sentences()
    assert sentences[1] == (
        "m: corrected intervals up to ±7.1 points on 60 codes; about 84 more codes would bring every "
        "category to ±5 points."
    )


def test_a_perfect_judge_changes_nothing_and_needs_no_more_codes() -> None:
    decided = [True] * 30 + [False] * 70
    rate = corrected_rate(decided, [(True, True)] * 5 + [(False, False)] * 15)
    assert rate.estimate == pytest.approx(0.30)
    assert rate.high is not None and rate.low is not None
    assert rate.high - rate.low == pytest.approx(2 * 1.96 * (32 / 104 * 72 / 104 / 100) ** 0.5, rel=1e-3)
    assert rate.codes_for_useful is None  # 100 groups cannot give +/-5 points at 30%: more trials


def test_no_codes_means_no_corrected_rate_and_known_groups_count_as_they_are() -> None:
    rate = corrected_rate([True, False, False], [], known=[True])
    assert rate.estimate is None and rate.judge == pytest.approx(0.5) and rate.n == 4
    assert corrected_difference(rate, rate).difference is None


def test_differences_add_both_variances() -> None:
    a = corrected_rate([True] * 100 + [False] * 300, [(True, True)] * 10 + [(False, False)] * 50)
    b = corrected_rate(
        [True] * 200 + [False] * 200, [(True, True)] * 25 + [(True, False)] * 5 + [(False, False)] * 30
    )
    d = corrected_difference(a, b)
    assert a.estimate is not None and b.estimate is not None and a.variance and b.variance
    assert d.difference == pytest.approx(b.estimate - a.estimate)
    assert d.high is not None and d.low is not None
    assert (d.high - d.low) / 2 == pytest.approx(1.96 * (a.variance + b.variance) ** 0.5, rel=1e-3)
    assert d.significant
    published = difference_from_published(a, 40, 100)
    assert published.difference == pytest.approx(a.estimate - 0.4) and published.significant


@pytest.fixture(scope="module")
def demo_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_run(tmp_path_factory.mktemp("ppi-demo"))


def test_report_shows_judges_and_corrected_rates_with_the_codes(demo_source: Path, tmp_path: Path) -> None:
    demo = fresh_copy(demo_source, tmp_path / "runs")
    before = build_report([demo], tmp_path / "before").markdown.read_text(encoding="utf-8")
    assert "uncorrected for judge error: people have coded no random audit sample" in before
    assert not (tmp_path / "before" / "corrected.csv").exists()

    coded = code_audit_sample(demo, tmp_path)
    after = build_report([demo], tmp_path / "after")
    markdown = after.markdown.read_text(encoding="utf-8")
    section = markdown.split("### Corrected for judge error", 1)[1]
    assert "A&C, judges | A&C, corrected" in section
    assert f"on {coded} people's codes" in section
    # 20 groups per target cannot give +/-5 points however many are coded.
    assert "coding every decided group would not bring them to ±5 points: more trials are needed" in section
    rows = read_csv(after.directory / "corrected.csv")
    assert sum(int(r["audit_codes"]) for r in rows if r["category"] == "A&C") == coded
    assert all(r["corrected_low"] and r["corrected_high"] for r in rows)
    html = after.html.read_text(encoding="utf-8")
    assert 'id="corrected-rates"' in html and 'id="corrected-pairs"' in html
