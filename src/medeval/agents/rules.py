"""The `rules` judge: a deterministic, transparent offline judge.

It splits an answer into sentence claims with exact spans and labels each claim with the answer
key's regular expressions. It lets the demo and CI compute real scores with no keys, and stands
next to model judges as a baseline whose every decision can be traced to a pattern.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from medeval.schemas import Claim, Label, Scenario, Severity, Span, Verdict, worse_severity

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
                quote_spans=[Span(start=start, end=end)],
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


# A stale figure named as the past or denied, not asserted as the present: a cue in the same
# clause shortly before it ("up from", "was", "no longer", "not", "instead of", "in 2025", "2025's
# premium"), "from" just before it, or "anymore"/"previously"/"last year"/"in 2025" just after.
_PAST_CUE = (
    r"\b(?:not|no longer|never|instead of|rather than|used to|previously|formerly|prior|last year'?s?|old|"
    r"was|were|versus|vs|compared (?:with|to)|up from|down from|increased? from|rose from|rise from|"
    r"jumped from|went up from|replac\w*)\b|n't\b"
)
_CUE_BEFORE = re.compile(
    rf"(?:(?:{_PAST_CUE})(?:[^.;!?]|\.\d){{0,40}}?|\bfrom\s+(?:[\w']+\s+){{0,2}})$", re.I
)
_YEAR_BEFORE = re.compile(
    r"\b(?:(?:in|for|during|of) (20\d\d)\b|(20\d\d)(?:'s)? (?:premium|deductible|cap|limit|amount|figure|"
    r"threshold|rate|base))(?:[^.;!?]|\.\d){0,40}?$",
    re.I,
)
_CUE_AFTER = re.compile(
    r"^(?:(?:[^.;!?]|\.\d){0,30}\b(?:anymore|any more|previously)\b|\s+last year\b)", re.I
)
_YEAR_AFTER = re.compile(r"^\s+in (20\d\d)\b", re.I)


def _named_as_past(text: str, match: re.Match[str], current_year: int) -> bool:
    before, after = text[: match.start()], text[match.end() :]
    if _CUE_BEFORE.search(before) or _CUE_AFTER.match(after):
        return True
    year = _YEAR_BEFORE.search(before)
    if year and int(year.group(1) or year.group(2)) < current_year:
        return True
    year = _YEAR_AFTER.match(after)
    return year is not None and int(year.group(1)) < current_year


def states_stale_figure(patterns: tuple[str, ...], text: str, current_year: int) -> bool:
    return any(
        not _named_as_past(text, match, current_year)
        for pattern in patterns
        for match in _compile(pattern).finditer(text)
    )


# A fact as the rules judge uses it: (id, severity if wrong, contradict, stale and support patterns).
_Fact = tuple[str, Severity, tuple[str, ...], tuple[str, ...], tuple[str, ...]]
_Disallowed = tuple[str, Severity, tuple[str, ...]]


def label_claims(claims: list[Claim], scenario: Scenario) -> list[Verdict]:
    """Contradiction outranks support: a sentence that states a stale figure as current is wrong
    even if it also mentions a right one. A stale figure named as the past ("up from $185 in
    2025") is not a contradiction."""
    facts: list[_Fact] = [
        (
            fact.fact_id,
            fact.severity_if_wrong,
            tuple(fact.patterns.contradict),
            tuple(fact.patterns.stale),
            tuple(fact.patterns.support),
        )
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
    for fact_id, severity_if_wrong, contradict, stale, _ in facts:
        if _matches(contradict, text) or (stale and states_stale_figure(stale, text, current_year)):
            contradicted.append(fact_id)
            severity = worse_severity(severity, severity_if_wrong)
    for claim_id, disallowed_severity, patterns in disallowed:
        if _matches(patterns, text):
            contradicted.append(claim_id)
            severity = worse_severity(severity, disallowed_severity)
    if contradicted:
        return Label.CONTRADICTED, contradicted, severity
    supported = [fact_id for fact_id, _, _, _, support in facts if _matches(support, text)]
    if supported:
        return Label.SUPPORTED, supported, "none"
    return Label.NOT_IN_KEY, [], "none"
