"""Paired rate differences pooled over question groups, with clusters (docs/statistics.md).

Two targets (or two runs) answer the same items: (scenario, question group, epoch). Items of one
question group are not independent (one question, one answer key, repeated epochs and variants), so
the test and the interval treat the question group of a scenario as the cluster. Not the scenario:
the SHIP study has two scripts, and a robust variance from two clusters means nothing; groups give
about twenty. (Groups of one script share a conversation too; that weaker correlation is left in.)

- the test is the clustered McNemar test of Obuchowski (1998): the paired difference over its
  cluster-robust (ratio-estimator) variance, referred to the normal distribution. When every cluster
  moves by exactly its share (no between-cluster variation to estimate), it falls back to the exact
  McNemar test on the discordant pairs;
- the interval is Newcombe's hybrid score interval for paired proportions (1998, method 10) on the
  effective sample size n / deff, where deff is the design effect of the clustering (Rao and Scott
  1992), never below 1. Newcombe's interval stays inside [-1, 1] and is not degenerate at 0% or 100%.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from pydantic import BaseModel
from scipy.stats import norm
from statsmodels.stats.contingency_tables import mcnemar

from medeval.reporting.stats.intervals import CONFIDENCE, SIGNIFICANCE

Item = tuple[str, ...]  # (scenario_id, question group, epoch, ...): the first two are the cluster


class PairedRate(BaseModel):
    """B minus A on paired items: a rate difference with its interval and clustered test."""

    n_pairs: int
    clusters: int
    rate_a: float | None
    rate_b: float | None
    difference: float | None
    low: float | None
    high: float | None
    p_value: float | None
    design_effect: float | None
    both: int
    only_a: int
    only_b: int
    neither: int
    method: str = ""
    #: The p-value adjusted with the other comparisons of the same table (`holm`), when it was.
    p_adjusted: float | None = None

    @property
    def significant(self) -> bool:
        """Adjusted p below 0.05 *and* an interval that excludes zero: no view calls a difference
        significant while the interval it prints spans zero."""
        p_value = self.p_adjusted if self.p_adjusted is not None else self.p_value
        excludes_zero = self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)
        return p_value is not None and p_value < SIGNIFICANCE and excludes_zero


def holm(results: list[PairedRate]) -> None:
    """Holm's step-down adjustment (statsmodels) of the comparisons one table reports together."""
    tested = [r for r in results if r.p_value is not None]
    if not tested:
        return
    from statsmodels.stats.multitest import multipletests

    adjusted = multipletests([r.p_value for r in tested], alpha=SIGNIFICANCE, method="holm")[1]
    for result, p_value in zip(tested, adjusted, strict=True):
        result.p_adjusted = float(p_value)


def _wilson(p: float, n: float, z: float) -> tuple[float, float]:
    """Wilson score bounds; n may be fractional (an effective sample size)."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_paired(
    both: float, only_a: float, only_b: float, neither: float, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """Newcombe's method 10 interval for p_b - p_a on paired binary outcomes (counts may be scaled)."""
    n = both + only_a + only_b + neither
    z = float(norm.ppf(1 - (1 - confidence) / 2))
    p_a, p_b = (both + only_a) / n, (both + only_b) / n
    low_a, high_a = _wilson(p_a, n, z)
    low_b, high_b = _wilson(p_b, n, z)
    # phi correlation of the two outcomes; 0 when a margin is empty (the formula's convention).
    denominator = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    phi = (both * neither - only_a * only_b) / math.sqrt(denominator) if denominator > 0 else 0.0
    difference = p_b - p_a
    lower = math.sqrt(
        max(0.0, (p_b - low_b) ** 2 - 2 * phi * (p_b - low_b) * (high_a - p_a) + (high_a - p_a) ** 2)
    )
    upper = math.sqrt(
        max(0.0, (high_b - p_b) ** 2 - 2 * phi * (high_b - p_b) * (p_a - low_a) + (p_a - low_a) ** 2)
    )
    return max(-1.0, difference - lower), min(1.0, difference + upper)


#: Per cluster: (both, only_a, only_b, neither) counts of its paired items.
ClusterCounts = tuple[int, int, int, int]


def paired_rate(a: Mapping[Item, bool], b: Mapping[Item, bool], confidence: float = CONFIDENCE) -> PairedRate:
    """Pool the items both sides answered; cluster by the first two elements of each item key."""
    clusters: dict[str, list[int]] = {}
    for key in sorted(set(a) & set(b)):
        counts = clusters.setdefault("/".join(key[:2]), [0, 0, 0, 0])
        counts[0 if a[key] and b[key] else 1 if a[key] else 2 if b[key] else 3] += 1
    return paired_from_counts({k: (v[0], v[1], v[2], v[3]) for k, v in clusters.items()}, confidence)


def paired_from_counts(clusters: Mapping[str, ClusterCounts], confidence: float = CONFIDENCE) -> PairedRate:
    """`paired_rate` from each cluster's counts, which SQL can give without a row per item."""
    both = sum(c[0] for c in clusters.values())
    only_a = sum(c[1] for c in clusters.values())
    only_b = sum(c[2] for c in clusters.values())
    neither = sum(c[3] for c in clusters.values())
    n = both + only_a + only_b + neither
    base = PairedRate(
        n_pairs=n,
        clusters=len(clusters),
        rate_a=None,
        rate_b=None,
        difference=None,
        low=None,
        high=None,
        p_value=None,
        design_effect=None,
        both=both,
        only_a=only_a,
        only_b=only_b,
        neither=neither,
    )
    if n == 0:
        return base
    mean = (only_b - only_a) / n
    # Cluster-robust variance of the mean difference (ratio estimator over clusters); each item's
    # difference is +1 (only B), -1 (only A) or 0.
    k = len(clusters)
    order = sorted(clusters)
    clustered = (
        k / (k - 1) * sum((c[2] - c[1] - mean * sum(c)) ** 2 for c in (clusters[x] for x in order)) / n**2
        if k > 1
        else 0.0
    )
    squares = only_b * (1 - mean) ** 2 + only_a * (-1 - mean) ** 2 + (both + neither) * mean**2
    simple = squares / (n * (n - 1)) if n > 1 else 0.0
    deff = max(1.0, clustered / simple) if simple > 0 and k > 1 else 1.0
    low, high = newcombe_paired(both / deff, only_a / deff, only_b / deff, neither / deff, confidence)
    if only_a == only_b:
        p_value, method = 1.0, "no discordant difference"
    elif k > 1 and clustered > 0:
        p_value = float(2 * norm.sf(abs(mean) / math.sqrt(clustered)))
        method = f"clustered McNemar (Obuchowski), {k} question-group clusters"
    else:
        # One cluster, or every cluster moved by its full share: no between-cluster variance to use.
        p_value = float(mcnemar([[both, only_a], [only_b, neither]], exact=True).pvalue)
        method = "exact McNemar" + (" (one cluster)" if k == 1 else " (no between-cluster variation)")
    return base.model_copy(
        update={
            "rate_a": (both + only_a) / n,
            "rate_b": (both + only_b) / n,
            "difference": mean,
            "low": low,
            "high": high,
            "p_value": p_value,
            "design_effect": deff,
            "method": method,
        }
    )
