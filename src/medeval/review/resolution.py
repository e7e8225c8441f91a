"""The one resolution of a question group's category, which every view reads.

A group's final category is the judges' adjudicated category, unless people decided it by the
precedence in review/precedence.py (consensus of coders, else a single coder; a split leaves the
judges' category standing). Every reader (report md/html/csv, export, query, the Python API,
compare, transcripts and drawer) takes the final category, who decided it and whether the decision
was blind from here, so no two views can disagree about a group.

`review_status` says where a group stands with people:
- `decided`: people's codes decide it (`decided_by` is `coder` or `consensus`);
- `coders_disagree`: people coded it and split with no majority; the judges' category stands;
- `awaiting_review`: the judges left it in needs_review and no person has decided it yet;
- `judges`: the judges decided it and no person coded it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from medeval.review.precedence import HumanOutcome, outcomes
from medeval.review.store import read_imports
from medeval.schemas import ShipCategory, TrialRecord

DecidedBy = Literal["judges", "coder", "consensus"]
ReviewStatus = Literal["judges", "decided", "coders_disagree", "awaiting_review"]
#: Who decided, as every view words it.
DECIDED_BY_LABELS: dict[str, str] = {
    "judges": "the judges",
    "coder": "a person",
    "consensus": "people (consensus)",
}


class Final(BaseModel):
    """How one group stands once people's codes are applied."""

    category: str
    judge_category: str
    decided_by: DecidedBy
    #: Whether people's decision was made blind (every code behind it from a blind export); None
    #: when the judges decided.
    blind: bool | None
    review_status: ReviewStatus

    @property
    def by_people(self) -> bool:
        return self.decided_by != "judges"

    def label(self) -> str:
        """`decided by the judges` / `decided by a person (blind)`."""
        blind = "" if self.blind is None else (" (blind)" if self.blind else " (not blind)")
        return f"decided by {DECIDED_BY_LABELS[self.decided_by]}{blind}"


class Resolution:
    """People's outcomes for one run, keyed by (trial_id, question_group)."""

    def __init__(self, found: list[HumanOutcome]) -> None:
        self.outcomes = found
        self._by_group = {(o.trial_id, o.question_group): o for o in found}

    @classmethod
    def of_run(cls, run_dir: Path) -> Resolution:
        return cls(outcomes(read_imports(run_dir)))

    def final(self, trial_id: str, question_group: str, judge_category: str) -> Final:
        outcome = self._by_group.get((trial_id, question_group))
        if outcome is not None and outcome.category is not None:
            return Final(
                category=outcome.category,
                judge_category=judge_category,
                decided_by="consensus" if outcome.decided_by == "consensus" else "coder",
                blind=outcome.blind,
                review_status="decided",
            )
        status: ReviewStatus = (
            "coders_disagree"
            if outcome is not None
            else "awaiting_review"
            if judge_category == "needs_review"
            else "judges"
        )
        return Final(
            category=judge_category,
            judge_category=judge_category,
            decided_by="judges",
            blind=None,
            review_status=status,
        )

    def decided(self) -> list[tuple[str, str, str, str, bool]]:
        """(trial_id, question_group, category, decided_by, blind) of every group people decided."""
        return [
            (o.trial_id, o.question_group, o.category, o.decided_by, o.blind)
            for o in self.outcomes
            if o.category is not None
        ]

    def coded(self) -> list[tuple[str, str]]:
        """(trial_id, question_group) of every group people coded, decided or split."""
        return list(self._by_group)

    def apply(self, record: TrialRecord) -> tuple[TrialRecord, dict[str, Final]]:
        """The record with each group's final category, and each group's Final by question group:
        what the transcripts and the drawer show."""
        finals = {
            g.question_group: self.final(record.trial_id, g.question_group, g.ship_category.value)
            for g in record.groups
        }
        groups = [
            g.model_copy(update={"ship_category": ShipCategory(finals[g.question_group].category)})
            for g in record.groups
        ]
        return record.model_copy(update={"groups": groups}), finals
