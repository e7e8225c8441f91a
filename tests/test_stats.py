"""The statistics: reference values, and cross-checks against scipy/statsmodels or the formula."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from medeval.reporting.stats.intervals import (
    agreement,
    cluster_bootstrap_mean,
    mean_difference,
    paired_comparison,
    proportion_difference,
    wilson,
)

Z = scipy_stats.norm.ppf(0.975)


def wilson_by_formula(k: int, n: int) -> tuple[float, float]:
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return centre - half, centre + half


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # Published reference values (Newcombe 1998, Table I, method 3: 81/263 and 15/148 and 0/20).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (2, 4, 0.1500, 0.8500),
    ],
)
def test_wilson_matches_reference_values(k: int, n: int, low: float, high: float) -> None:
    interval = wilson(k, n)
    assert interval.estimate == k / n and interval.n == n
    assert interval.low == pytest.approx(low, abs=5e-4)
    assert interval.high == pytest.approx(high, abs=5e-4)
    assert (interval.low, interval.high) == pytest.approx(wilson_by_formula(k, n), abs=1e-9)


def test_wilson_of_nothing_is_undefined_not_zero() -> None:
    assert wilson(0, 0).estimate is None and wilson(0, 0).low is None


def test_the_pooled_ship_phone_rate() -> None:
    interval = wilson(497, 1363)
    assert round(100 * interval.estimate, 1) == 36.5  # type: ignore[operator]
    assert interval.low is not None and interval.high is not None
    assert interval.low < 0.365 < interval.high and interval.high - interval.low < 0.06


def test_cluster_bootstrap_is_seeded_and_reproducible() -> None:
    rng = np.random.default_rng(0)
    values = list(rng.random(60))
    clusters = [f"s{i % 6}" for i in range(60)]
    first = cluster_bootstrap_mean(values, clusters, seed=42)
    again = cluster_bootstrap_mean(values, clusters, seed=42)
    other = cluster_bootstrap_mean(values, clusters, seed=43)
    assert first == again
    assert (other.low, other.high) != (first.low, first.high)
    assert first.estimate == pytest.approx(float(np.mean(values)))


def test_cluster_bootstrap_with_singleton_clusters_agrees_with_scipy() -> None:
    rng = np.random.default_rng(1)
    values = rng.normal(0.6, 0.2, size=200)
    ours = cluster_bootstrap_mean(list(values), [str(i) for i in range(200)], seed=7, resamples=10000)
    theirs = scipy_stats.bootstrap(
        (values,), np.mean, n_resamples=10000, method="percentile", random_state=np.random.default_rng(7)
    ).confidence_interval
    assert ours.low == pytest.approx(theirs.low, abs=0.006)
    assert ours.high == pytest.approx(theirs.high, abs=0.006)


def test_cluster_bootstrap_widens_for_correlated_clusters() -> None:
    # Four scenarios, each with 25 identical trials: the effective sample is four, not a hundred.
    values = [v for v in (0.1, 0.4, 0.6, 0.9) for _ in range(25)]
    clusters = [c for c in "abcd" for _ in range(25)]
    clustered = cluster_bootstrap_mean(values, clusters, seed=1)
    naive = cluster_bootstrap_mean(values, [str(i) for i in range(100)], seed=1)
    assert (
        clustered.low is not None
        and naive.low is not None
        and clustered.high is not None
        and naive.high is not None
    )
    assert clustered.high - clustered.low > 3 * (naive.high - naive.low)


def test_cluster_bootstrap_skips_missing_values_and_needs_two_clusters() -> None:
    one = cluster_bootstrap_mean([0.5, None, 1.0], ["a", "a", "a"], seed=1)
    assert one.estimate == 0.75 and one.low is None and one.n == 2
    assert cluster_bootstrap_mean([None], ["a"], seed=1).estimate is None


def test_paired_comparison_counts_and_mcnemar_match_the_binomial() -> None:
    keys = [(f"s{i % 5}", "QG1", str(i)) for i in range(30)]
    a = {k: i < 20 for i, k in enumerate(keys)}  # 20 successes
    b = {k: 5 <= i < 30 for i, k in enumerate(keys)}  # 25 successes
    result = paired_comparison(a, b, seed=3)
    assert (result.both, result.only_a, result.only_b, result.neither) == (15, 5, 10, 0)
    assert result.rate_a == pytest.approx(20 / 30) and result.rate_b == pytest.approx(25 / 30)
    assert result.difference.estimate == pytest.approx(5 / 30)
    exact = scipy_stats.binomtest(5, 15, 0.5).pvalue
    assert result.mcnemar_p == pytest.approx(exact)
    assert result.difference.low is not None and result.difference.high is not None
    assert result.difference.low <= 5 / 30 <= result.difference.high


def test_paired_comparison_uses_only_shared_items() -> None:
    result = paired_comparison(
        {("s", "g", "1"): True, ("s", "g", "2"): True}, {("s", "g", "1"): False}, seed=1
    )
    assert result.n_pairs == 1 and result.only_a == 1


def test_proportion_difference_against_statsmodels_newcombe() -> None:
    from statsmodels.stats.proportion import confint_proportions_2indep

    result = proportion_difference(56, 70, 48, 80)
    low, high = confint_proportions_2indep(48, 80, 56, 70, method="newcomb")
    assert result.difference == pytest.approx(48 / 80 - 56 / 70)
    assert (result.low, result.high) == pytest.approx((low, high))
    # Newcombe 1998, Table II example (56/70 vs 48/80): interval for p1 - p2 is 0.0524 to 0.3339.
    assert (-result.high, -result.low) == pytest.approx((0.0524, 0.3339), abs=5e-4)  # type: ignore[operator]
    assert result.significant
    assert not proportion_difference(5, 10, 5, 10).significant


def test_mean_difference_is_welch() -> None:
    a, b = [0.2, 0.4, 0.5, 0.3], [0.7, 0.9, 0.6, 0.8, 0.75]
    result = mean_difference(a, b)
    reference = scipy_stats.ttest_ind(b, a, equal_var=False)
    assert result.p_value == pytest.approx(reference.pvalue)
    assert result.difference == pytest.approx(np.mean(b) - np.mean(a))
    constant = mean_difference([1.0, 1.0], [0.0, 0.0])
    assert constant.difference == -1.0 and constant.p_value is None and not constant.significant
    assert not mean_difference([1.0, 1.0], [1.0, 1.0]).significant


def nominal_alpha_by_hand(units: list[list[str]]) -> float:
    """Krippendorff's alpha for complete nominal data, from the coincidence matrix."""
    values = sorted({v for u in units for v in u})
    coincidence = {(c, k): 0.0 for c in values for k in values}
    for unit in units:
        m = len(unit)
        for i, c in enumerate(unit):
            for j, k in enumerate(unit):
                if i != j:
                    coincidence[(c, k)] += 1 / (m - 1)
    n_c = {c: sum(coincidence[(c, k)] for k in values) for c in values}
    n = sum(n_c.values())
    observed = sum(coincidence[(c, k)] for c in values for k in values if c != k)
    expected = sum(n_c[c] * n_c[k] for c in values for k in values if c != k) / (n - 1)
    return 1 - observed / expected


def fleiss_by_hand(units: list[list[str]], categories: list[str]) -> float:
    n_raters = len(units[0])
    counts = [[u.count(c) for c in categories] for u in units]
    p_i = [(sum(x * x for x in row) - n_raters) / (n_raters * (n_raters - 1)) for row in counts]
    p_j = [sum(row[j] for row in counts) / (len(units) * n_raters) for j in range(len(categories))]
    p_bar, p_e = sum(p_i) / len(units), sum(p * p for p in p_j)
    return (p_bar - p_e) / (1 - p_e)


def test_agreement_statistics_match_the_formulas() -> None:
    s, c, n = "SUPPORTED", "CONTRADICTED", "NOT_IN_KEY"
    units = [[s, s, s], [s, s, c], [c, c, c], [n, n, s], [n, n, n], [s, c, n], [s, s, s], [c, c, n]]
    result = agreement(units, not_unanimous=5)
    assert result.krippendorff_alpha == pytest.approx(nominal_alpha_by_hand(units))
    assert result.fleiss_kappa == pytest.approx(fleiss_by_hand(units, [s, c, n]))
    assert result.claims == 8 and result.judges == 3 and result.not_unanimous_share == pytest.approx(5 / 8)


def test_agreement_with_abstentions_and_degenerate_panels() -> None:
    s, c = "SUPPORTED", "CONTRADICTED"
    with_gap = agreement([[s, s], [c, None], [c, c], [s, c]], not_unanimous=2)
    assert with_gap.fleiss_claims == 3  # the claim with an abstention is left out of kappa only
    assert with_gap.krippendorff_alpha is not None
    same = agreement([[s, s], [s, s]], not_unanimous=0)
    assert same.krippendorff_alpha is None and same.fleiss_kappa is None  # undefined with one label
    empty = agreement([], not_unanimous=0)
    assert empty.claims == 0 and empty.krippendorff_alpha is None and empty.not_unanimous_share is None
