"""Before a study spends: the differences it can detect and the human codes it needs.

Formulas (docs/statistics.md, "Planning a study"), checked against seeded simulation in
tests/test_plan.py:

- **Design effect** of a target's rate. Its answers are nested: R repeats (epochs x variants) of
  each of G question groups of each of S scripts. With rho_r the correlation of two repeats of one
  group and rho_g that of two different groups of one script, the variance of the mean is
  p(1 - p)/n times deff = 1 + (R - 1) rho_r + R (G - 1) rho_g (the usual nested-cluster design
  effect, e.g. Donner and Klar, Design and Analysis of Cluster Randomization Trials, 2000, ch. 5);
  n / deff is the effective number of answers.
- **Smallest detectable difference** at power 1 - beta and two-sided alpha: the delta with
  |delta| = (z_{1-alpha/2} + z_{1-beta}) * SE(delta), SE from both rates at their own values
  (solved by fixed point), against the counselors' published rate (a binomial sample) or between
  two targets of the same design (independent; pairing on the same groups would only help).
- **Human codes for Cohen's kappa +/- h**: Cohen's (1960) large-sample SE,
  sqrt(p_o (1 - p_o) / n) / (1 - p_e), with p_o = kappa (1 - p_e) + p_e at an assumed kappa and the
  categories' expected shares.
- **Human codes for a corrected rate +/- h**: the prediction-powered interval of
  reporting/stats/ppi.py at the rate 50% (widest) and an assumed judge error rate, whose
  rectifier variance is at most that rate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from pydantic import BaseModel

from medeval.reporting.stats.ppi import Z95, codes_for

Z80 = 0.8416212335729143  # standard normal quantile at 0.80
#: Assumed correlations when the study file says nothing (docs/statistics.md says why).
REPEAT_ICC = 0.5
GROUP_ICC = 0.05


class Design(BaseModel):
    """One target's answers in a study: scripts x groups per script x repeats per group."""

    scripts: int
    groups_per_script: float
    repeats: int
    repeat_icc: float = REPEAT_ICC
    group_icc: float = GROUP_ICC

    @property
    def answers(self) -> int:
        return round(self.scripts * self.groups_per_script * self.repeats)

    @property
    def deff(self) -> float:
        r, g = self.repeats, self.groups_per_script
        return 1 + (r - 1) * self.repeat_icc + r * (g - 1) * self.group_icc

    @property
    def effective(self) -> float:
        return self.answers / self.deff if self.answers else 0.0


def detectable_vs_published(design: Design, rate: float, published_n: int, z_power: float = Z80) -> float:
    """Smallest |delta| a target of this design shows against a published rate of `published_n`
    answers, the larger of the two directions (the one nearer 50% is harder); inf when no
    difference that a rate can make would be detected."""
    return max(
        _solve(lambda d: _var(rate + d, design.effective) + _var(rate, published_n), rate, sign, z_power)
        for sign in (1, -1)
    )


def detectable_between(design: Design, rate: float, z_power: float = Z80) -> float:
    """Smallest |delta| between two targets of the same design, around `rate`."""
    return max(
        _solve(lambda d: _var(rate + d, design.effective) + _var(rate, design.effective), rate, sign, z_power)
        for sign in (1, -1)
    )


def _var(p: float, n: float) -> float:
    p = min(1.0, max(0.0, p))
    return p * (1 - p) / n if n > 0 else math.inf


def _solve(variance: Callable[[float], float], rate: float, sign: int, z_power: float) -> float:
    """Fixed point of |d| = (z_alpha + z_power) * sqrt(variance(d)), d of the given sign, within
    the rates that exist; inf when even the largest difference falls short."""
    room = (1 - rate) if sign > 0 else rate
    d = 0.0
    for _ in range(200):
        step = (Z95 + z_power) * math.sqrt(variance(sign * d))
        if step >= room:
            return math.inf
        if abs(step - d) < 1e-10:
            break
        d = step
    return d


def kappa_codes(shares: Sequence[float], kappa: float, half_width: float = 0.10) -> int:
    """Groups coded by both people and judges for Cohen's kappa's 95% interval to be +/- half_width."""
    p_e = sum(s * s for s in shares)
    p_o = kappa * (1 - p_e) + p_e
    return math.ceil(Z95**2 * p_o * (1 - p_o) / (half_width * (1 - p_e)) ** 2)


def corrected_codes(decided: int, judge_error: float, half_width: float = 0.05) -> int | None:
    """Audit codes for a corrected rate's 95% interval of +/- half_width at the widest rate (50%),
    when the judges err on `judge_error` of the groups; None when `decided` groups are too few."""
    if decided <= 0:
        return None
    return codes_for(half_width, 0.25 / decided, judge_error, decided, 0)
