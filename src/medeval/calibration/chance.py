"""Agreement coefficients that hold up when one category dominates: Gwet's AC1 and PABAK.

Cohen's kappa falls when agreement is high but one category is rare or common (Feinstein and
Cicchetti's paradox, J Clin Epidemiol 1990;43:543): two tables with 85% agreement give kappa 0.70
and 0.32. A judge audited on a run where most answers are Accurate and Complete is exactly that
case, so the validity figures add two coefficients whose chance term does not collapse:

- Gwet's AC1 (Gwet, Br J Math Stat Psychol 2008;61:29; Handbook of Inter-Rater Reliability, 4th
  ed., 2014): chance agreement pe = sum_k pi_k (1 - pi_k) / (q - 1), pi_k the two raters' mean
  share of category k; its variance is Gwet's (2008, eq. 9 with no finite-population correction)
  and its interval uses Student's t with n - 1 degrees of freedom, as Gwet's irrCAC does.
- PABAK, the prevalence- and bias-adjusted kappa (Byrt, Bishop, Carlin, J Clin Epidemiol
  1993;46:423), 2 pa - 1 for two categories; for q categories its generalisation, Brennan and
  Prediger's (1981) (pa - 1/q)/(1 - 1/q). Its interval is the Wilson interval of pa carried through
  that increasing line, so it never leaves [-1/(q-1), 1].

q is the number of categories the raters could use (the study's four), not the number they did.
The tests check both against published worked examples.
"""

from __future__ import annotations

import math

import numpy as np
from statsmodels.stats.proportion import proportion_confint

from medeval.calibration.measures import Kappa


def _counts(table: np.ndarray) -> tuple[np.ndarray, int, int]:
    """The table as floats, the number of groups it counts and the number of categories q."""
    counts = np.asarray(table, dtype=float)
    return counts, round(float(counts.sum())), counts.shape[0]


def _no_groups() -> Kappa:
    return Kappa(estimate=None, low=None, high=None, n=0, note="no groups to compare")


def gwet_ac1(table: np.ndarray, confidence: float = 0.95) -> Kappa:
    """Gwet's AC1 of two raters from their q x q table of counts (rows rater A, columns rater B)."""
    counts, n, q = _counts(table)
    if n == 0:
        return _no_groups()
    p = counts / counts.sum()
    pa = float(np.trace(p))
    pi = (p.sum(axis=1) + p.sum(axis=0)) / 2
    pe = float((pi * (1 - pi)).sum() / (q - 1))
    ac1 = (pa - pe) / (1 - pe)
    if n < 2:
        return Kappa(estimate=ac1, low=None, high=None, n=n)
    # Each cell's contribution to the linearised AC1 (Gwet 2008): agreement minus its chance part.
    chance = (1 - (pi[:, None] + pi[None, :]) / 2) / (q - 1)
    term = np.eye(q) - 2 * (1 - ac1) * chance
    variance = (float((p * term**2).sum()) - (pa - 2 * (1 - ac1) * pe) ** 2) / (n * (1 - pe) ** 2)
    from scipy.stats import t as student_t

    spread = float(student_t.ppf(1 - (1 - confidence) / 2, n - 1)) * math.sqrt(max(0.0, variance))
    return Kappa(estimate=ac1, low=max(-1.0, ac1 - spread), high=min(1.0, ac1 + spread), n=n)


def pabak(table: np.ndarray, confidence: float = 0.95) -> Kappa:
    """PABAK (Brennan-Prediger for q > 2) of two raters' q x q table, with its Wilson-based interval."""
    counts, n, q = _counts(table)
    if n == 0:
        return _no_groups()
    agree = round(float(np.trace(counts)))

    def line(pa: float) -> float:
        return float((pa - 1 / q) / (1 - 1 / q))

    low, high = proportion_confint(agree, n, alpha=1 - confidence, method="wilson")
    return Kappa(estimate=line(agree / n), low=line(float(low)), high=line(float(high)), n=n)
