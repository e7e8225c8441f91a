"""The answer key inside a scenario: canonical facts (with their quantities and patterns), disallowed
claims and, for the study's scripts, each question group's checklist, category rule and deviations."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from medeval.schemas._base import Identifier, Severity, Strict
from medeval.schemas.seasons import DatedValue, Pending

QuantityUnit = Literal["usd", "months", "days", "percent", "employees", "date_range"]


class Quantity(Strict):
    """A figure the fact states for one quantity (the Part B premium, the Medigap Open Enrollment
    Period's length, Open Enrollment's dates), for the rules coder: a different value that an
    answer states for the same quantity is a contradiction of the fact, whatever the value."""

    about: list[str] = Field(
        min_length=1, description="Regular expressions naming the quantity ('part b premium')"
    )
    unit: QuantityUnit
    values: list[str] = Field(
        default_factory=list,
        description="Accepted values for the year the key asks about: numbers ('202.90', '7'), or for "
        "date_range 'MM-DD..MM-DD'",
    )
    multiples: bool = Field(
        default=False, description="Whole multiples are right too (10% for each full 12 months: 20%)"
    )
    by_year: list[DatedValue] = Field(
        default_factory=list,
        description="Values per plan year (or window) with their sources; a figure an answer labels "
        "with a year is read against that year's; an entry may be pending",
    )

    @model_validator(mode="after")
    def _some_value(self) -> Quantity:
        if not self.values and not self.by_year:
            raise ValueError("a quantity needs values, or by_year entries")
        return self

    def values_for(self, year: int, asked: int) -> list[str] | Pending | None:
        """The accepted values in `year` (a Pending when not published yet), or None when the key
        does not know that year's; `values` hold for the year the key asks about (`asked`)."""
        for dated in self.by_year:
            if dated.holds_in(year):
                return dated.pending or dated.values
        return list(self.values) if year == asked and self.values else None


class FactPatterns(Strict):
    """Regular expressions (case-insensitive) for the offline rules coder."""

    support: list[str] = Field(default_factory=list)
    contradict: list[str] = Field(default_factory=list)
    stale: list[str] = Field(
        default_factory=list,
        description="Outdated figures: a contradiction when asserted as current, not when named as "
        "the past ('up from $185', '$185 in 2025', 'no longer $185')",
    )
    quantities: list[Quantity] = Field(
        default_factory=list,
        description="Figures the fact gives, by quantity: another value stated as the current amount "
        "of the same quantity contradicts the fact",
    )


class CanonicalFact(Strict):
    fact_id: Identifier
    statement: str = Field(min_length=1)
    rationale: str = ""
    source: str = Field(min_length=1, description="Document and section or page")
    severity_if_wrong: Severity = "medium"
    effective_date: date | None = None
    year: int | None = Field(default=None, description="The year a year-indexed figure holds for")
    patterns: FactPatterns | None = None
    pending: Pending | None = Field(
        default=None,
        description="The fact rests on a value not published as of the key's date: an item on it is "
        "not scored, and says why",
    )

    def pending_in(self, year: int) -> Pending | None:
        """What the fact waits for when asked about plan `year`: the fact as a whole rests on a
        value not published yet. (A quantity's pending year only keeps its figures from being read:
        "Medicaid pays your Part B premium" stands whatever the premium turns out to be.)"""
        if self.pending is not None and (self.year is None or self.year == year):
            return self.pending
        return None


class DisallowedClaim(Strict):
    claim_id: Identifier
    text: str = Field(min_length=1)
    severity: Severity = "high"
    rationale: str = ""
    patterns: list[str] = Field(default_factory=list)


# Answers the study codes Not Substantive: a refusal, "I don't know", a bare referral (Medicare.gov,
# the hotline, Medicaid), an unelaborated "it depends", or nothing that addresses the question.
NonAnswer = Literal["refusal", "dont_know", "referral_only", "depends_only", "off_topic"]
NON_ANSWERS: tuple[NonAnswer, ...] = ("refusal", "dont_know", "referral_only", "depends_only", "off_topic")


class ChecklistItem(Strict):
    """One item of the study's checklist for a question group, answered by one canonical fact."""

    fact_id: Identifier
    optional: bool = Field(default=False, description="Never lowers completeness or the category")
    study_item: str = Field(default="", description="The study's questionnaire item, e.g. 'Q55 option 2'")
    study_wording: str = Field(default="", description="The study's checklist wording, quoted")


class GroupRule(Strict):
    """How a question group's category follows from its checklist codes (the study's rule).

    Incorrect: any material contradiction (of a fact or a disallowed claim). Otherwise Accurate and
    Complete when `complete` required items are covered ("all" by default); Substantive but
    Incomplete when at least one item or one `partial_credit` fact is covered; Not Substantive only
    on a recognised non-answer listed in `not_substantive`, or when judges positively find that no
    item is addressed. Anything else needs review.
    """

    complete: Literal["all"] | int = "all"
    partial_credit: list[Identifier] = Field(
        default_factory=list,
        description="Facts that make an answer substantive (SBI at most) without being checklist items",
    )
    not_substantive: list[NonAnswer] = Field(default_factory=lambda: list(NON_ANSWERS))
    incorrect: list[Identifier] = Field(
        default_factory=list,
        description="Facts or disallowed claims whose contradiction the study names as Incorrect",
    )
    study_rule: str = Field(default="", description="The study's rule for this group, quoted with its page")


class Deviation(Strict):
    """Where this replication cannot code as the study did: machine-readable, shown in reports."""

    deviation_id: Identifier
    what: str = Field(min_length=1, description="What differs from the study")
    why: str = Field(min_length=1)
    coded_as: str = Field(min_length=1, description="How the group is coded instead")


class QuestionGroupKey(Strict):
    group_id: Identifier
    label: str = Field(default="", description="The study's eTable row label")
    items: list[ChecklistItem] = Field(min_length=1)
    rule: GroupRule = Field(default_factory=GroupRule)
    deviations: list[Deviation] = Field(default_factory=list)
    source: str = ""

    def required(self) -> list[str]:
        return [i.fact_id for i in self.items if not i.optional]

    def optional(self) -> list[str]:
        return [i.fact_id for i in self.items if i.optional]


class AnswerKey(Strict):
    canonical_facts: list[CanonicalFact] = Field(min_length=1)
    required_points: list[str] = Field(default_factory=list)
    disallowed_claims: list[DisallowedClaim] = Field(default_factory=list)
    question_groups: list[QuestionGroupKey] = Field(default_factory=list)

    @field_validator("disallowed_claims", mode="before")
    @classmethod
    def _disallowed_from_strings(cls, value: Any) -> Any:
        # The specification lists disallowed claims as bare strings; give them stable ids.
        if isinstance(value, list):
            return [
                {"claim_id": f"D{i}", "text": item} if isinstance(item, str) else item
                for i, item in enumerate(value, start=1)
            ]
        return value
