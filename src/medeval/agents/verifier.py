"""A verifier: labels claims against the answer key only. Several run independently, each with its
own derived seed; a verdict citing an id that is not in the key is invalid and discarded."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from medeval.agents.boundary import prefixed_message
from medeval.agents.grounding import is_passage, locate_quote
from medeval.agents.structured import call_structured, role_request
from medeval.calls.gateway import CallContext, Gateway
from medeval.schemas import (
    Claim,
    CodedItem,
    ItemCode,
    Label,
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
    """Each claim with its quote; a flag (e.g. a restatement unrelated to its quote) travels with it
    so the verifier reads the quote, not the restatement."""
    items: list[dict[str, object]] = []
    for c in claims:
        item: dict[str, object] = {"claim_id": c.claim_id, "text": c.text, "quote": quoted(response, c)}
        if c.flags:
            item["flags"] = list(c.flags)
        items.append(item)
    return json.dumps(items, ensure_ascii=False, indent=1)


def evidence_problem(label: Label, evidence: list[str], scenario: Scenario) -> str | None:
    """Why a decision's evidence does not hold, or None: every id must be in the key, SUPPORTED
    may cite canonical facts only, CONTRADICTED facts or disallowed claims."""
    unknown = [e for e in evidence if scenario.fact(e) is None and scenario.disallowed(e) is None]
    if unknown:
        return f"cites unknown id(s) {', '.join(unknown)}"
    if label == Label.SUPPORTED:
        disallowed = [e for e in evidence if scenario.fact(e) is None]
        if disallowed:
            return f"SUPPORTED cites disallowed claim(s) {', '.join(disallowed)}; it may cite facts only"
    return None


def screen(verdicts: list[Verdict], claims: list[Claim], scenario: Scenario) -> Verification:
    """Keep one valid verdict per known claim. Every other verdict is recorded with its reason,
    and the judge abstains on that claim."""
    claim_ids = {c.claim_id for c in claims}
    kept: dict[str, Verdict] = {}
    conflicted: set[str] = set()
    invalid: list[str] = []
    for verdict in verdicts:
        problem = evidence_problem(verdict.label, verdict.evidence, scenario)
        if verdict.claim_id not in claim_ids:
            invalid.append(f"{verdict.claim_id}: no such claim")
        elif problem:
            invalid.append(f"{verdict.claim_id}: {problem}")
        elif verdict.claim_id in conflicted:
            invalid.append(f"{verdict.claim_id}: duplicate verdict")
        elif verdict.claim_id in kept and kept[verdict.claim_id].label != verdict.label:
            # Two labels for one claim is no decision: the judge abstains on it.
            del kept[verdict.claim_id]
            conflicted.add(verdict.claim_id)
            invalid.append(f"{verdict.claim_id}: conflicting labels; the judge abstains on it")
        elif verdict.claim_id in kept:
            invalid.append(f"{verdict.claim_id}: duplicate verdict")
        else:
            kept[verdict.claim_id] = verdict
    return Verification(list(kept.values()), invalid)


def checklist_json(scenario: Scenario, fact_ids: list[str], optional: set[str]) -> str:
    """The items a verifier codes, each with the key's statement and the study's own wording."""
    wording = {
        item.fact_id: item for group in reversed(scenario.answer_key.question_groups) for item in group.items
    }
    items = []
    for fact_id in fact_ids:
        fact = scenario.fact(fact_id)
        if fact is not None:
            entry: dict[str, object] = {
                "fact_id": fact_id,
                "required": fact_id not in optional,
                "statement": fact.statement,
            }
            study = wording.get(fact_id)
            if study is not None and study.study_wording:
                entry["study_wording"] = study.study_wording
            items.append(entry)
    return json.dumps(items, ensure_ascii=False, indent=1)


def locate_item_quote(answers: list[GroupAnswer], quote: str) -> tuple[str, list[Span]] | None:
    """Where an item's quote stands, found like a claim's quote (a real passage, exact first)."""
    for answer in answers:
        found = locate_quote(answer.response, quote)
        if found is not None:
            spans = [Span(start=found[0], end=found[1])]
            if is_passage(answer.response, spans):
                return answer.turn_id, spans
    return None


def screen_checklist(
    codes: list[ItemCode], answers: list[GroupAnswer], fact_ids: list[str]
) -> tuple[list[CodedItem], list[str]]:
    """Keep one located code per checklist item. A code for an item not on the checklist, one
    whose quote is not a passage of the answer, or two different codes for one item are invalid:
    recorded with the reason, and the judge abstains on that item (as on an item it left out)."""
    kept: dict[str, CodedItem] = {}
    conflicted: set[str] = set()
    invalid: list[str] = []
    for code in codes:
        if code.fact_id not in fact_ids:
            invalid.append(f"item {code.fact_id}: not on this group's checklist")
            continue
        if code.fact_id in conflicted or (code.fact_id in kept and kept[code.fact_id].code == code.code):
            invalid.append(f"item {code.fact_id}: duplicate code")
            continue
        if code.fact_id in kept:
            del kept[code.fact_id]
            conflicted.add(code.fact_id)
            invalid.append(f"item {code.fact_id}: conflicting codes; the judge abstains on it")
            continue
        if code.code == "absent":
            kept[code.fact_id] = CodedItem(fact_id=code.fact_id, code="absent", notes=code.notes)
            continue
        located = locate_item_quote(answers, code.quote)
        if located is None:
            invalid.append(f"item {code.fact_id}: quote is not a passage of the answer")
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
    checklist item, each checked against the key and the answer text. Every text arrives in a
    data block it cannot break out of (agents/boundary.py)."""
    # What every trial of this scenario and group shares comes first, so prefix caches hit.
    stable = [
        ("answer_key", answer_key_json(scenario)),
        ("checklist", checklist_json(scenario, checklist, optional)),
    ]
    varying: list[tuple[str, str]] = []
    for a in answers:
        varying += [
            (f"question_{a.turn_id}", a.question),
            (f"response_{a.turn_id}", a.response),
            (f"claims_{a.turn_id}", claims_json([c for c in claims if c.turn_id == a.turn_id], a.response)),
        ]
    message = prefixed_message(stable, varying)
    request = role_request(
        "verifier",
        message.content,
        ("verification", VerifierOutput),
        seed=seed,
        metadata={"turn_id": ctx.turn_id or "", "scenario_id": scenario.scenario_id},
        stable_prefix=message.stable_chars,
    )
    result = await call_structured(gateway, spec, request, VerifierOutput, ctx, max_attempts=max_attempts)
    if result.value is None:
        return Verification([], error=result.error)
    screened = screen(result.value.verdicts, claims, scenario)
    if claims and not screened.verdicts:
        # Output that fails its own validation decides nothing: not the claims, and not the
        # checklist either (an injected answer can steer both). The judge abstains on the group.
        rejected = len(screened.invalid)
        return Verification(
            [],
            screened.invalid,
            error=f"every claim verdict failed validation ({rejected} rejected, "
            f"{len(claims)} claim(s) without a valid verdict); its checklist codes are discarded too",
        )
    coded, invalid_items = screen_checklist(result.value.checklist, answers, checklist)
    return Verification(
        screened.verdicts,
        screened.invalid + invalid_items,
        checklist=coded,
        non_answer=result.value.non_answer,
        uncertain=result.value.uncertain,
    )
