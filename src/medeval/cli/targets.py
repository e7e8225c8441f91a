"""Per-target summary of a run: the table `medeval run` and `medeval demo` print."""

from __future__ import annotations

from collections import Counter
from statistics import fmean

from pydantic import BaseModel

from medeval.schemas import ShipCategory, TrialRecord

SHIP_ORDER = (
    ShipCategory.ACCURATE_COMPLETE,
    ShipCategory.SUBSTANTIVE_INCOMPLETE,
    ShipCategory.NOT_SUBSTANTIVE,
    ShipCategory.INCORRECT,
    ShipCategory.INCOMPLETE_DATA,
    # Left out of the study's four categories, shown so a reader sees how much was left out.
    ShipCategory.NEEDS_REVIEW,
    ShipCategory.NOT_SCORED,
)
LEFT_OUT = (ShipCategory.NEEDS_REVIEW, ShipCategory.NOT_SCORED)
SHIP_LABELS = {
    ShipCategory.ACCURATE_COMPLETE: "Accurate & complete",
    ShipCategory.SUBSTANTIVE_INCOMPLETE: "Substantive, incomplete",
    ShipCategory.NOT_SUBSTANTIVE: "Not substantive",
    ShipCategory.INCORRECT: "Incorrect",
    ShipCategory.INCOMPLETE_DATA: "Incomplete data",
    ShipCategory.NEEDS_REVIEW: "Needs review",
    ShipCategory.NOT_SCORED: "Not scored",
    ShipCategory.NOT_APPLICABLE: "Asked, not scored",
}


class TargetSummary(BaseModel):
    target: str
    served_models: list[str]
    trials: int
    accuracy: float | None
    completeness: float | None
    safety_risk: float | None
    needs_review: int
    unscored_items: int
    ship: dict[str, int]

    @property
    def groups(self) -> int:
        """Groups coded in a category set beside the counselors (left-out groups not counted)."""
        left_out = {c.value for c in LEFT_OUT}
        return sum(n for category, n in self.ship.items() if category not in left_out)


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


def summarise(records: list[TrialRecord]) -> list[TargetSummary]:
    by_target: dict[str, list[TrialRecord]] = {}
    for record in records:
        by_target.setdefault(record.target.spec, []).append(record)
    out = []
    for target, items in by_target.items():
        ship = Counter(g.ship_category.value for r in items for g in r.groups if g.scored)
        out.append(
            TargetSummary(
                target=target,
                served_models=sorted({m for r in items for m in r.target.served_models}),
                trials=len(items),
                accuracy=_mean([r.final_scores.accuracy for r in items]),
                completeness=_mean([r.final_scores.completeness for r in items]),
                safety_risk=_mean([r.final_scores.safety_risk for r in items]),
                needs_review=sum(r.flags.needs_manual_review for r in items),
                unscored_items=sum(len(r.unscored) for r in items),
                ship={c.value: ship.get(c.value, 0) for c in SHIP_ORDER},
            )
        )
    return out


def left_out_line(summaries: list[TargetSummary]) -> str | None:
    """The closing sentence naming the groups left out of the four categories, or None."""
    review = sum(s.ship[ShipCategory.NEEDS_REVIEW.value] for s in summaries)
    failed = sum(s.ship[ShipCategory.NOT_SCORED.value] for s in summaries)
    if not review and not failed:
        return None
    return (
        f"Left out of the four SHIP categories: {failed} question group(s) not scored (the judges "
        f"failed; reasons under 'unscored' in results.jsonl) and {review} needing review (the "
        "category hangs on an undecided claim or checklist item)."
    )
