"""The statistics behind every number with an interval. docs/statistics.md explains each one.

Library implementations are used wherever they exist (statsmodels for Wilson, McNemar and Newcombe;
scipy for Welch). The cluster bootstrap has no library form that resamples whole clusters, so it is
written here, seeded, on numpy. Judge agreement (Krippendorff's alpha, Fleiss' kappa) is computed
here from counts of label patterns, so a report need not hold every claim; the tests check it
against the `krippendorff` package and statsmodels.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from pydantic import BaseModel
from scipy import stats as scipy_stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import (
    confint_proportions_2indep,
    proportion_confint,
    test_proportions_2indep,
)

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
SIGNIFICANCE = 0.05


class Interval(BaseModel):
    estimate: float | None
    low: float | None
    high: float | None
    n: int

    def fmt(self, percent: bool = True) -> str:
        if self.estimate is None:
            return "n/a"
        if self.low is None or self.high is None:
            return _pct(self.estimate) if percent else f"{self.estimate:.2f}"
        if self.high - self.low < 1e-12:
            # Every resample gave the same value: there is no spread to report, not a certain one.
            shown = _pct(self.estimate) if percent else f"{self.estimate:.2f}"
            return f"{shown} (no variation, n={self.n})"
        low, high = (_pct(self.low), _pct(self.high)) if percent else (f"{self.low:.2f}", f"{self.high:.2f}")
        # "to" rather than a dash keeps negative bounds readable ("-88.0% to -12.0%", not "–-88.0%").
        joiner = " to " if self.low < 0 or self.high < 0 else "–"
        shown = _pct(self.estimate) if percent else f"{self.estimate:.2f}"
        return f"{shown} ({low}{joiner}{high})"


def _pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def fmt_p(p_value: float | None) -> str:
    """A p-value as a reader expects it: "< 0.001" rather than a rounded "0.000"."""
    if p_value is None:
        return "n/a"
    return "< 0.001" if p_value < 0.001 else f"{p_value:.3f}"


def fmt_points(difference: float | None, low: float | None = None, high: float | None = None) -> str:
    """A difference of rates in percentage points with its interval: "-12.3 pp (-20.1 to -4.0)"."""
    if difference is None:
        return "n/a"
    text = f"{100 * difference:+.1f} pp"
    if low is not None and high is not None:
        text += f" ({100 * low:+.1f} to {100 * high:+.1f})"
    return text


def wilson(successes: int, n: int, confidence: float = CONFIDENCE) -> Interval:
    """Wilson score interval for a proportion (statsmodels)."""
    if n <= 0:
        return Interval(estimate=None, low=None, high=None, n=0)
    low, high = proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
    return Interval(estimate=successes / n, low=float(low), high=float(high), n=n)


class ClusterSums:
    """Sums and counts of values per cluster, added one value at a time: what a cluster bootstrap
    needs, in memory that grows with the clusters, not the values (a report streams its trials)."""

    def __init__(self) -> None:
        self.sums: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.n = 0

    def add(self, value: float | None, cluster: str) -> None:
        if value is None or math.isnan(value):
            return
        self.sums[cluster] = self.sums.get(cluster, 0.0) + value
        self.counts[cluster] = self.counts.get(cluster, 0) + 1
        self.n += 1


def cluster_bootstrap_mean(
    values: Sequence[float | None],
    clusters: Sequence[str],
    *,
    seed: int,
    resamples: int = BOOTSTRAP_RESAMPLES,
    confidence: float = CONFIDENCE,
) -> Interval:
    """Mean with a percentile interval from resampling whole clusters (scenarios) with replacement.

    Trials of one scenario are correlated, so resampling trials alone would understate the
    uncertainty. The generator is seeded, so the same data and seed give the same interval.
    """
    sums = ClusterSums()
    for value, cluster in zip(values, clusters, strict=True):
        sums.add(value, cluster)
    return cluster_bootstrap(sums, seed=seed, resamples=resamples, confidence=confidence)


#: Resamples drawn at a time: the draws of many clusters (a scenario's trials are each a cluster
#: within it) would otherwise take resamples x clusters integers at once. An even number, so each
#: chunk uses whole 64-bit words of the generator and the draws equal one draw of every resample.
_CHUNK = 100


def cluster_bootstrap(
    sums: ClusterSums, *, seed: int, resamples: int = BOOTSTRAP_RESAMPLES, confidence: float = CONFIDENCE
) -> Interval:
    """`cluster_bootstrap_mean` from per-cluster sums and counts."""
    if not sums.n:
        return Interval(estimate=None, low=None, high=None, n=0)
    labels = sorted(sums.sums)
    totals = np.array([sums.sums[label] for label in labels])
    counts = np.array([float(sums.counts[label]) for label in labels])
    estimate = float(totals.sum() / counts.sum())
    if len(labels) < 2:
        # One cluster gives no between-cluster variation to resample: report the mean alone.
        return Interval(estimate=estimate, low=None, high=None, n=sums.n)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    single = bool(np.all(counts == 1))  # one value per cluster: every resample has the same size
    for start in range(0, resamples, _CHUNK):
        rows = min(_CHUNK, resamples - start)
        draws = rng.integers(0, len(labels), size=(rows, len(labels)), dtype=np.int32)
        if single:
            means[start : start + rows] = totals[draws].mean(axis=1)
        else:
            means[start : start + rows] = totals[draws].sum(axis=1) / counts[draws].sum(axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Interval(estimate=estimate, low=float(low), high=float(high), n=sums.n)


class PairedComparison(BaseModel):
    """Two targets on the same items (scenario, question group, epoch): A&C rate difference."""

    n_pairs: int
    rate_a: float | None
    rate_b: float | None
    difference: Interval
    both: int
    only_a: int
    only_b: int
    neither: int
    mcnemar_p: float | None


def paired_comparison(
    a: Mapping[tuple[str, ...], bool],
    b: Mapping[tuple[str, ...], bool],
    *,
    seed: int,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> PairedComparison:
    """Keys are items whose first element is the scenario id (the bootstrap cluster)."""
    keys = sorted(set(a) & set(b))
    both = sum(a[k] and b[k] for k in keys)
    only_a = sum(a[k] and not b[k] for k in keys)
    only_b = sum(b[k] and not a[k] for k in keys)
    neither = len(keys) - both - only_a - only_b
    if not keys:
        empty = Interval(estimate=None, low=None, high=None, n=0)
        return PairedComparison(
            n_pairs=0,
            rate_a=None,
            rate_b=None,
            difference=empty,
            both=0,
            only_a=0,
            only_b=0,
            neither=0,
            mcnemar_p=None,
        )
    differences = [float(b[k]) - float(a[k]) for k in keys]
    interval = cluster_bootstrap_mean(differences, [k[0] for k in keys], seed=seed, resamples=resamples)
    # Exact binomial McNemar on the discordant pairs; with none, there is no evidence of a difference.
    p_value = float(mcnemar([[both, only_a], [only_b, neither]], exact=True).pvalue)
    return PairedComparison(
        n_pairs=len(keys),
        rate_a=(both + only_a) / len(keys),
        rate_b=(both + only_b) / len(keys),
        difference=interval,
        both=both,
        only_a=only_a,
        only_b=only_b,
        neither=neither,
        mcnemar_p=p_value,
    )


class Difference(BaseModel):
    """B minus A between two independent samples, with its interval and p-value."""

    a: float | None
    b: float | None
    n_a: int
    n_b: int
    difference: float | None
    low: float | None
    high: float | None
    p_value: float | None

    @property
    def significant(self) -> bool:
        """p below 0.05 and, where an interval exists, one that excludes zero."""
        spans_zero = self.low is not None and self.high is not None and self.low <= 0 <= self.high
        return self.p_value is not None and self.p_value < SIGNIFICANCE and not spans_zero


def proportion_difference(successes_a: int, n_a: int, successes_b: int, n_b: int) -> Difference:
    """Newcombe (hybrid score) interval and a score test for two independent proportions."""
    if n_a == 0 or n_b == 0:
        return Difference(
            a=successes_a / n_a if n_a else None,
            b=successes_b / n_b if n_b else None,
            n_a=n_a,
            n_b=n_b,
            difference=None,
            low=None,
            high=None,
            p_value=None,
        )
    rate_a, rate_b = successes_a / n_a, successes_b / n_b
    # statsmodels also computes a ratio and an odds ratio, which divide by zero at rates of 0 or 1.
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = confint_proportions_2indep(successes_b, n_b, successes_a, n_a, method="newcomb")
        if successes_a + successes_b in (0, n_a + n_b):
            p_value = 1.0  # both samples all-or-nothing alike: the score test is undefined, and no change
        else:
            test = test_proportions_2indep(successes_b, n_b, successes_a, n_a, method="score")
            p_value = float(test.pvalue)
    return Difference(
        a=rate_a,
        b=rate_b,
        n_a=n_a,
        n_b=n_b,
        difference=rate_b - rate_a,
        low=float(low),
        high=float(high),
        p_value=p_value,
    )


def mean_difference(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> Difference:
    """Welch's t interval and test for the difference in means (scipy)."""
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    mean_a = float(xa.mean()) if xa.size else None
    mean_b = float(xb.mean()) if xb.size else None
    if mean_a is None or mean_b is None:
        return Difference(
            a=mean_a, b=mean_b, n_a=xa.size, n_b=xb.size, difference=None, low=None, high=None, p_value=None
        )
    diff = mean_b - mean_a
    spread = (xa.var(ddof=1) if xa.size > 1 else 0.0) + (xb.var(ddof=1) if xb.size > 1 else 0.0)
    low = high = p_value = None
    # With no within-sample variation a t test is undefined, and calling a difference between two
    # constant samples "certain" would overstate what a few sampled runs show: no interval then.
    if xa.size >= 2 and xb.size >= 2 and spread != 0.0:
        with warnings.catch_warnings():
            # Nearly identical samples make scipy warn about precision loss; the result is still
            # right and the warning would only reach the terminal as noise.
            warnings.simplefilter("ignore", RuntimeWarning)
            result = scipy_stats.ttest_ind(xb, xa, equal_var=False)
            ci = result.confidence_interval(confidence_level=confidence)
        low, high, p_value = float(ci.low), float(ci.high), float(result.pvalue)
    return Difference(
        a=mean_a,
        b=mean_b,
        n_a=xa.size,
        n_b=xb.size,
        difference=diff,
        low=low,
        high=high,
        p_value=p_value,
    )


class Agreement(BaseModel):
    claims: int
    judges: int
    krippendorff_alpha: float | None
    fleiss_kappa: float | None
    fleiss_claims: int
    not_unanimous: int
    not_applicable: str | None = None
    excluded_claims: int = 0

    @property
    def not_unanimous_share(self) -> float | None:
        return self.not_unanimous / self.claims if self.claims else None


LABELS = ("SUPPORTED", "CONTRADICTED", "NOT_IN_KEY")


def not_applicable(reason: str, excluded_claims: int) -> Agreement:
    """Agreement that measures nothing (e.g. copies of one deterministic program), with the reason."""
    return Agreement(
        claims=0,
        judges=0,
        krippendorff_alpha=None,
        fleiss_kappa=None,
        fleiss_claims=0,
        not_unanimous=0,
        not_applicable=reason,
        excluded_claims=excluded_claims,
    )


def agreement(votes: Sequence[Sequence[str | None]], not_unanimous: int) -> Agreement:
    """Agreement between verifiers; `votes[c][j]` is judge j's label on claim c (None = abstained)."""
    return agreement_from_patterns(Counter(tuple(v) for v in votes).items(), not_unanimous)


def agreement_from_patterns(
    patterns: Iterable[tuple[Sequence[str | None], int]], not_unanimous: int
) -> Agreement:
    """Agreement from how many claims got each pattern of labels (judge j's label at position j,
    None = abstained): a study has millions of claims but a handful of patterns, so SQL counts them.

    Krippendorff's alpha (nominal) uses every claim, abstentions as missing values, through the
    coincidence matrix (Krippendorff 2011), each pattern weighted by its claims. Fleiss' kappa
    needs a full panel, so it uses only the claims every judge labelled. Both give what the
    `krippendorff` package and statsmodels give on the claims one by one (tests/test_stats.py).
    """
    rows = [(tuple(pattern), int(count)) for pattern, count in patterns if count]
    judges = max((len(p) for p, _ in rows), default=0)
    code = {label: i for i, label in enumerate(LABELS)}
    coincidences = np.zeros((len(LABELS), len(LABELS)))
    used: set[str] = set()
    pairable = False
    complete: list[tuple[np.ndarray, int]] = []
    for pattern, count in rows:
        values = np.zeros(len(LABELS))
        for label in pattern:
            if label is not None:
                values[code[label]] += 1
                used.add(label)
        labelled = values.sum()
        if labelled >= 2:
            pairable = True
            coincidences += count * (np.outer(values, values) - np.diag(values)) / (labelled - 1)
        if len(pattern) == judges and None not in pattern:
            complete.append((values, count))
    alpha: float | None = None
    # With a single label in use, expected disagreement is zero and both statistics are undefined.
    if pairable and len(used) > 1:
        margins = coincidences.sum(axis=1)
        total = margins.sum()
        expected = (total**2 - (margins**2).sum()) / (total - 1)
        observed = coincidences.sum() - np.trace(coincidences)
        alpha = float(1 - observed / expected) if expected > 0 else None
    kappa: float | None = None
    fleiss_claims = sum(count for _, count in complete)
    if complete and judges >= 2:
        table = np.array([values for values, _ in complete])
        weights = np.array([float(count) for _, count in complete])
        with np.errstate(divide="ignore", invalid="ignore"):
            p_cat = (weights[:, None] * table).sum(axis=0) / (weights.sum() * judges)
            p_rat = ((table * table).sum(axis=1) - judges) / (judges * (judges - 1.0))
            p_mean = float((weights * p_rat).sum() / weights.sum())
            p_expected = float((p_cat * p_cat).sum())
            value = (p_mean - p_expected) / (1 - p_expected) if p_expected != 1 else math.nan
        kappa = None if math.isnan(value) else value
    return Agreement(
        claims=sum(count for _, count in rows),
        judges=judges,
        krippendorff_alpha=alpha,
        fleiss_kappa=kappa,
        fleiss_claims=fleiss_claims,
        not_unanimous=not_unanimous,
    )
