"""The trial record: one line of results.jsonl, never rewritten.

Schema 2 (this file) stores quote spans as {"start", "end"} objects, verifier output per question
group with checklist codes, and a group category that keeps judge failures (`not_scored`) and
undecided groups (`needs_review`) apart from the study's four categories. Records of schema 1 still
load: the validators below read them into this shape.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from medeval.schemas._base import Span, Strict
from medeval.schemas.agents import Claim, FinalClaim, ItemStatus, Scores, Verdict
from medeval.schemas.answer_key import NonAnswer
from medeval.schemas.contacts import ContactCheck
from medeval.schemas.ingest import IngestSource

SCHEMA_VERSION = "2"


class ShipCategory(StrEnum):
    # The study's four categories: the only ones set beside the counselors' rates.
    ACCURATE_COMPLETE = "accurate_complete"
    SUBSTANTIVE_INCOMPLETE = "substantive_incomplete"
    NOT_SUBSTANTIVE = "not_substantive"
    INCORRECT = "incorrect"
    # Left out of those rates, and counted in their own columns.
    NEEDS_REVIEW = "needs_review"  # the category hangs on an undecided claim or checklist item
    NOT_SCORED = "not_scored"  # the judges could not judge it (extraction or every verifier failed)
    INCOMPLETE_DATA = "incomplete_data"  # the target never answered
    NOT_APPLICABLE = "not_applicable"  # asked but, as in the study, not scored


STUDY_CATEGORIES = (
    ShipCategory.ACCURATE_COMPLETE,
    ShipCategory.SUBSTANTIVE_INCOMPLETE,
    ShipCategory.NOT_SUBSTANTIVE,
    ShipCategory.INCORRECT,
)


class Citation(Strict):
    """A source the provider's own search tool returned with an answer, as the provider gave it:
    stored verbatim with the transcript, never fetched or checked against the web by medeval."""

    url: str
    title: str | None = None
    #: The answer's characters it supports (offsets into `ChatResponse.text`), where the provider
    #: says; None where it gives only a list of sources.
    start: int | None = Field(default=None, ge=0)
    end: int | None = Field(default=None, ge=0)
    #: The passage of the source the provider quotes for it (Anthropic), when given.
    cited_text: str | None = None


class Cited(BaseModel):
    """A model whose `citations` (a search-enabled target's sources) are left out of its dump when
    there are none, so the records and cached responses of model-only calls keep the form they had
    before search-enabled targets existed. Shared by the adapters' ChatResponse and the turn."""

    citations: list[Citation] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _omit_no_citations(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not data.get("citations"):
            data.pop("citations", None)
        return data


class Turn(Strict, Cited):
    role: Literal["user", "assistant"]
    text: str
    turn_id: str
    question_group: str | None = None
    call_id: str | None = None
    error: str | None = None
    #: Set on the persona's replies to a chatbot's question (role "user") and the chatbot's answers
    #: to them (role "assistant"): the scripted turn whose exchange they belong to.
    reply_to: str | None = None
    # `citations` (Cited): a search-enabled target's sources for this answer, verbatim from its
    # provider (role "assistant" only).


class TargetInfo(Strict):
    spec: str
    provider: str
    requested_model: str
    served_models: list[str] = Field(default_factory=list)
    fingerprints: list[str] = Field(default_factory=list)
    sampling_sent: dict[str, Any] = Field(default_factory=dict)
    sampling_dropped: dict[str, Any] = Field(default_factory=dict)
    #: What the target was asked with: system prompt path and hash, max output tokens, temperature
    #: and reasoning effort (config.EffectiveSettings.record()).
    settings: dict[str, Any] = Field(default_factory=dict)


class CodedItem(Strict):
    """A verifier's checklist code with its quote located in the answer of `turn_id`."""

    fact_id: str
    code: ItemStatus
    turn_id: str | None = None
    quote_spans: list[Span] = Field(default_factory=list)
    notes: str = ""


class JudgeVerdicts(Strict):
    """One verifier's output for one question group (schema 1: for one turn)."""

    judge_index: int
    judge: str
    question_group: str | None = None
    turn_ids: list[str] = Field(default_factory=list)
    status: Literal["ok", "unscored"]
    verdicts: list[Verdict] = Field(default_factory=list)
    checklist: list[CodedItem] = Field(default_factory=list)
    non_answer: NonAnswer | None = None
    uncertain: list[str] = Field(default_factory=list)
    invalid_verdicts: list[str] = Field(default_factory=list)
    reason: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _schema_1(cls, value: Any) -> Any:
        if isinstance(value, dict) and "turn_id" in value:
            value = dict(value)
            value.setdefault("turn_ids", [value.pop("turn_id")])
        return value


class ItemDecision(Strict):
    """A checklist item after adjudication: the majority code, or None when undecided."""

    fact_id: str
    optional: bool = False
    code: ItemStatus | None
    votes: list[ItemStatus | None] = Field(
        default_factory=list, description="One per verifier; None abstained"
    )
    decided_by: Literal["majority", "adjudicator_model", "none"] = "majority"


class Unscored(Strict):
    item: str
    reason: str


class GroupResult(Strict):
    question_group: str
    turn_ids: list[str]
    scored: bool
    scores: Scores
    ship_category: ShipCategory
    required_points: list[str]
    optional_points: list[str] = Field(default_factory=list)
    checklist: list[ItemDecision] = Field(default_factory=list)
    non_answer: NonAnswer | None = None
    reason: str | None = Field(default=None, description="Why the group is not_scored or needs_review")
    deviations: list[str] = Field(default_factory=list, description="Declared deviations from the study")
    pending: list[Unscored] = Field(
        default_factory=list,
        description="Checklist items resting on a value not published yet: not scored, with why",
    )

    @model_validator(mode="before")
    @classmethod
    def _schema_1(cls, value: Any) -> Any:
        # Schema 1 called a group asked but not scored by design "not_scored".
        if (
            isinstance(value, dict)
            and value.get("scored") is False
            and value.get("ship_category") == "not_scored"
        ):
            value = {**value, "ship_category": ShipCategory.NOT_APPLICABLE.value}
        return value


class TrialFlags(Strict):
    refusal: bool = False
    hallucinated_specifics: bool = False
    needs_manual_review: bool = False
    served_model_mismatch: bool = False
    dropped_claims: int = 0
    target_error: str | None = None
    #: Safety findings of the contacts check: a wrong number for an official service, or a link to a
    #: look-alike of an official domain (records written before the check have 0).
    unsafe_contacts: int = 0


class TrialRecord(Strict):
    schema_version: str = SCHEMA_VERSION
    trial_id: str
    trial_key: str
    run_id: str
    scenario_id: str
    scenario_version: str
    scenario_sha256: str
    rubric_version: str
    epoch: int
    seed: int
    #: The variation-matrix level the trial was asked under; None when the run has no variants.
    variant: str | None = None
    target: TargetInfo
    judges: list[str]
    extractor: str
    conversation: list[Turn]
    claims: list[Claim]
    verdicts: list[JudgeVerdicts]
    final_claims: list[FinalClaim]
    final_scores: Scores
    groups: list[GroupResult]
    disagreement_rate: float
    flags: TrialFlags
    unscored: list[Unscored] = Field(default_factory=list)
    #: The offline contacts and links check (agents/contacts); None in records written before it.
    contacts: ContactCheck | None = None
    status: Literal["scored", "partial", "unscored"]
    started_at: str
    finished_at: str
    #: Set on a conversation collected outside the harness (`medeval ingest`): its source,
    #: provenance and how its turns matched the script.
    ingest: IngestSource | None = None
