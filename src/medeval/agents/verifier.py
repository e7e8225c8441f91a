"""A verifier: labels claims against the answer key only. Several run independently, each with its
own derived seed; a verdict citing an id that is not in the key is invalid and discarded."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from medeval.agents.extractor import locate_quote
from medeval.agents.structured import call_structured, role_request
from medeval.gateway import CallContext, Gateway
from medeval.schemas import (
    Claim,
    CodedItem,
    ItemCode,
    NonAnswer,
    Scenario,
    Span,
    Verdict,
    VerifierOutput,
)


@dataclass
class Verification:
    verdicts: list[Verdict]
    invalid: list[str] = field(default_factory=list)
    error: str | None = None
    checklist: list[CodedItem] = field(default_factory=list)
    non_answer: NonAnswer | None = None
    uncertain: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GroupAnswer:
    """One answered turn of a question group: what was asked and what the target said."""

    turn_id: str
    question: str
    response: str


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


def checklist_json(scenario: Scenario, fact_ids: list[str], optional: set[str]) -> str:
    items = []
    for fact_id in fact_ids:
        fact = scenario.fact(fact_id)
        if fact is not None:
            items.append({"fact_id": fact_id, "statement": fact.statement, "optional": fact_id in optional})
    return json.dumps(items, ensure_ascii=False, indent=1)


def locate_item_quote(answers: list[GroupAnswer], quote: str) -> tuple[str, list[Span]] | None:
    for answer in answers:
        found = locate_quote(answer.response, quote)
        if found is not None:
            return answer.turn_id, [Span(start=found[0], end=found[1])]
    return None


def screen_checklist(
    codes: list[ItemCode], answers: list[GroupAnswer], fact_ids: list[str]
) -> tuple[list[CodedItem], list[str]]:
    """Keep one located code per checklist item; a code whose quote is not in the answer, for an
    item not on the checklist, or a duplicate is invalid, and the judge abstains on that item."""
    kept: dict[str, CodedItem] = {}
    invalid: list[str] = []
    for code in codes:
        if code.fact_id not in fact_ids:
            invalid.append(f"item {code.fact_id}: not on this group's checklist")
            continue
        if code.fact_id in kept:
            invalid.append(f"item {code.fact_id}: duplicate code")
            continue
        if code.code == "absent":
            kept[code.fact_id] = CodedItem(fact_id=code.fact_id, code="absent", notes=code.notes)
            continue
        located = locate_item_quote(answers, code.quote)
        if located is None:
            invalid.append(f"item {code.fact_id}: quote is not in the answer")
            continue
        kept[code.fact_id] = CodedItem(
            fact_id=code.fact_id, code=code.code, turn_id=located[0], quote_spans=located[1], notes=code.notes
        )
    return list(kept.values()), invalid


async def verify(
    gateway: Gateway,
    spec: str,
    *,
    scenario: Scenario,
    answers: list[GroupAnswer],
    claims: list[Claim],
    checklist: list[str],
    optional: set[str],
    seed: int,
    ctx: CallContext,
    max_attempts: int = 3,
) -> Verification:
    """One model verifier's reading of one question group: a verdict per claim and a code per
    checklist item, each checked against the key and the answer text."""
    claim_blocks = "\n".join(
        f'<claims turn="{a.turn_id}">\n'
        f"{claims_json([c for c in claims if c.turn_id == a.turn_id], a.response)}\n</claims>"
        for a in answers
    )
    exchanges = "\n".join(
        f'<question turn="{a.turn_id}">\n{a.question}\n</question>\n'
        f'<response turn="{a.turn_id}">\n{a.response}\n</response>'
        for a in answers
    )
    content = (
        f"<answer_key>\n{answer_key_json(scenario)}\n</answer_key>\n"
        f"<checklist>\n{checklist_json(scenario, checklist, optional)}\n</checklist>\n"
        f"{exchanges}\n{claim_blocks}"
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
    screened = screen(result.value.verdicts, claims, scenario)
    coded, invalid_items = screen_checklist(result.value.checklist, answers, checklist)
    return Verification(
        screened.verdicts,
        screened.invalid + invalid_items,
        checklist=coded,
        non_answer=result.value.non_answer,
        uncertain=result.value.uncertain,
    )
