"""Category rates corrected for judge error from a random audit sample people coded.

The estimator is prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan, Zrnic,
Science 2023; 382:669). The judges' category of every decided group is the prediction f; people's
category on the audit sample is the truth Y. For the rate of one category (Y and f as 0/1):

    rate of the decided groups = mean(f over every decided group) + mean(Y - f over the audit)

Here the audit sample is drawn from the very groups the judges decided (not from a separate
unlabelled pool as in the paper), which makes this the difference estimator of survey sampling
(Sarndal, Swensson, Wretman, Model Assisted Survey Sampling, 1992, section 6.3). Its variance for
the model's rate (not only these groups') has two parts: the groups themselves, theta(1 - theta)/N
(with Agresti-Coull's adjustment at the edges), and the audit, the finite-population variance
(1 - n/D) s^2(Y - f)/n of the mean rectifier. Groups outside the decided ones whose category is
known exactly (people decided a group the judges could not; incomplete data) enter as they are.

PPI++'s power tuning (Angelopoulos, Duchi, Zrnic, 2024, arXiv:2311.01453), Y - lam*f with lam
fitted on the audit, was tried and left out: at 60 codes its intervals covered a 15% rate in 93.1%
of 3,000 simulated studies against 94.7-95.8% for lam = 1 (docs/statistics.md).

Written on numpy here: ppi-python pulls numba, scikit-learn, pandas and gdown, and assumes a
separate unlabelled set. docs/statistics.md ("Rates corrected for judge error") shows an example.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

Z95 = 1.959963984540054
#: The half-width a corrected rate should reach to be useful (docs/statistics.md): +/-5 points.
USEFUL_HALF_WIDTH = 0.05
#: Fewer audit codes than this give no interval: a variance from one or two pairs means nothing.
MIN_CODES = 2


class CorrectedRate(BaseModel):
    """One category's rate: the judges' (uncorrected) and the corrected one with its interval."""

    n: int  # groups in the rate
    decided: int  # of them, groups the judges decided (the population the audit samples)
    codes: int  # audit codes the correction rests on
    judge: float | None
    estimate: float | None
    low: float | None = None
    high: float | None = None
    variance: float | None = None
    #: Audit codes needed in all for a half-width of USEFUL_HALF_WIDTH; None when coding every
    #: decided group would not get there (the groups themselves are too few).
    codes_for_useful: int | None = None

    @property
    def half_width(self) -> float | None:
        return None if self.variance is None else Z95 * math.sqrt(self.variance)

    @property
    def useful(self) -> bool:
        return self.half_width is not None and self.half_width <= USEFUL_HALF_WIDTH + 1e-12


class CorrectedDifference(BaseModel):
    """B minus A of two corrected rates (or a corrected rate minus published counselors')."""

    difference: float | None
    low: float | None = None
    high: float | None = None

    @property
    def significant(self) -> bool:
        """The interval excludes zero: the only sense in which a view may call it significant."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)


def corrected_rate(
    decided: Sequence[bool],
    audit: Sequence[tuple[bool, bool]],
    known: Sequence[bool] = (),
    half_width: float = USEFUL_HALF_WIDTH,
) -> CorrectedRate:
    """`decided`: the judges' "is this category" for every group they decided; `audit`: (judges,
    people) for a random sample of those groups; `known`: the true "is this category" of groups
    outside the decided ones (their category is not the judges' guess)."""
    f = np.asarray(decided, dtype=float)
    k = np.asarray(known, dtype=float)
    big_d, n_all = f.size, f.size + k.size
    if n_all == 0:
        return CorrectedRate(n=0, decided=0, codes=0, judge=None, estimate=None)
    judge = float((f.sum() + k.sum()) / n_all)
    pairs = np.asarray(audit, dtype=float).reshape(-1, 2)
    n = pairs.shape[0]
    base = CorrectedRate(n=n_all, decided=big_d, codes=n, judge=judge, estimate=None)
    if n < MIN_CODES or big_d == 0:
        return base
    rectifier = pairs[:, 1] - pairs[:, 0]
    mean_d = float(f.mean()) + float(rectifier.mean())
    theta = (float(k.sum()) + big_d * mean_d) / n_all
    shown = min(1.0, max(0.0, theta))
    # Agresti-Coull's two successes and two failures keep the groups' variance from vanishing at a
    # rate of 0 or 1 (no invented certainty); away from the edges they change almost nothing.
    adjusted = (shown * n_all + 2) / (n_all + 4)
    groups_part = adjusted * (1 - adjusted) / n_all
    share = big_d / n_all
    s2 = float(rectifier.var(ddof=1))
    audit_part = share**2 * max(0.0, 1 - n / big_d) * s2 / n
    variance = groups_part + audit_part
    spread = Z95 * math.sqrt(variance)
    return base.model_copy(
        update={
            "estimate": shown,
            "low": max(0.0, shown - spread),
            "high": min(1.0, shown + spread),
            "variance": variance,
            "codes_for_useful": codes_for(half_width, groups_part, share**2 * s2, big_d, n),
        }
    )


def codes_for(half_width: float, groups_part: float, scaled_s2: float, big_d: int, n: int) -> int | None:
    """Audit codes giving Z95 * sqrt(groups_part + scaled_s2 * (1/n - 1/D)) <= half_width, from the
    spread of the rectifier seen so far; None when even coding every decided group falls short."""
    room = (half_width / Z95) ** 2 - groups_part
    if room <= 0:
        return None
    if scaled_s2 == 0:
        return n
    needed = 1.0 / (room / scaled_s2 + 1.0 / big_d)
    return min(big_d, max(n, math.ceil(needed - 1e-9)))


def _wald(difference: float, variance: float) -> CorrectedDifference:
    spread = Z95 * math.sqrt(variance)
    # A difference of rates lies in [-1, 1] whatever the normal approximation says.
    return CorrectedDifference(
        difference=difference, low=max(-1.0, difference - spread), high=min(1.0, difference + spread)
    )


def corrected_difference(a: CorrectedRate, b: CorrectedRate) -> CorrectedDifference:
    """B minus A: the two targets' groups and audit samples are drawn apart, so variances add."""
    if a.estimate is None or b.estimate is None or a.variance is None or b.variance is None:
        return CorrectedDifference(difference=None)
    return _wald(b.estimate - a.estimate, a.variance + b.variance)


def difference_from_published(rate: CorrectedRate, successes: int, n: int) -> CorrectedDifference:
    """A corrected rate minus a published rate of people-coded answers (the SHIP counselors)."""
    if rate.estimate is None or rate.variance is None or n <= 0:
        return CorrectedDifference(difference=None)
    p = successes / n
    return _wald(rate.estimate - p, rate.variance + p * (1 - p) / n)
