"""A verifier: labels claims against the answer key only. Several run independently, each with its
own derived seed; a verdict citing an id that is not in the key is invalid and discarded."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from medeval.agents import rules
from medeval.agents.extractor import RULES
from medeval.agents.structured import call_structured, role_request
from medeval.gateway import CallContext, Gateway
from medeval.schemas import Claim, Scenario, Verdict, VerifierOutput


@dataclass
class Verification:
    verdicts: list[Verdict]
    invalid: list[str] = field(default_factory=list)
    error: str | None = None


def answer_key_json(scenario: Scenario) -> str:
    """The key as judges see it: statements, sources and severities; no rules-judge patterns."""
    key = {
        "effective_date": scenario.effective_date.isoformat(),
        "canonical_facts": [
            f.model_dump(mode="json", include={"fact_id", "statement", "source", "severity_if_wrong", "year"})
            for f in scenario.canonical_facts
        ],
        "disallowed_claims": [
            d.model_dump(mode="json", include={"claim_id", "text", "severity"})
            for d in scenario.disallowed_claims
        ],
    }
    return json.dumps(key, ensure_ascii=False, indent=1)


def quoted(response: str, claim: Claim) -> str:
    return " … ".join(response[span.start : span.end] for span in claim.quote_spans)


def claims_json(claims: list[Claim], response: str) -> str:
    items = [
        {
            "claim_id": c.claim_id,
            "text": c.text,
            "quote": quoted(response, c),
        }
        for c in claims
    ]
    return json.dumps(items, ensure_ascii=False, indent=1)


def screen(verdicts: list[Verdict], claims: list[Claim], scenario: Scenario) -> Verification:
    """Keep one valid verdict per known claim; everything else is listed as invalid."""
    known_ids = scenario.key_ids()
    claim_ids = {c.claim_id for c in claims}
    kept: dict[str, Verdict] = {}
    invalid: list[str] = []
    for verdict in verdicts:
        unknown = [e for e in verdict.evidence if e not in known_ids]
        if verdict.claim_id not in claim_ids:
            invalid.append(f"{verdict.claim_id}: no such claim")
        elif unknown:
            invalid.append(f"{verdict.claim_id}: cites unknown id(s) {', '.join(unknown)}")
        elif verdict.claim_id in kept:
            invalid.append(f"{verdict.claim_id}: duplicate verdict")
        else:
            kept[verdict.claim_id] = verdict
    return Verification(list(kept.values()), invalid)


async def verify(
    gateway: Gateway,
    spec: str,
    *,
    scenario: Scenario,
    question: str,
    response: str,
    claims: list[Claim],
    seed: int,
    ctx: CallContext,
    max_attempts: int = 3,
) -> Verification:
    if not claims:
        return Verification([])
    if spec == RULES:
        return Verification(rules.label_claims(claims, scenario))
    content = (
        f"<answer_key>\n{answer_key_json(scenario)}\n</answer_key>\n"
        f"<question>\n{question}\n</question>\n"
        f"<claims>\n{claims_json(claims, response)}\n</claims>"
    )
    request = role_request(
        "verifier",
        content,
        ("verification", VerifierOutput),
        seed=seed,
        metadata={"turn_id": ctx.turn_id or "", "scenario_id": scenario.scenario_id},
    )
    result = await call_structured(gateway, spec, request, VerifierOutput, ctx, max_attempts=max_attempts)
    if result.value is None:
        return Verification([], error=result.error)
    return screen(result.value.verdicts, claims, scenario)
