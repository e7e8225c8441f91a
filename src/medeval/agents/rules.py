"""The `rules` judge: a deterministic, transparent offline judge.

It splits an answer into sentence claims with exact spans and labels each claim with the answer
key's regular expressions. It lets the demo and CI compute real scores with no keys, and stands
next to model judges as a baseline whose every decision can be traced to a pattern.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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
# Every specific figure has a digit: a text without one is settled by this one cheap scan.
_DIGIT = re.compile(r"\d")
_WORD_CHARACTER = re.compile(r"[A-Za-z0-9]")


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
        if b - a >= 3 and _WORD_CHARACTER.search(text[a:b]):
            out.append((a, b))
    return out


def is_refusal(text: str) -> bool:
    return bool(_REFUSAL.search(text))


def has_specific_figure(text: str) -> bool:
    return _DIGIT.search(text) is not None and _SPECIFIC_FIGURE.search(text) is not None


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


@cache
def _searches(patterns: tuple[str, ...]) -> tuple[Callable[[str], re.Match[str] | None], ...]:
    return tuple(_compile(p).search for p in patterns)


def _matches(patterns: tuple[str, ...], text: str) -> bool:
    return any(search(text) for search in _searches(patterns))


# (label, evidence, severity) of one claim: what a Verdict is built from.
_Labelled = tuple[Label, list[str], Severity]
# The claims list last labelled, a snapshot of its claims and of the key's patterns, and the labels.
_last: tuple[list[Claim], tuple[object, ...], list[_Labelled]] | None = None


def label_claims(claims: list[Claim], scenario: Scenario) -> list[Verdict]:
    """Contradiction outranks support: a sentence that states a stale figure is wrong even if it
    also mentions a right one."""
    global _last
    facts = [
        (fact.fact_id, fact.severity_if_wrong, tuple(fact.patterns.contradict), tuple(fact.patterns.support))
        for fact in scenario.canonical_facts
        if fact.patterns
    ]
    disallowed = [(d.claim_id, d.severity, tuple(d.patterns)) for d in scenario.disallowed_claims]
    snapshot = (tuple((c.claim_id, c.text) for c in claims), tuple(facts), tuple(disallowed))
    # The verifiers of a turn run back to back on the same claims list: with the rules judge on
    # two of them, the second reuses the first's labels rather than run every pattern again. The
    # labels are pure functions of the snapshot; each caller still gets Verdicts of its own.
    if _last is not None and _last[0] is claims and _last[1] == snapshot:
        labelled = _last[2]
    else:
        labelled = [_label(claim.text, facts, disallowed) for claim in claims]
        _last = (claims, snapshot, labelled)
    return [
        Verdict(claim_id=claim.claim_id, label=label, evidence=list(evidence), severity=severity)
        for claim, (label, evidence, severity) in zip(claims, labelled, strict=True)
    ]


def _label(
    text: str,
    facts: list[tuple[str, Severity, tuple[str, ...], tuple[str, ...]]],
    disallowed: list[tuple[str, Severity, tuple[str, ...]]],
) -> _Labelled:
    contradicted: list[str] = []
    severity: Severity = "none"
    for fact_id, severity_if_wrong, contradict, _ in facts:
        if _matches(contradict, text):
            contradicted.append(fact_id)
            severity = worse_severity(severity, severity_if_wrong)
    for claim_id, disallowed_severity, patterns in disallowed:
        if _matches(patterns, text):
            contradicted.append(claim_id)
            severity = worse_severity(severity, disallowed_severity)
    if contradicted:
        return Label.CONTRADICTED, contradicted, severity
    supported = [fact_id for fact_id, _, _, support in facts if _matches(support, text)]
    if supported:
        return Label.SUPPORTED, supported, "none"
    return Label.NOT_IN_KEY, [], "none"
