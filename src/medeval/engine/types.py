"""The trial's own types, shared by the trial (asking) and judging (coding) halves without either
importing the other: what is planned, what each scripted question got back, the conversation."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from medeval.adapters.base import ChatResponse
from medeval.engine.config import Variant
from medeval.records.hashing import short_hash
from medeval.schemas import Claim, Scenario, ScriptedTurn, Turn


@dataclass(frozen=True)
class TrialPlan:
    scenario: Scenario
    scenario_sha256: str
    target: str
    epoch: int
    variant: Variant | None = None
    #: The bias probes' order probe: claims go to the verifiers in this seed's shuffled order.
    claim_order: int | None = None

    def arranged(self, claims: list[Claim]) -> list[Claim]:
        if self.claim_order is None:
            return claims
        out = list(claims)
        random.Random(self.claim_order).shuffle(out)
        return out

    def key(self, seed: int) -> str:
        """Deterministic identity of a trial: what --resume matches on. A run without variants keeps
        the key it always had, so runs started before variants existed still resume."""
        parts: list[object] = [self.scenario.scenario_id, self.scenario_sha256, self.target, self.epoch, seed]
        if self.variant is not None:
            parts.append(self.variant.name)
        return short_hash(parts, 24)


@dataclass
class Answered:
    """A scripted question and everything the chatbot said until the next one: its answer and, when
    it asked the beneficiary something back, its answers after each persona reply."""

    turn: ScriptedTurn
    question: str
    response: str
    #: (persona reply, chatbot answer) exchanges, in order; `response` already includes the answers.
    exchanges: list[tuple[str, str]] = field(default_factory=list)


def answered_text(first: str, exchanges: list[tuple[str, str]]) -> str:
    """What a question group is coded on: the first answer and every answer after a persona reply."""
    return "\n\n".join([first, *(answer for _, answer in exchanges if answer)])


@dataclass
class Conversation:
    turns: list[Turn] = field(default_factory=list)
    answered: list[Answered] = field(default_factory=list)
    responses: list[ChatResponse] = field(default_factory=list)
    failed_at: str | None = None
    error: str | None = None
    #: Collected outside the harness (`medeval ingest`): a question group never asked there has no
    #: data (incomplete data), which is not a judging failure.
    collected: bool = False
