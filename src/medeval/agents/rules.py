"""The `rules` judge: a deterministic, transparent offline judge.

It splits an answer into sentence claims with exact spans and labels each claim with the answer
key's regular expressions. It lets the demo and CI compute real scores with no keys, and stands
next to model judges as a baseline whose every decision can be traced to a pattern.
"""

from __future__ import annotations

import re

from medeval.agents.rulecoder.coder import decides, off_checklist, verifier_output
from medeval.agents.rulecoder.index import key_index
from medeval.agents.rulecoder.keyed import CLOSING_MARKUP, OPENING_MARKUP, read_answer, read_sentence
from medeval.agents.rulecoder.keyed import Memo as Memo  # re-exported: judging shares one per group
from medeval.agents.rulecoder.reading import asserted
from medeval.agents.rulecoder.structure import sentences as text_sentences
from medeval.agents.rulecoder.text import clauses
from medeval.schemas import Claim, Label, Scenario, Severity, Span, Verdict, VerifierOutput, worse_severity

_REFUSAL = re.compile(
    r"\b(I can(?:no|')t (?:help|provide|give|answer|advise)|I(?: am|'m) (?:not able|unable) to "
    r"(?:help|provide|give|answer|advise)|I (?:don't|do not) (?:provide|give) (?:medical|insurance|legal))",
    re.I,
)
_SPECIFIC_FIGURE = re.compile(r"\$\s?\d|\b\d+(?:\.\d+)?\s?%|\b\d{1,2}/\d{1,2}\b")
# Every specific figure has a digit: a text without one is settled by this one cheap scan.
_DIGIT = re.compile(r"\d")


def sentence_spans(text: str) -> list[Span]:
    """Spans of the sentences in `text` (markdown bullets and headings left out, emphasis kept)."""
    out = []
    for sentence in text_sentences(text):
        span = sentence.span()
        start, end = span.start, span.end
        while start > 0 and text[start - 1] in OPENING_MARKUP:
            start -= 1
        while end < len(text) and text[end] in CLOSING_MARKUP:
            end += 1
        out.append(Span(start=start, end=end))
    return out


def split_sentences(text: str) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in sentence_spans(text)]


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


def states_stale_figure(patterns: tuple[str, ...], text: str, current_year: int, statement: str = "") -> bool:
    """Whether `text` asserts one of the stale figures as the current amount (of the quantity
    `statement` is about, when given)."""
    return any(
        next(asserted(p, clause, "stale", current_year=current_year, statement=statement), None) is not None
        for sentence in text_sentences(text)
        for clause in clauses(sentence)
        for p in patterns
    )


def label_claims(
    claims: list[Claim], scenario: Scenario, memo: Memo | None = None, group: str | None = None
) -> list[Verdict]:
    """One verdict per claim: CONTRADICTED when any clause contradicts a fact or states a
    disallowed claim, else SUPPORTED when one supports a fact, else NOT_IN_KEY. With the claims'
    question `group`, a claim that contradicts only points off its checklist is not CONTRADICTED
    (`coder.off_checklist`: the group's code sends it to a person)."""
    index = key_index(scenario)
    scope = index.group(group) if group is not None else None
    own, unnamed = (scope.own, scope.unnamed) if scope is not None else (None, frozenset[str]())
    verdicts = []
    for claim in claims:
        known = memo.get(claim.text) if memo is not None else None
        findings = (
            known
            if known is not None
            else [
                f
                for s in text_sentences(claim.text)
                for f in read_sentence(s, index.keyed, index.year, index.quantities, memo, index.persona)
            ]
        )
        contradicted = list(dict.fromkeys(f.item_id for f in findings if f.code == "contradicted"))
        if decides(contradicted, own, unnamed if index.plan_in_general(claim.text) else frozenset()):
            severity: Severity = "none"
            for f in findings:
                if f.code == "contradicted":
                    severity = worse_severity(severity, f.severity)
            verdicts.append(
                Verdict(
                    claim_id=claim.claim_id,
                    label=Label.CONTRADICTED,
                    evidence=contradicted,
                    severity=severity,
                )
            )
            continue
        supported = list(dict.fromkeys(f.item_id for f in findings if f.code == "covered"))
        label = Label.SUPPORTED if supported else Label.NOT_IN_KEY
        verdicts.append(Verdict(claim_id=claim.claim_id, label=label, evidence=supported))
    return verdicts


def code_answer(scenario: Scenario, group_id: str, answer: str, memo: Memo | None = None) -> VerifierOutput:
    """The rules coder's verifier output for one question group's whole answer. Pass the same
    `memo` to `label_claims` for that answer's claims, and each sentence is read once."""
    index = key_index(scenario)
    group = index.group(group_id)
    readings = read_answer(
        answer, index.keyed, index.quantities, scenario.group_year(group_id), memo, index.persona
    )
    return verifier_output(
        off_checklist(readings, group.own, group.unnamed, index.plan_in_general),
        group.items,
        group.vocabulary,
        index.referrals,
        group.foreign,
    )
