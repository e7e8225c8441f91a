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


# A stale figure named as the past, not asserted as the present: "up from $185", "compared with
# $2,000", "$185 in 2025" (an earlier year than the key's). Such a sentence is not a contradiction.
_MOVED_FROM = re.compile(
    r"(?:\b(?:up|down|increas\w*|decreas\w*|ris\w*|rose|climb\w*|went up|jump\w*|chang\w*)\s+from"
    r"|\bcompared\s+(?:with|to))\s*(?:about\s+|roughly\s+)?$",
    re.I,
)
_DATED_AFTER = re.compile(r"^[^.;:]{0,20}?\b(?:in|for|during)\s+(?:plan\s+year\s+)?(20\d\d)\b", re.I)


def _named_as_past(text: str, match: re.Match[str], current_year: int) -> bool:
    if _MOVED_FROM.search(text[max(0, match.start() - 40) : match.start()]):
        return True
    dated = _DATED_AFTER.match(text[match.end() :])
    return dated is not None and int(dated.group(1)) < current_year


def _contradicts(patterns: tuple[str, ...], text: str, current_year: int) -> bool:
    return any(
        not _named_as_past(text, match, current_year)
        for pattern in patterns
        for match in _compile(pattern).finditer(text)
    )


# A fact as the rules judge uses it: (id, severity if wrong, contradict patterns, support patterns).
_Fact = tuple[str, Severity, tuple[str, ...], tuple[str, ...]]
_Disallowed = tuple[str, Severity, tuple[str, ...]]


def label_claims(claims: list[Claim], scenario: Scenario) -> list[Verdict]:
    """Contradiction outranks support: a sentence that states a stale figure as current is wrong
    even if it also mentions a right one. A stale figure named as the past ("up from $185 in
    2025") is not a contradiction."""
    facts: list[_Fact] = [
        (fact.fact_id, fact.severity_if_wrong, tuple(fact.patterns.contradict), tuple(fact.patterns.support))
        for fact in scenario.canonical_facts
        if fact.patterns
    ]
    disallowed: list[_Disallowed] = [
        (d.claim_id, d.severity, tuple(d.patterns)) for d in scenario.disallowed_claims
    ]
    year = scenario.effective_date.year
    verdicts = []
    for claim in claims:
        label, evidence, severity = _label(claim.text, facts, disallowed, year)
        verdicts.append(Verdict(claim_id=claim.claim_id, label=label, evidence=evidence, severity=severity))
    return verdicts


def _label(
    text: str, facts: list[_Fact], disallowed: list[_Disallowed], current_year: int
) -> tuple[Label, list[str], Severity]:
    contradicted: list[str] = []
    severity: Severity = "none"
    for fact_id, severity_if_wrong, contradict, _ in facts:
        if contradict and _contradicts(contradict, text, current_year):
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
