"""The extractor: atomic claims with exact quotes. The harness, not the model, locates every quote
in the response and fills `quote_spans`; a claim whose quote is not a real passage of the text is
dropped and counted, so no judge can rest a verdict on words the target never said. A claim whose
restatement shares nothing with its quote is flagged, and checkable sentences no claim covers are
added as claims of their own (agents/grounding.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from medeval.adapters.base import ChatRequest
from medeval.agents import rules
from medeval.agents.boundary import data_message
from medeval.agents.grounding import UNRELATED, is_passage, locate_quote, uncovered_sentences, unrelated
from medeval.agents.structured import call_structured, role_request
from medeval.calls.gateway import CallContext, Gateway
from medeval.schemas import Claim, ExtractedClaim, ExtractorOutput, Span, normalise_space

RULES = "rules"


@dataclass
class Extraction:
    claims: list[Claim]
    dropped: list[str] = field(default_factory=list)
    error: str | None = None
    # A limit that cut what the judges see (the claims were judged, but not all of them).
    note: str | None = None


def extraction_request(question: str, response: str, seed: int, metadata: dict[str, str]) -> ChatRequest:
    content = data_message([("question", question), ("response", response)])
    return role_request("extractor", content, ("extraction", ExtractorOutput), seed=seed, metadata=metadata)


async def extract(
    gateway: Gateway,
    spec: str,
    *,
    question: str,
    response: str,
    turn_id: str,
    seed: int,
    ctx: CallContext,
    max_attempts: int = 3,
) -> Extraction:
    if spec == RULES:
        return Extraction(rules.extract_claims(response, turn_id))
    metadata = {"role": "extractor", "turn_id": turn_id, "scenario_id": ctx.scenario_id or ""}
    request = extraction_request(question, response, seed, metadata)
    result = await call_structured(gateway, spec, request, ExtractorOutput, ctx, max_attempts=max_attempts)
    if result.value is None:
        return Extraction([], error=result.error)
    claims: list[Claim] = []
    dropped: list[str] = []
    cursor = 0
    for raw in result.value.claims:
        spans = ground(response, raw, cursor)
        if spans is None or not is_passage(response, spans):
            dropped.append(raw.claim_id)
            continue
        cursor = spans[0].start
        passage = " ".join(response[s.start : s.end] for s in spans)
        claims.append(
            Claim(
                claim_id=f"{turn_id}.{raw.claim_id}",
                turn_id=turn_id,
                text=raw.text,
                type=raw.type,
                confidence=raw.confidence,
                verifiable=raw.verifiable,
                quote_spans=spans,
                flags=[UNRELATED] if unrelated(raw.text, passage) else [],
            )
        )
    # What the extractor skipped is judged anyway: a checkable sentence no claim covers.
    claims += uncovered_sentences(response, claims, turn_id)
    return Extraction(claims, dropped)


def ground(response: str, raw: ExtractedClaim, cursor: int = 0) -> list[Span] | None:
    """Where a claim stands in the answer, or None when neither its spans nor its quote match.

    Spans must lie inside the text and, when a quote is given too, cover that quote; a quote alone
    is located (exactly first, then ignoring case and runs of whitespace)."""
    quote = (raw.quote or "").strip()
    if raw.quote_spans:
        inside = all(span.end <= len(response) and span.end > span.start for span in raw.quote_spans)
        if inside and (
            not quote or _same(response[raw.quote_spans[0].start : raw.quote_spans[0].end], quote)
        ):
            return list(raw.quote_spans)
        if not quote:
            return None
    found = locate_quote(response, quote, cursor)
    return [Span(start=found[0], end=found[1])] if found else None


def _same(passage: str, quote: str) -> bool:
    return normalise_space(passage).casefold() == normalise_space(quote).casefold()
