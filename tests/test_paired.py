"""Paired rate differences pooled over question groups: Newcombe's paired interval and the clustered
McNemar test, checked against hand computation and against the independent-samples form."""

from __future__ import annotations

import math
import warnings

from scipy.stats import norm
from statsmodels.stats.proportion import confint_proportions_2indep

from medeval.reporting.stats.intervals import Interval, fmt_p, fmt_points, mean_difference
from medeval.reporting.stats.paired import holm, newcombe_paired, paired_rate


def test_paired_interval_with_no_correlation_is_the_independent_newcombe_interval() -> None:
    # ad = bc makes phi 0, where method 10 reduces to the square-and-add of two Wilson intervals.
    low, high = newcombe_paired(10, 10, 5, 5)
    p_a, p_b = 20 / 30, 15 / 30
    expected = confint_proportions_2indep(round(p_b * 30), 30, round(p_a * 30), 30, method="newcomb")
    assert math.isclose(low, expected[0], abs_tol=1e-9) and math.isclose(high, expected[1], abs_tol=1e-9)


def test_always_right_against_always_wrong_is_significant_with_a_real_interval() -> None:
    sizes = {"s1": 12, "s2": 8, "s3": 1, "s4": 1, "s5": 1}
    # Each "s" is one question group of a scenario, answered in m epochs: the cluster.
    a = {(s, "g", str(i)): True for s, m in sizes.items() for i in range(m)}
    b = dict.fromkeys(a, False)
    result = paired_rate(a, b)
    assert (result.n_pairs, result.clusters, result.only_a, result.only_b) == (23, 5, 23, 0)
    assert result.difference == -1.0 and result.significant
    assert result.low is not None and result.high is not None
    assert -1.0 <= result.low < result.high < 0  # not the degenerate "-100% (-100%–-100%)"
    assert fmt_p(result.p_value) == "< 0.001"


def test_clustering_widens_the_test_when_question_groups_disagree() -> None:
    # Two question groups where B wins all 10 epochs, two where nothing changes: a mean of +0.5, but
    # only four independent clusters. Obuchowski's variance: k/(k-1) * sum((S_k - d m_k)^2) / n^2.
    a: dict[tuple[str, ...], bool] = {}
    b: dict[tuple[str, ...], bool] = {}
    for scenario, moved in (("s1", True), ("s2", True), ("s3", False), ("s4", False)):
        for i in range(10):
            a[(scenario, "g", str(i))] = False
            b[(scenario, "g", str(i))] = moved
    result = paired_rate(a, b)
    variance = 4 / 3 * (4 * 5.0**2) / 40**2
    assert result.difference == 0.5
    assert result.p_value is not None and math.isclose(result.p_value, 2 * norm.sf(0.5 / math.sqrt(variance)))
    assert not result.significant  # 20 discordant pairs alone (exact McNemar) would give p < 1e-5
    assert result.design_effect is not None and result.design_effect > 1


def test_no_difference_is_p_one_and_an_interval_around_zero() -> None:
    a = {("s1", "g1", "1"): True, ("s1", "g2", "1"): False, ("s2", "g1", "1"): True}
    result = paired_rate(a, dict(a))
    assert result.difference == 0.0 and result.p_value == 1.0
    assert result.low is not None and result.high is not None and result.low < 0 < result.high


def test_formats_never_print_a_zero_p_value_or_a_dash_before_a_minus() -> None:
    assert fmt_p(0.0) == "< 0.001" and fmt_p(0.0004) == "< 0.001" and fmt_p(0.0123) == "0.012"
    assert fmt_points(-0.5, -0.88, -0.12) == "-50.0 pp (-88.0 to -12.0)"
    interval = Interval(estimate=-0.5, low=-0.88, high=-0.12, n=10)
    assert interval.fmt() == "-50.0% (-88.0% to -12.0%)" and "–-" not in interval.fmt()
    degenerate = Interval(estimate=-1.0, low=-1.0, high=-1.0, n=35)
    assert degenerate.fmt() == "-100.0% (no variation, n=35)"


def test_near_identical_samples_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = mean_difference([0.1] * 5 + [0.1 + 1e-16], [0.1] * 6)
    assert result.difference is not None


def test_two_scripts_give_one_cluster_per_question_group_not_two() -> None:
    a = {
        (script, f"QG{g}", str(e)): g % 2 == 0
        for script in ("medicare", "dual")
        for g in range(10)
        for e in range(3)
    }
    b = {key: True for key in a}
    result = paired_rate(a, b)
    assert result.clusters == 20 and "20 question-group clusters" in result.method


def test_significance_needs_the_adjusted_p_and_an_interval_clear_of_zero() -> None:
    a = {(f"s{g}", "g", str(e)): (g + e) % 3 == 0 for g in range(12) for e in range(4)}
    b = {key: value or key[2] == "0" for key, value in a.items()}
    result = paired_rate(a, b)
    assert result.p_value is not None and result.p_value < 0.05 and result.significant
    holm([result, *(paired_rate(a, dict(a)) for _ in range(9))])
    # Adjusted with nine null comparisons, the same difference no longer passes.
    assert result.p_adjusted is not None and result.p_adjusted >= result.p_value
    assert result.significant == (result.p_adjusted < 0.05)
    spanning = result.model_copy(update={"low": -0.01, "p_adjusted": 0.001})
    assert not spanning.significant  # an interval that spans zero is never called significant
