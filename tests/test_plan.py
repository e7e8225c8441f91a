"""`medeval plan` (study/plan.py, reporting/stats/power.py): the formulas against seeded
simulation, and the command on the shipped study file."""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from medeval.reporting.stats.power import (
    Z80,
    Design,
    corrected_codes,
    detectable_between,
    detectable_vs_published,
    kappa_codes,
)
from medeval.reporting.stats.ppi import Z95, corrected_rate

from .review_support import cli

SHIP_STUDY = (
    Path(__file__).resolve().parent.parent / "src" / "medeval" / "data" / "studies" / "ship_replication.toml"
)


def clustered_rates(rng: np.random.Generator, design: Design, p: float, studies: int) -> np.ndarray:
    """Each study's mean over answers nested as scripts x groups x repeats, with correlations
    exactly the design's: a repeat copies its group's value with probability sqrt(repeat_icc), a
    group its script's with probability sqrt(group_icc / repeat_icc), else each draws afresh."""
    s, g, r = design.scripts, round(design.groups_per_script), design.repeats
    a = math.sqrt(design.repeat_icc)
    b = math.sqrt(design.group_icc / design.repeat_icc)
    script = rng.random((studies, s, 1, 1)) < p
    group = np.where(rng.random((studies, s, g, 1)) < b, script, rng.random((studies, s, g, 1)) < p)
    answer = np.where(rng.random((studies, s, g, r)) < a, group, rng.random((studies, s, g, r)) < p)
    return answer.reshape(studies, -1).mean(axis=1)


#: Tolerances the simulations must meet (docs/statistics.md, "Planning a study").
POWER_TOLERANCE = 0.04
VARIANCE_TOLERANCE = 0.05


def test_design_effect_and_detectable_difference_match_simulation() -> None:
    rng = np.random.default_rng(23)
    design = Design(scripts=4, groups_per_script=10, repeats=4)
    p0, n_published = 0.407, 1816
    delta = detectable_vs_published(design, p0, n_published)
    assert 0 < delta < 0.5
    studies = 20000
    rates = clustered_rates(rng, design, p0 + delta, studies)
    # The variance the design effect predicts, against the simulated one.
    predicted = (p0 + delta) * (1 - p0 - delta) * design.deff / design.answers
    assert rates.var() == pytest.approx(predicted, rel=VARIANCE_TOLERANCE)
    # Power at the detectable difference: the test a report would make with the design's SE.
    published = rng.binomial(n_published, p0, studies) / n_published
    se = np.sqrt(
        rates * (1 - rates) * design.deff / design.answers + published * (1 - published) / n_published
    )
    power = float(np.mean(np.abs(rates - published) / se > Z95))
    assert power == pytest.approx(0.80, abs=POWER_TOLERANCE)
    between = detectable_between(design, p0)
    other = clustered_rates(rng, design, p0 + between, studies)
    base = clustered_rates(rng, design, p0, studies)
    se2 = np.sqrt((other * (1 - other) + base * (1 - base)) * design.deff / design.answers)
    assert float(np.mean(np.abs(other - base) / se2 > Z95)) == pytest.approx(0.80, abs=POWER_TOLERANCE)


def test_kappa_codes_give_a_tenth_wide_interval_in_simulation() -> None:
    rng = np.random.default_rng(5)
    shares = np.array([0.407, 0.32, 0.17, 0.103])
    kappa = 0.8
    n = kappa_codes(shares, kappa)
    # Two raters with these shares and exactly this kappa: agree by design with probability kappa.
    joint = kappa * np.diag(shares) + (1 - kappa) * np.outer(shares, shares)
    widths = []
    for _ in range(400):
        table = rng.multinomial(n, joint.ravel()).reshape(4, 4)
        result = cohens_kappa(table)
        widths.append((result.kappa_upp - result.kappa_low) / 2)
    assert float(np.mean(widths)) == pytest.approx(0.10, abs=0.01)


def test_corrected_codes_give_five_points_in_simulation() -> None:
    rng = np.random.default_rng(9)
    decided, error = 2000, 0.15
    n = corrected_codes(decided, error)
    assert n is not None and 0 < n < decided
    widths = []
    for _ in range(300):
        truth = rng.random(decided) < 0.5
        judged = np.where(rng.random(decided) < error, ~truth, truth)
        sample = rng.choice(decided, n, replace=False)
        rate = corrected_rate(judged, list(zip(judged[sample], truth[sample], strict=True)))
        assert rate.half_width is not None
        widths.append(rate.half_width)
    assert float(np.mean(widths)) == pytest.approx(0.05, abs=0.002)
    assert corrected_codes(80, error) is None  # 80 answers cannot give +/-5 points


def test_z80_is_the_normal_quantile() -> None:
    from scipy.stats import norm

    assert norm.ppf(0.8) == pytest.approx(Z80)


def test_plan_and_validate_print_the_shipped_study(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = partial(cli, monkeypatch, capsys)
    code, stdout, stderr = run("plan", "--study", str(SHIP_STUDY))
    assert code == 0, stderr
    assert "32 trials (4 targets x 8 trials each)" in stdout
    assert "80 headline answers = 2 script(s) x 10 groups x 4 answers per group" in stdout
    assert "design effect 4.30" in stdout
    assert "detectable A&C difference vs counselors (40.7% of 1,816): ±29.8 points" in stdout
    assert "human codes for a kappa interval of ±0.10" in stdout
    assert "cost at typical token counts: $0.00" in stdout
    code, stdout, stderr = run("validate", "--study", str(SHIP_STUDY))
    assert code == 0, stderr
    assert "study file valid" in stdout and "detectable A&C difference vs counselors" in stdout
