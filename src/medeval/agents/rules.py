"""The `rules` judge: a deterministic, transparent offline judge.

It splits an answer into sentence claims with exact spans and labels each claim with the answer
key's regular expressions. It lets the demo and CI compute real scores with no keys, and stands
next to model judges as a baseline whose every decision can be traced to a pattern.
"""

from __future__ import annotations

import re
from functools import cache

from medeval.schemas import Claim, Label, Scenario, Severity, Verdict, worse_severity

# A sentence ends at . ! ? (not inside a number like $202.90 or an abbreviation like "e.g."),
# or at a line break (bullets and headings are claims of their own).
_BOUNDARY = re.compile(
    r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSt)[.!?]+(?=\s|$)|\n+"
)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_REFUSAL = re.compile(
    r"\b(I can(?:no|')t (?:help|provide|give|answer|advise)|I(?: am|'m) (?:not able|unable) to "
    r"(?:help|provide|give|answer|advise)|I (?:don't|do not) (?:provide|give) (?:medical|insurance|legal))",
    re.I,
)
_SPECIFIC_FIGURE = re.compile(r"\$\s?\d|\b\d+(?:\.\d+)?\s?%|\b\d{1,2}/\d{1,2}\b")


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences in `text`, trimmed of whitespace and list markers."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end() if match.group().strip() else match.start()
        spans.append((start, end))
        start = match.end()
    spans.append((start, len(text)))
    out = []
    for a, b in spans:
        segment = text[a:b]
        lead = len(segment) - len(segment.lstrip())
        a += lead
        bullet = _BULLET.match(text[a:b])
        if bullet:
            a += bullet.end()
        b = a + len(text[a:b].rstrip())
        if b - a >= 3 and re.search(r"[A-Za-z0-9]", text[a:b]):
            out.append((a, b))
    return out


def is_refusal(text: str) -> bool:
    return bool(_REFUSAL.search(text))


def has_specific_figure(text: str) -> bool:
    return bool(_SPECIFIC_FIGURE.search(text))


def extract_claims(response: str, turn_id: str) -> list[Claim]:
    claims = []
    for i, (start, end) in enumerate(split_sentences(response), start=1):
        sentence = response[start:end]
        refusal = is_refusal(sentence)
        claims.append(
            Claim(
                claim_id=f"{turn_id}.c{i}",
                turn_id=turn_id,
                text=sentence,
                type="refusal" if refusal else "factual",
                confidence="low" if refusal else "high",
                verifiable=not refusal,
                quote_spans=[(start, end)],
            )
        )
    return claims


@cache
def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


def _matches(patterns: list[str], text: str) -> bool:
    return any(_compile(p).search(text) for p in patterns)


def label_claims(claims: list[Claim], scenario: Scenario) -> list[Verdict]:
    """Contradiction outranks support: a sentence that states a stale figure is wrong even if it
    also mentions a right one."""
    verdicts = []
    for claim in claims:
        contradicted: list[str] = []
        severity: Severity = "none"
        for fact in scenario.canonical_facts:
            if fact.patterns and _matches(fact.patterns.contradict, claim.text):
                contradicted.append(fact.fact_id)
                severity = worse_severity(severity, fact.severity_if_wrong)
        for disallowed in scenario.disallowed_claims:
            if _matches(disallowed.patterns, claim.text):
                contradicted.append(disallowed.claim_id)
                severity = worse_severity(severity, disallowed.severity)
        if contradicted:
            verdicts.append(
                Verdict(
                    claim_id=claim.claim_id,
                    label=Label.CONTRADICTED,
                    evidence=contradicted,
                    severity=severity,
                )
            )
            continue
        supported = [
            f.fact_id
            for f in scenario.canonical_facts
            if f.patterns and _matches(f.patterns.support, claim.text)
        ]
        if supported:
            verdicts.append(Verdict(claim_id=claim.claim_id, label=Label.SUPPORTED, evidence=supported))
        else:
            verdicts.append(Verdict(claim_id=claim.claim_id, label=Label.NOT_IN_KEY))
    return verdicts
