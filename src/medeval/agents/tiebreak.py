"""Asks an adjudicator model to decide claims the verifiers left without a strict majority.

The adjudicator function itself stays pure; this module only fetches the decisions it applies."""

from __future__ import annotations

import json

from medeval.agents.structured import call_structured, role_request
from medeval.agents.verifier import answer_key_json
from medeval.gateway import CallContext, Gateway
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
) -> tuple[list[TieBreak], str | None]:
    by_id = {c.claim_id: c for c in claims}
    disputed = [
        {
            "claim_id": fc.claim_id,
            "text": by_id[fc.claim_id].text,
            "votes": [v.model_dump(mode="json") for v in fc.votes],
        }
        for fc in undecided
    ]
    content = (
        f"<answer_key>\n{answer_key_json(scenario)}\n</answer_key>\n"
        f"<disputed_claims>\n{json.dumps(disputed, ensure_ascii=False, indent=1)}\n</disputed_claims>"
    )
    request = role_request(
        "adjudicator",
        content,
        ("adjudication", AdjudicatorModelOutput),
        seed=seed,
        metadata={"scenario_id": scenario.scenario_id},
    )
    result = await call_structured(gateway, spec, request, AdjudicatorModelOutput, ctx)
    if result.value is None:
        return [], result.error
    known = scenario.key_ids()
    wanted = {fc.claim_id for fc in undecided}
    valid = [d for d in result.value.decisions if d.claim_id in wanted and set(d.evidence) <= known]
    return valid, None
