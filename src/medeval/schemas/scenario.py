"""The scenario file: the specification's shape (section 5.1) with medeval's extensions inside it.

Canonical form: `answer_key` holds `canonical_facts`, `required_points` and `disallowed_claims` (and
our `question_groups`: each group's checklist, category rule and declared deviations); turns carry
`user_message`. The flat format written before (top-level `canonical_facts`, turns with `text`)
still loads: `upgrade_scenario_data` rewrites it, and `medeval validate --upgrade` saves that.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import ConfigDict, Field, PrivateAttr, field_validator, model_validator

from medeval.schemas._base import Identifier, Strict
from medeval.schemas.answer_key import AnswerKey, CanonicalFact, DisallowedClaim, QuestionGroupKey

# Study scripts: their keys must be the study's checklist, with contradiction coverage for every point.
STUDY_SCRIPTS = frozenset({"medicare_only", "dual_eligible"})


class TurnCondition(Strict):
    """Ask a follow-up only when an earlier answer did not mention something."""

    after_turn: Identifier
    unless_mentioned: list[str] = Field(min_length=1, description="Regexes; any match skips the turn")


class ScriptedTurn(Strict):
    turn_id: Identifier
    user_message: str = Field(min_length=1)
    question_group: str | None = None
    required_points: list[str] = Field(default_factory=list, description="Fact ids this turn must cover")
    scored: bool = True
    condition: TurnCondition | None = None
    plan_year: int | None = Field(
        default=None,
        ge=1965,
        le=2100,
        description="The plan year this turn asks about, when not the scenario's ('next year' in the fall)",
    )

    @model_validator(mode="before")
    @classmethod
    def _legacy_text(cls, value: Any) -> Any:
        return _upgrade_turn(value)


class VariationKnobs(Strict):
    """The knobs the harness understands are typed; any other knob is kept (the specification types
    the field as a free object) and `medeval validate` warns that nothing reads it."""

    model_config = ConfigDict(extra="allow")

    paraphrase: bool = False
    paraphrase_instructions: str = ""
    tone: str | None = None
    reading_level: str | None = None

    def unknown(self) -> list[str]:
        return sorted((self.model_extra or {}).keys())


class PersonaReply(Strict):
    """A scripted answer of the persona: when a question the chatbot asks matches `pattern`."""

    pattern: str = Field(min_length=1, description="Regex (case-insensitive) on the chatbot's question")
    reply: str = Field(min_length=1, description="What the beneficiary says, from the persona only")


class PersonaReplies(Strict):
    """How the beneficiary answers the chatbot's questions offline (a questioner model, when the
    run has one, answers what no pattern covers)."""

    replies: list[PersonaReply] = Field(default_factory=list)
    default: str | None = Field(
        default="I'm sorry, I don't know that.",
        description="Said to a question no pattern matches; null sends the next scripted turn instead",
    )
    max_exchanges: int = Field(default=2, ge=1, le=5, description="Persona replies per scripted turn")


_LEGACY_KEY_FIELDS = ("canonical_facts", "required_points", "disallowed_claims")


def upgrade_scenario_data(data: Any) -> Any:
    """The canonical shape of a scenario written in the old flat format; anything else unchanged.

    Key order is kept and the key is put where `canonical_facts` stood, so `validate --upgrade`
    gives a small, readable diff."""
    if not isinstance(data, dict):
        return data
    legacy = any(k in data for k in _LEGACY_KEY_FIELDS) and "answer_key" not in data
    turns = data.get("scripted_turns")
    legacy_turns = isinstance(turns, list) and any(
        isinstance(t, dict) and "text" in t and "user_message" not in t for t in turns
    )
    if not legacy and not legacy_turns:
        return data
    out: dict[str, Any] = {}
    key = {k: data[k] for k in _LEGACY_KEY_FIELDS if k in data} if legacy else None
    for name, value in data.items():
        if legacy and name in _LEGACY_KEY_FIELDS:
            if "answer_key" not in out:
                out["answer_key"] = key
            continue
        if name == "scripted_turns" and isinstance(value, list):
            value = [_upgrade_turn(t) for t in value]
        out[name] = value
    return out


def _upgrade_turn(turn: Any) -> Any:
    if isinstance(turn, str):
        return turn
    if not isinstance(turn, dict) or "text" not in turn or "user_message" in turn:
        return turn
    return {("user_message" if k == "text" else k): v for k, v in turn.items()}


class Scenario(Strict):
    # The specification's fields (section 5.1).
    scenario_id: Identifier
    title: str = ""
    effective_date: date
    plan_year: int | None = Field(
        default=None,
        ge=1965,
        le=2100,
        description="The plan year asked about (default: the effective date's year)",
    )
    persona: dict[str, Any] = Field(default_factory=dict)
    scripted_turns: list[ScriptedTurn] = Field(min_length=1)
    variation_knobs: VariationKnobs = Field(default_factory=VariationKnobs)
    answer_key: AnswerKey
    rubric_version: str = "v1"
    # medeval's extensions.
    version: str = "1"
    description: str = ""
    script: str | None = Field(default=None, description="e.g. medicare_only, dual_eligible, topic")
    opening_statement: str | None = None
    tags: list[str] = Field(default_factory=list)
    persona_replies: PersonaReplies | None = Field(
        default=None, description="The persona's scripted answers when the chatbot asks back"
    )
    # Look-up tables built on first use: the scorer asks for facts by id for every claim.
    _fact_index: dict[str, CanonicalFact] | None = PrivateAttr(default=None)
    _disallowed_index: dict[str, DisallowedClaim] | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        return upgrade_scenario_data(data)

    @model_validator(mode="after")
    def _facts_inherit_the_date(self) -> Scenario:
        # The specification dates the scenario, not each fact: a fact without its own date holds
        # from the scenario's.
        for fact in self.answer_key.canonical_facts:
            if fact.effective_date is None:
                fact.effective_date = self.effective_date
        return self

    @field_validator("scripted_turns", mode="before")
    @classmethod
    def _turns_from_strings(cls, value: Any) -> Any:
        # The specification's scenarios may list turns as bare strings; give them stable ids.
        if isinstance(value, list):
            return [
                {"turn_id": f"T{i}", "user_message": item} if isinstance(item, str) else item
                for i, item in enumerate(value, start=1)
            ]
        return value

    # Views of the key ------------------------------------------------------------------------------
    @property
    def canonical_facts(self) -> list[CanonicalFact]:
        return self.answer_key.canonical_facts

    @property
    def disallowed_claims(self) -> list[DisallowedClaim]:
        return self.answer_key.disallowed_claims

    @property
    def required_points(self) -> list[str]:
        return self.answer_key.required_points

    @property
    def is_study_script(self) -> bool:
        return self.script in STUDY_SCRIPTS

    @property
    def asked_year(self) -> int:
        """The plan year the scenario asks about: explicit, else its effective date's."""
        return self.plan_year or self.effective_date.year

    def group_year(self, group: str) -> int:
        """The plan year a question group asks about: a turn's explicit one, else the scenario's."""
        years = [t.plan_year for t in self.groups().get(group, []) if t.plan_year is not None]
        return max(years) if years else self.asked_year

    def pending_items(self, facts: list[str], year: int) -> dict[str, str]:
        """Of `facts`, those resting on a value pending in `year`, with why they are not scored."""
        out: dict[str, str] = {}
        for fact_id in facts:
            fact = self.fact(fact_id)
            pending = fact.pending_in(year) if fact is not None else None
            if pending is not None:
                out[fact_id] = pending.reason(f"the {year} value of {fact_id}")
        return out

    def group_pending(self, turns: list[ScriptedTurn]) -> dict[str, str]:
        """The group's checklist items that rest on a value pending in the plan year it asks
        about, with why each is not scored: counted apart, never for or against the answer."""
        group = turns[0].question_group if turns else None
        key = self.group_key(group) if group else None
        facts = [i.fact_id for i in key.items] + list(key.rule.partial_credit) if key else []
        facts += [p for t in turns for p in t.required_points] or (
            list(self.answer_key.required_points) if len(turns) == len(self.scripted_turns) else []
        )
        year = self.group_year(group) if group else self.asked_year
        return self.pending_items(list(dict.fromkeys(facts)), year)

    def fact(self, fact_id: str) -> CanonicalFact | None:
        return self._facts().get(fact_id)

    def disallowed(self, claim_id: str) -> DisallowedClaim | None:
        return self._disallowed().get(claim_id)

    def _facts(self) -> dict[str, CanonicalFact]:
        if self._fact_index is None:
            self._fact_index = {f.fact_id: f for f in self.answer_key.canonical_facts}
        return self._fact_index

    def _disallowed(self) -> dict[str, DisallowedClaim]:
        if self._disallowed_index is None:
            self._disallowed_index = {d.claim_id: d for d in self.answer_key.disallowed_claims}
        return self._disallowed_index

    def key_ids(self) -> set[str]:
        return set(self._facts()) | set(self._disallowed())

    def group_key(self, group: str) -> QuestionGroupKey | None:
        return next((g for g in self.answer_key.question_groups if g.group_id == group), None)

    def groups(self) -> dict[str, list[ScriptedTurn]]:
        """Question groups in script order; a turn without a group scores as the scenario's own group."""
        out: dict[str, list[ScriptedTurn]] = {}
        for turn in self.scripted_turns:
            out.setdefault(turn.question_group or self.scenario_id, []).append(turn)
        return out

    def group_required_points(self, turns: list[ScriptedTurn]) -> list[str]:
        """The checklist items a group must cover: its key's required items where the key defines
        the group, else the turns' required points (or the scenario's, for a one-group scenario)."""
        group = turns[0].question_group if turns else None
        key = self.group_key(group) if group else None
        if key is not None:
            return key.required()
        points = [p for t in turns for p in t.required_points]
        if not points and len(self.scripted_turns) == len(turns):
            points = list(self.answer_key.required_points)
        return list(dict.fromkeys(points))

    def group_optional_points(self, turns: list[ScriptedTurn]) -> list[str]:
        group = turns[0].question_group if turns else None
        key = self.group_key(group) if group else None
        return key.optional() if key is not None else []

    def reference_problems(self) -> list[tuple[str, str]]:
        """Cross-references the schema alone cannot check, as (JSON path, reason) pairs."""
        problems: list[tuple[str, str]] = []
        seen: set[str] = set()
        for i, fact in enumerate(self.answer_key.canonical_facts):
            if fact.fact_id in seen:
                problems.append(
                    (f"answer_key.canonical_facts[{i}].fact_id", f"duplicate fact_id {fact.fact_id!r}")
                )
            seen.add(fact.fact_id)
        for i, point in enumerate(self.answer_key.required_points):
            if point not in seen:
                problems.append((f"answer_key.required_points[{i}]", f"{point!r} names no canonical fact"))
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
        for i, claim in enumerate(self.answer_key.disallowed_claims):
            if claim.claim_id in claim_ids or claim.claim_id in seen:
                problems.append(
                    (
                        f"answer_key.disallowed_claims[{i}].claim_id",
                        f"{claim.claim_id!r} is already used as an id",
                    )
                )
            claim_ids.add(claim.claim_id)
        problems.extend(self._group_problems(seen, claim_ids))
        return problems

    def _group_problems(self, facts: set[str], claims: set[str]) -> list[tuple[str, str]]:
        problems: list[tuple[str, str]] = []
        groups = self.groups()
        seen: set[str] = set()
        for g, key in enumerate(self.answer_key.question_groups):
            where = f"answer_key.question_groups[{g}]"
            if key.group_id in seen:
                problems.append((f"{where}.group_id", f"duplicate question group {key.group_id!r}"))
            seen.add(key.group_id)
            if key.group_id not in groups:
                problems.append((f"{where}.group_id", f"{key.group_id!r} is asked by no scripted turn"))
            for i, item in enumerate(key.items):
                if item.fact_id not in facts:
                    problems.append(
                        (f"{where}.items[{i}].fact_id", f"{item.fact_id!r} names no canonical fact")
                    )
            for i, fact_id in enumerate(key.rule.partial_credit):
                if fact_id not in facts:
                    problems.append(
                        (f"{where}.rule.partial_credit[{i}]", f"{fact_id!r} names no canonical fact")
                    )
            for i, item_id in enumerate(key.rule.incorrect):
                if item_id not in facts and item_id not in claims:
                    problems.append(
                        (f"{where}.rule.incorrect[{i}]", f"{item_id!r} names no fact or disallowed claim")
                    )
            required = key.required()
            if isinstance(key.rule.complete, int) and not 1 <= key.rule.complete <= len(required):
                problems.append(
                    (
                        f"{where}.rule.complete",
                        f"must be 'all' or between 1 and {len(required)} required items",
                    )
                )
            checklist = {i.fact_id for i in key.items}
            for turn in groups.get(key.group_id, []):
                stray = [p for p in turn.required_points if p not in checklist]
                if stray:
                    t = self.scripted_turns.index(turn)
                    problems.append(
                        (
                            f"scripted_turns[{t}].required_points",
                            f"{', '.join(stray)} not in question group {key.group_id}'s checklist",
                        )
                    )
        return problems
