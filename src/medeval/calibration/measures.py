"""The two shapes every validity figure takes: a proportion with its Wilson interval, and an
agreement coefficient (kappa, AC1, PABAK) with its interval."""

from __future__ import annotations

from pydantic import BaseModel
from statsmodels.stats.proportion import proportion_confint


class Interval(BaseModel):
    """A proportion with its Wilson 95% interval (the same method as the report's other rates)."""

    estimate: float | None
    low: float | None
    high: float | None
    n: int


def wilson(successes: int, n: int) -> Interval:
    if n <= 0:
        return Interval(estimate=None, low=None, high=None, n=0)
    low, high = proportion_confint(successes, n, alpha=0.05, method="wilson")
    return Interval(estimate=successes / n, low=float(low), high=float(high), n=n)


class Kappa(BaseModel):
    estimate: float | None
    low: float | None
    high: float | None
    n: int
    note: str = ""

    def fmt(self) -> str:
        if self.estimate is None:
            return f"n/a ({self.note})" if self.note else "n/a"
        if self.low is None or self.high is None:
            return f"{self.estimate:.2f}"
        return f"{self.estimate:.2f} (95% CI {self.low:.2f} to {self.high:.2f})"
