"""Asks an adjudicator model to decide claims the verifiers left without a strict majority.

The adjudicator function itself stays pure; this module only fetches the decisions it applies."""

from __future__ import annotations

import json
from collections.abc import Mapping

from medeval.agents.boundary import prefixed_message
from medeval.agents.structured import call_structured, role_request
from medeval.agents.verifier import answer_key_json, evidence_problem, quoted
from medeval.calls.gateway import CallContext, Gateway
from medeval.schemas import AdjudicatorModelOutput, Claim, FinalClaim, Scenario, TieBreak


async def break_ties(
    gateway: Gateway,
    spec: str,
    *,
    scenario: Scenario,
    claims: list[Claim],
    undecided: list[FinalClaim],
    seed: int,
    ctx: CallContext,
    responses: Mapping[str, str] | None = None,
) -> tuple[list[TieBreak], str | None]:
    """Decisions for the undecided claims. `responses` (turn id -> answer) lets the adjudicator
    read each disputed claim's quote in the whole answer, as the verifiers did."""
    by_id = {c.claim_id: c for c in claims}
    responses = responses or {}
    disputed = []
    for fc in undecided:
        claim = by_id[fc.claim_id]
        entry: dict[str, object] = {"claim_id": fc.claim_id, "turn_id": claim.turn_id, "text": claim.text}
        if claim.turn_id in responses:
            entry["quote"] = quoted(responses[claim.turn_id], claim)
        entry["votes"] = [v.model_dump(mode="json") for v in fc.votes]
        disputed.append(entry)
    turns = list(dict.fromkeys(by_id[fc.claim_id].turn_id for fc in undecided))
    # The key (the same for every call on this scenario) first, so prefix caches hit.
    message = prefixed_message(
        [("answer_key", answer_key_json(scenario))],
        [
            *((f"response_{t}", responses[t]) for t in turns if t in responses),
            ("disputed_claims", json.dumps(disputed, ensure_ascii=False, indent=1)),
        ],
    )
    request = role_request(
        "adjudicator",
        message.content,
        ("adjudication", AdjudicatorModelOutput),
        seed=seed,
        metadata={"scenario_id": scenario.scenario_id},
        stable_prefix=message.stable_chars,
    )
    result = await call_structured(gateway, spec, request, AdjudicatorModelOutput, ctx)
    if result.value is None:
        return [], result.error
    return screen_decisions(result.value.decisions, undecided, scenario)


def screen_decisions(
    decisions: list[TieBreak], undecided: list[FinalClaim], scenario: Scenario
) -> tuple[list[TieBreak], str | None]:
    """Decisions held to the verifiers' standard of evidence (agents/verifier.evidence_problem);
    the rest are named in the returned reason and their claims stay undecided."""
    wanted = {fc.claim_id for fc in undecided}
    valid: dict[str, TieBreak] = {}
    invalid: list[str] = []
    for decision in decisions:
        problem = evidence_problem(decision.label, decision.evidence, scenario)
        if decision.claim_id not in wanted:
            invalid.append(f"{decision.claim_id}: not a disputed claim")
        elif problem:
            invalid.append(f"{decision.claim_id}: {problem}")
        elif decision.claim_id in valid:
            invalid.append(f"{decision.claim_id}: duplicate decision")
        else:
            valid[decision.claim_id] = decision
    reason = f"invalid tie-break decision(s): {'; '.join(invalid)}" if invalid else None
    return list(valid.values()), reason
