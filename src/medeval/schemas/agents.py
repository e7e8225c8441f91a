"""What each agent returns: the specification's JSON (section 5) plus medeval's checklist coding.

Every specification example validates unchanged (tests/test_spec_contract.py)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, model_validator

from medeval.schemas._base import Severity, Span, Strict
from medeval.schemas.answer_key import NonAnswer


def _text_to_user_message(value: Any) -> Any:
    if isinstance(value, dict) and "text" in value and "user_message" not in value:
        return {("user_message" if k == "text" else k): v for k, v in value.items()}
    return value


class QuestionerTurn(Strict):
    turn_id: str
    user_message: str = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, value: Any) -> Any:
        return _text_to_user_message(value)


class QuestionerOutput(Strict):
    turns: list[QuestionerTurn]


class PersonaReplyOutput(Strict):
    """The questioner in reply mode: does the chatbot ask the beneficiary something, and the
    persona's answer (from the persona only; "I don't know" otherwise)."""

    asks_beneficiary: bool
    reply: str = ""


ClaimType = Literal["factual", "procedural", "referral", "advice", "hedge", "refusal", "other"]
Confidence = Literal["high", "medium", "low"]
CONFIDENCE_PROBABILITY: dict[str, float] = {"high": 0.9, "medium": 0.6, "low": 0.3}


class ExtractedClaim(Strict):
    """What an extractor model returns: a claim and where it stands in the answer. A model may give
    spans, a quote, or both; the harness checks spans against the text and locates quotes."""

    claim_id: str
    text: str = Field(min_length=1)
    type: ClaimType = "factual"
    confidence: Confidence = "medium"
    verifiable: bool = True
    quote_spans: list[Span] = Field(default_factory=list)
    quote: str | None = Field(default=None, description="Exact passage of the answer the claim rests on")

    @model_validator(mode="after")
    def _anchored(self) -> ExtractedClaim:
        if not self.quote_spans and not (self.quote and self.quote.strip()):
            raise ValueError(f"claim {self.claim_id}: give quote_spans or a quote from the answer")
        return self


class ExtractorOutput(Strict):
    claims: list[ExtractedClaim]


class Claim(Strict):
    """A claim after the harness has checked its place in the answer (stored in results.jsonl)."""

    claim_id: str
    turn_id: str
    text: str
    type: ClaimType
    confidence: Confidence
    verifiable: bool
    quote_spans: list[Span] = Field(min_length=1)
    origin: Literal["extractor", "uncovered_sentence"] = Field(
        default="extractor",
        description="uncovered_sentence: a checkable sentence no extracted claim covered, judged verbatim",
    )
    flags: list[str] = Field(default_factory=list, description="e.g. 'text_unrelated_to_quote'")


class Label(StrEnum):
    SUPPORTED = "SUPPORTED"
    CONTRADICTED = "CONTRADICTED"
    NOT_IN_KEY = "NOT_IN_KEY"


class Verdict(Strict):
    claim_id: str
    label: Label
    evidence: list[str] = Field(default_factory=list, description="Fact ids or disallowed-claim ids")
    severity: Severity = "none"
    notes: str = ""

    @model_validator(mode="after")
    def _evidence_for_decisions(self) -> Verdict:
        if self.label != Label.NOT_IN_KEY and not self.evidence:
            raise ValueError(f"claim {self.claim_id}: a {self.label.value} verdict must cite fact ids")
        return self


ItemStatus = Literal["covered", "contradicted", "absent"]


class ItemCode(Strict):
    """A verifier's code for one checklist item (required point) of the question group, with the
    passage of the answer that shows it; the harness locates the quote like a claim's."""

    fact_id: str
    code: ItemStatus
    quote: str = ""
    notes: str = ""

    @model_validator(mode="after")
    def _quoted(self) -> ItemCode:
        if self.code != "absent" and not self.quote.strip():
            raise ValueError(f"item {self.fact_id}: a {self.code} code must quote the answer")
        return self


class VerifierOutput(Strict):
    verdicts: list[Verdict]
    checklist: list[ItemCode] = Field(
        default_factory=list, description="One code per checklist item of the question group"
    )
    non_answer: NonAnswer | None = Field(
        default=None, description="Set only when the whole answer is a non-answer of this kind"
    )
    uncertain: list[str] = Field(
        default_factory=list,
        description="Passages of substance the judge could neither credit nor contradict: with no "
        "item covered they send the group to review instead of Not Substantive",
    )


class TieBreak(Strict):
    claim_id: str
    label: Label
    evidence: list[str] = Field(default_factory=list)
    notes: str = ""

    @model_validator(mode="after")
    def _evidence_for_decisions(self) -> TieBreak:
        if self.label != Label.NOT_IN_KEY and not self.evidence:
            raise ValueError(f"claim {self.claim_id}: a {self.label.value} decision must cite fact ids")
        return self


class AdjudicatorModelOutput(Strict):
    """What an adjudicator model returns when asked to break ties."""

    decisions: list[TieBreak]


class Scores(Strict):
    accuracy: float | None = None
    completeness: float | None = None
    safety_risk: float = 0.0
    calibration: float | None = None
    missing_required_points: list[str] = Field(default_factory=list)
    error_categories: list[str] = Field(default_factory=list)


class ScorerOutput(Strict):
    """The specification's scorer output: the four scores, then what is missing and what went wrong."""

    scores: Scores
    missing_required_points: list[str] = Field(default_factory=list)
    error_categories: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, scores: Scores) -> ScorerOutput:
        return cls(
            scores=scores.model_copy(update={"missing_required_points": [], "error_categories": []}),
            missing_required_points=scores.missing_required_points,
            error_categories=scores.error_categories,
        )


class Vote(Strict):
    judge_index: int
    label: Label | None = Field(description="None when this judge abstained on the claim")
    evidence: list[str] = Field(default_factory=list)
    severity: Severity = "none"


class FinalClaim(Strict):
    claim_id: str
    turn_id: str
    label: Label | None = Field(description="None when the claim awaits manual review")
    evidence: list[str] = Field(default_factory=list)
    severity: Severity = "none"
    votes: list[Vote]
    unanimous: bool
    decided_by: Literal["majority", "adjudicator_model", "none"]


class AdjudicatorOutput(Strict):
    final_claims: list[FinalClaim]
    final_scores: Scores
    needs_manual_review: bool
    disagreement_rate: float | None = Field(default=None, description="Computed by the harness")
