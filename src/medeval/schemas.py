"""Every contract that crosses a module boundary: scenarios, agent outputs, trial records.

Unknown fields are rejected everywhere, so a typo in a scenario or a judge that invents a field is
caught instead of silently ignored.
"""

from __future__ import annotations

import re
from datetime import date
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

SCHEMA_VERSION = "1"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------------------------------
# Scenario and answer key
# --------------------------------------------------------------------------------------------------

Severity = Literal["none", "low", "medium", "high", "critical"]
SEVERITY_WEIGHT: dict[str, float] = {"none": 0.0, "low": 0.25, "medium": 0.5, "high": 0.75, "critical": 1.0}
MATERIAL_SEVERITIES = frozenset({"medium", "high", "critical"})
_SEVERITY_RANK: dict[str, int] = {"none": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}


def worse_severity(a: Severity, b: Severity) -> Severity:
    return a if _SEVERITY_RANK[a] >= _SEVERITY_RANK[b] else b


Identifier = Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_.\-]+$")]


class FactPatterns(Strict):
    """Regular expressions (case-insensitive) for the offline rules judge."""

    support: list[str] = Field(default_factory=list)
    contradict: list[str] = Field(default_factory=list)
    stale: list[str] = Field(
        default_factory=list,
        description="Outdated figures: a contradiction when asserted as current, not when named as "
        "the past ('up from $185', '$185 in 2025', 'no longer $185')",
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


class DisallowedClaim(Strict):
    claim_id: Identifier
    text: str = Field(min_length=1)
    severity: Severity = "high"
    rationale: str = ""
    patterns: list[str] = Field(default_factory=list)


class TurnCondition(Strict):
    """Ask a follow-up only when an earlier answer did not mention something."""

    after_turn: Identifier
    unless_mentioned: list[str] = Field(min_length=1, description="Regexes; any match skips the turn")


class ScriptedTurn(Strict):
    turn_id: Identifier
    text: str = Field(min_length=1)
    question_group: str | None = None
    required_points: list[str] = Field(default_factory=list, description="Fact ids this turn must cover")
    scored: bool = True
    condition: TurnCondition | None = None


class VariationKnobs(Strict):
    paraphrase: bool = False
    paraphrase_instructions: str = ""
    tone: str | None = None
    reading_level: str | None = None


PersonaValue = str | int | float | bool | list[str]


class Scenario(Strict):
    scenario_id: Identifier
    title: str = ""
    version: str = "1"
    description: str = ""
    script: str | None = Field(default=None, description="e.g. medicare_only, dual_eligible, topic")
    effective_date: date
    rubric_version: str = "v1"
    persona: dict[str, PersonaValue] = Field(default_factory=dict)
    variation_knobs: VariationKnobs = Field(default_factory=VariationKnobs)
    opening_statement: str | None = None
    scripted_turns: list[ScriptedTurn] = Field(min_length=1)
    canonical_facts: list[CanonicalFact] = Field(min_length=1)
    required_points: list[str] = Field(default_factory=list)
    disallowed_claims: list[DisallowedClaim] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)

    @field_validator("scripted_turns", mode="before")
    @classmethod
    def _turns_from_strings(cls, value: Any) -> Any:
        # The specification's scenarios list turns as bare strings; give them stable ids.
        if isinstance(value, list):
            return [
                {"turn_id": f"T{i}", "text": item} if isinstance(item, str) else item
                for i, item in enumerate(value, start=1)
            ]
        return value

    @field_validator("disallowed_claims", mode="before")
    @classmethod
    def _disallowed_from_strings(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [
                {"claim_id": f"D{i}", "text": item} if isinstance(item, str) else item
                for i, item in enumerate(value, start=1)
            ]
        return value

    def reference_problems(self) -> list[tuple[str, str]]:
        """Cross-references the schema alone cannot check, as (JSON path, reason) pairs."""
        problems: list[tuple[str, str]] = []
        seen: set[str] = set()
        for i, fact in enumerate(self.canonical_facts):
            if fact.fact_id in seen:
                problems.append((f"canonical_facts[{i}].fact_id", f"duplicate fact_id {fact.fact_id!r}"))
            seen.add(fact.fact_id)
        for i, point in enumerate(self.required_points):
            if point not in seen:
                problems.append((f"required_points[{i}]", f"{point!r} names no canonical fact"))
        earlier: list[str] = []
        for t, turn in enumerate(self.scripted_turns):
            if turn.turn_id in earlier:
                problems.append((f"scripted_turns[{t}].turn_id", f"duplicate turn_id {turn.turn_id!r}"))
            for i, point in enumerate(turn.required_points):
                if point not in seen:
                    problems.append(
                        (f"scripted_turns[{t}].required_points[{i}]", f"{point!r} names no canonical fact")
                    )
            if turn.condition and turn.condition.after_turn not in earlier:
                problems.append(
                    (
                        f"scripted_turns[{t}].condition.after_turn",
                        f"{turn.condition.after_turn!r} is not an earlier turn",
                    )
                )
            earlier.append(turn.turn_id)
        claim_ids: set[str] = set()
        for i, claim in enumerate(self.disallowed_claims):
            if claim.claim_id in claim_ids or claim.claim_id in seen:
                problems.append(
                    (f"disallowed_claims[{i}].claim_id", f"{claim.claim_id!r} is already used as an id")
                )
            claim_ids.add(claim.claim_id)
        return problems

    # Derived views -------------------------------------------------------------------------------
    def fact(self, fact_id: str) -> CanonicalFact | None:
        return next((f for f in self.canonical_facts if f.fact_id == fact_id), None)

    def disallowed(self, claim_id: str) -> DisallowedClaim | None:
        return next((d for d in self.disallowed_claims if d.claim_id == claim_id), None)

    def key_ids(self) -> set[str]:
        return {f.fact_id for f in self.canonical_facts} | {d.claim_id for d in self.disallowed_claims}

    def groups(self) -> dict[str, list[ScriptedTurn]]:
        """Question groups in script order; a turn without a group scores as the scenario's own group."""
        out: dict[str, list[ScriptedTurn]] = {}
        for turn in self.scripted_turns:
            out.setdefault(turn.question_group or self.scenario_id, []).append(turn)
        return out

    def group_required_points(self, turns: list[ScriptedTurn]) -> list[str]:
        points = [p for t in turns for p in t.required_points]
        if not points and len(self.scripted_turns) == len(turns):
            points = list(self.required_points)
        return list(dict.fromkeys(points))


# --------------------------------------------------------------------------------------------------
# Agent contracts
# --------------------------------------------------------------------------------------------------


class QuestionerTurn(Strict):
    turn_id: str
    text: str = Field(min_length=1)


class QuestionerOutput(Strict):
    turns: list[QuestionerTurn]


ClaimType = Literal["factual", "procedural", "referral", "advice", "hedge", "refusal", "other"]
Confidence = Literal["high", "medium", "low"]
CONFIDENCE_PROBABILITY: dict[str, float] = {"high": 0.9, "medium": 0.6, "low": 0.3}


class ExtractedClaim(Strict):
    """What an extractor model returns: a claim and the exact words it rests on."""

    claim_id: str
    text: str = Field(min_length=1)
    type: ClaimType = "factual"
    confidence: Confidence = "medium"
    verifiable: bool = True
    quote: str = Field(min_length=1, description="Exact substring of the response")


class ExtractorOutput(Strict):
    claims: list[ExtractedClaim]


class Claim(Strict):
    """An extracted claim after the harness has located its quote in the response."""

    claim_id: str
    turn_id: str
    text: str
    type: ClaimType
    confidence: Confidence
    verifiable: bool
    quote_spans: list[tuple[int, int]] = Field(min_length=1)


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


class VerifierOutput(Strict):
    verdicts: list[Verdict]


class TieBreak(Strict):
    claim_id: str
    label: Label
    evidence: list[str] = Field(default_factory=list)
    notes: str = ""


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
    scores: Scores


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
    disagreement_rate: float


# --------------------------------------------------------------------------------------------------
# Trial record (one line of results.jsonl)
# --------------------------------------------------------------------------------------------------


class ShipCategory(StrEnum):
    ACCURATE_COMPLETE = "accurate_complete"
    SUBSTANTIVE_INCOMPLETE = "substantive_incomplete"
    NOT_SUBSTANTIVE = "not_substantive"
    INCORRECT = "incorrect"
    INCOMPLETE_DATA = "incomplete_data"
    NOT_SCORED = "not_scored"


class Turn(Strict):
    role: Literal["user", "assistant"]
    text: str
    turn_id: str
    question_group: str | None = None
    call_id: str | None = None
    error: str | None = None


class TargetInfo(Strict):
    spec: str
    provider: str
    requested_model: str
    served_models: list[str] = Field(default_factory=list)
    fingerprints: list[str] = Field(default_factory=list)
    sampling_sent: dict[str, Any] = Field(default_factory=dict)
    sampling_dropped: dict[str, Any] = Field(default_factory=dict)


class JudgeVerdicts(Strict):
    judge_index: int
    judge: str
    turn_id: str
    status: Literal["ok", "unscored"]
    verdicts: list[Verdict] = Field(default_factory=list)
    invalid_verdicts: list[str] = Field(default_factory=list)
    reason: str | None = None


class GroupResult(Strict):
    question_group: str
    turn_ids: list[str]
    scored: bool
    scores: Scores
    ship_category: ShipCategory
    required_points: list[str]


class Unscored(Strict):
    item: str
    reason: str


class TrialFlags(Strict):
    refusal: bool = False
    hallucinated_specifics: bool = False
    needs_manual_review: bool = False
    served_model_mismatch: bool = False
    dropped_claims: int = 0
    target_error: str | None = None


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
    status: Literal["scored", "partial", "unscored"]
    started_at: str
    finished_at: str


# --------------------------------------------------------------------------------------------------
# Helpers shared by agents
# --------------------------------------------------------------------------------------------------

_WORD = re.compile(r"\s+")


def normalise_space(text: str) -> str:
    return _WORD.sub(" ", text).strip()
