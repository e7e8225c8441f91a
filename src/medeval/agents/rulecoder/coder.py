"""The rules coder for one question group: checklist codes, a recognised non-answer, and the
sentences it could neither credit nor contradict.

It returns the same structure a model verifier does (VerifierOutput), so the adjudicator and the
scorer treat it like any other judge.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from medeval.agents.rulecoder.nonanswer import (
    SentenceKind,
    asserts_rule,
    asserts_something,
    declines,
    names_resource,
    non_answer_kind,
    sentence_kind,
    states_rule,
)
from medeval.agents.rulecoder.structure import sentences
from medeval.schemas import (
    ItemCode,
    Label,
    NonAnswer,
    Scenario,
    Span,
    Verdict,
    VerifierOutput,
    worse_severity,
)
from medeval.schemas._base import Severity


@dataclass
class SentenceReading:
    """One sentence of the answer as the coder read it."""

    span: Span
    quote: str
    contradicted: list[str] = field(default_factory=list)
    covered: list[str] = field(default_factory=list)
    # Facts whose figure here the coder could not surely tie to the fact's quantity.
    doubtful: list[str] = field(default_factory=list)
    # Contradictions found in a reading the coder could not settle ("ITEM: reason").
    unsettled: list[str] = field(default_factory=list)
    severity: Severity = "none"
    kind: SentenceKind = "substance"


_STOPWORDS = frozenset(
    {
        "that",
        "this",
        "with",
        "your",
        "from",
        "have",
        "will",
        "they",
        "their",
        "them",
        "then",
        "than",
        "there",
        "these",
        "those",
        "what",
        "when",
        "which",
        "where",
        "while",
        "would",
        "could",
        "should",
        "about",
        "after",
        "before",
        "into",
        "only",
        "also",
        "some",
        "most",
        "more",
        "other",
        "each",
        "does",
        "doesn't",
        "don't",
        "just",
        "like",
        "been",
        "being",
        "were",
        "much",
        "many",
        "very",
        "even",
        "such",
        "plan",
        "plans",
        "medicare",
    }
)
_WORD = re.compile(r"[a-z][a-z'-]{3,}")
# A sentence bears on the group's checklist when it shares this many content words with it.
_RELEVANT_OVERLAP = 2


def _content_words(text: str) -> set[str]:
    return {w.rstrip("s") for w in _WORD.findall(text.lower()) if w not in _STOPWORDS}


def checklist_vocabulary(scenario: Scenario, fact_ids: list[str]) -> set[str]:
    words: set[str] = set()
    for fact_id in fact_ids:
        fact = scenario.fact(fact_id)
        if fact is not None:
            words |= _content_words(fact.statement)
    return words


def referral_facts(scenario: Scenario) -> frozenset[str]:
    """Facts whose statement only says where to look or whom to ask."""
    out = set()
    for fact in scenario.canonical_facts:
        kinds = [sentence_kind(s) for s in sentences(fact.statement)]
        if "referral" in kinds and "substance" not in kinds:
            out.add(fact.fact_id)
    return frozenset(out)


def foreign_items(scenario: Scenario, group_id: str) -> frozenset[str]:
    """Checklist items and partial-credit facts of the scenario's other question groups."""
    own: set[str] = set()
    other: set[str] = set()
    for group in scenario.answer_key.question_groups:
        ids = {i.fact_id for i in group.items} | set(group.rule.partial_credit)
        (own if group.group_id == group_id else other).update(ids)
    return frozenset(other - own)


# A contradiction of another question's point: the key's pattern was written for that question, and
# whether the point is material to this one is the study's materiality call, which a pattern
# cannot make. On real-shaped answers the coder had not seen, most such contradictions were
# misreadings (issue 22); a person reads them.
OFF_CHECKLIST = (
    "contradicts a point that is not on this question's checklist; a person judges whether it matters here"
)


def decides(
    contradicted: list[str], own: frozenset[str] | None, unnamed: frozenset[str] = frozenset()
) -> bool:
    """Whether contradictions of these items can settle the group Incorrect: one of them is the
    group's own point (`own`, see `index.GroupIndex`; None: any item is) and not one of the invented
    specifics the caller passes as said of plans in general (`unnamed`)."""
    points = own if own is None else own - unnamed
    return bool(contradicted) and (points is None or not points.isdisjoint(contradicted))


def off_checklist(
    readings: list[SentenceReading],
    own: frozenset[str] | None,
    unnamed: frozenset[str] = frozenset(),
    in_general: Callable[[str], bool] = lambda _: False,
) -> list[SentenceReading]:
    """Each sentence whose contradictions do not decide the group (`decides`) made an unsettled
    reading instead."""
    return [
        replace(
            r,
            contradicted=[],
            severity="none",
            unsettled=[*r.unsettled, *(f"{item}: {OFF_CHECKLIST}" for item in r.contradicted)],
        )
        if r.contradicted
        and not decides(r.contradicted, own, unnamed if in_general(r.quote) else frozenset())
        else r
        for r in readings
    ]


def bears_on(text: str, vocabulary: set[str]) -> bool:
    return len(_content_words(text) & vocabulary) >= _RELEVANT_OVERLAP


def uncertain_sentences(
    readings: list[SentenceReading],
    items: list[str],
    vocabulary: set[str],
    foreign: frozenset[str] = frozenset(),
) -> list[SentenceReading]:
    """Sentences the coder can neither credit nor contradict that a person should read.

    With no checklist item covered, every unexplained sentence that asserts something (a rule, a
    figure, a date, a negation) is uncertain: the answer may be a wrong one the key did not
    foresee, or a right one worded beyond its patterns. A sentence credited only with other
    question groups' items (`foreign`) counts as unexplained here: a loose match elsewhere in the
    key must not turn an unforeseen wrong answer into Not Substantive. With items covered, only an
    unexplained assertion that bears on the checklist is: one that could turn the answer Incorrect.
    """
    unexplained = [r for r in readings if not r.covered and not r.contradicted and r.kind == "substance"]
    covered_any = any(item in r.covered for r in readings for item in items)
    if not covered_any:
        elsewhere = [
            r
            for r in readings
            if r.covered and not r.contradicted and r.kind == "substance" and set(r.covered) <= foreign
        ]
        return [r for r in readings if (r in unexplained or r in elsewhere) and asserts_something(r.quote)]
    return [r for r in unexplained if asserts_rule(r.quote) and bears_on(r.quote, vocabulary)]


# What a sentence that declines or only says "it varies" is, whatever key pattern it matches.
_GENERAL_KINDS = frozenset({"refusal", "dont_know", "depends"})
_ELIGIBILITY = re.compile(
    r"\b(?:could|can|may|able to|eligible to|qualify to) (?:join|enroll|switch|sign up)\b", re.I
)
# A year ("the 2026 plan year") or a source marker ("[1]") is no figure.
_FIGURE = re.compile(r"\$\s?\d|\d\s?%|(?<!\[)\b(?!(?:19|20)\d\d\b)\d+\b(?!\])")
_DETAILED_REFERRAL = 5
_NON_ANSWER_MOVES = frozenset({"refusal", "dont_know", "referral", "depends", "question"})


def verifier_output(
    readings: list[SentenceReading],
    items: list[str],
    vocabulary: set[str],
    referrals: frozenset[str] = frozenset(),
    foreign: frozenset[str] = frozenset(),
    claim_prefix: str = "c",
) -> VerifierOutput:
    """One verdict per sentence, one code per checklist item, the non-answer and the uncertain.

    `referrals` are key facts that only say where to look (the plan's documents, Plan Finder,
    1-800-MEDICARE): an answer that is nothing but such a referral is a bare referral, which the
    study codes Not Substantive, so it credits nothing."""
    non_answer: NonAnswer | None = None
    # A "where to check" fact is credited by a sentence that refers or names a place to look, not
    # by one that mentions a formulary in passing or declines ("I don't have the plan's drug list").
    readings = [
        r
        if r.kind == "referral" or not set(r.covered) & referrals or names_resource(r.quote)
        else replace(r, covered=[f for f in r.covered if f not in referrals])
        for r in readings
    ]
    group = set(items) - referrals
    # A plan-specific question (its checklist asks to check the plan's own documents): a general
    # explanation beside a refusal or a referral ("copays vary by plan; check Medicare.gov") does
    # not answer it, whatever it matches (the study's Not Substantive).
    plan_specific = bool(set(items) & referrals)
    # Substance: a contradiction, a group item that is more than a referral, or a statement that
    # the key credits. A referral that happens to match another fact's pattern ("check the
    # plan's formulary" beside a formulary fact) stays a referral.
    if not any(
        r.contradicted
        or r.unsettled
        or (set(r.covered) & group and not (plan_specific and r.kind in _GENERAL_KINDS))
        or (r.covered and r.kind == "substance")
        for r in readings
    ):
        non_answer = non_answer_kind([r.kind for r in readings])
    if non_answer is None and plan_specific and not any(r.contradicted or r.unsettled for r in readings):
        # A plan-specific question that the answer declines, refers or hedges, while it answers
        # none of the group's own points (only where to look, or other questions' facts): the
        # study's refusal or referral plus general explanation, Not Substantive.
        # Only a sentence that says something counts as answering: not a decline or "it varies",
        # nor a referral without a rule of its own ("availability varies by location, so check
        # Medicare.gov").
        # A statement the key credits to another question counts when it states a rule ("with full
        # Medicaid you could join any D-SNP that serves your area").
        answered = {
            f
            for r in readings
            if r.kind == "substance" or (r.kind == "referral" and asserts_rule(r.quote))
            for f in r.covered
            if f not in foreign or (r.kind == "substance" and _ELIGIBILITY.search(r.quote))
        } - referrals
        moves = [r.kind for r in readings if r.kind in _NON_ANSWER_MOVES]
        # A figure stated beside them ("three D-SNPs there, two with a $0 premium") is no
        # general explanation: it may be an invented specific, and a person reads it.
        figures = any(r.kind == "substance" and _FIGURE.search(r.quote) for r in readings)
        # Where to check, told step by step ("enter your ZIP, add the drug, read its tier..."), is
        # one part with substance, not a bare referral.
        detailed = sum(r.kind == "referral" for r in readings) >= _DETAILED_REFERRAL
        if not answered and moves and not figures and not detailed:
            non_answer = non_answer_kind(moves)
    weak = [] if non_answer is not None else weak_credit(readings, set(items))
    if non_answer is None and not weak:
        non_answer = general_explanation(readings, items, vocabulary, foreign)
    if non_answer is not None:
        readings = [replace(r, covered=[]) for r in readings]
    verdicts = []
    for i, r in enumerate(readings, start=1):
        claim_id = f"{claim_prefix}{i}"
        if r.contradicted:
            verdicts.append(
                Verdict(
                    claim_id=claim_id, label=Label.CONTRADICTED, evidence=r.contradicted, severity=r.severity
                )
            )
        elif r.covered:
            verdicts.append(Verdict(claim_id=claim_id, label=Label.SUPPORTED, evidence=r.covered))
        else:
            verdicts.append(Verdict(claim_id=claim_id, label=Label.NOT_IN_KEY))
    # A contradiction in an unsettled reading (an unresolved subject, a condition that may not be
    # the persona's): the coder abstains on the whole group, so it goes to a person with the
    # passage and the reason, neither Incorrect nor credited.
    unsettled = [f"unsettled reading ({u}): {r.quote}" for r in readings for u in r.unsettled]
    checklist = []
    for item in items:
        if unsettled:
            continue
        contradicted = next((r for r in readings if item in r.contradicted), None)
        covered = next((r for r in readings if item in r.covered), None)
        doubtful = next((r for r in readings if item in r.doubtful), None)
        if contradicted is not None:
            checklist.append(ItemCode(fact_id=item, code="contradicted", quote=contradicted.quote))
        elif doubtful is not None or item in weak:
            # Unsure whether a figure given for the item's quantity is wrong: abstain on the item,
            # so an answer it would complete goes to a person, not to Accurate and Complete.
            continue
        elif covered is not None:
            checklist.append(ItemCode(fact_id=item, code="covered", quote=covered.quote))
        else:
            checklist.append(ItemCode(fact_id=item, code="absent"))
    uncertain = (
        []
        if non_answer
        else list(
            dict.fromkeys(
                unsettled
                + [
                    f"mostly a non-answer; its one point may be general explanation: {q}"
                    for q in weak_quotes(readings, weak)
                ]
                + [r.quote for r in readings if r.doubtful]
                + [r.quote for r in uncertain_sentences(readings, items, vocabulary, foreign)]
            )
        )
    )
    return VerifierOutput(verdicts=verdicts, checklist=checklist, non_answer=non_answer, uncertain=uncertain)


# A short answer that declines, hedges or only asks back, with one checklist point credited: the
# study's refusal "plus general explanation" (Not Substantive) and a brief Substantive but
# Incomplete answer differ in whether that one sentence answers the question, which a pattern
# cannot tell. The coder abstains on the point, so a person decides.
_DECLINING_KINDS = frozenset({"refusal", "dont_know", "depends"})
_ASKS_BACK = 3
_FEW_SUBSTANCE = 5


def weak_credit(readings: list[SentenceReading], items: set[str]) -> list[str]:
    """The one checklist item credited in a mostly non-answer (see above), else []. A plan-specific
    answer that also says where to check credits two items, and is left to the group's rule."""
    if any(r.contradicted or r.unsettled for r in readings):
        return []
    credited = {f for r in readings for f in r.covered} & items
    if len(credited) != 1:
        return []
    # The move is another sentence's: "premiums differ depending on the coverage" is worded as a
    # hedge but is the point itself.
    others = [r for r in readings if not set(r.covered) & credited]
    declining = sum(r.kind in _DECLINING_KINDS and declines(r.quote) for r in others)
    # Clarifying questions count when the answer is mostly questions; one closing "Would you like
    # me to ...?" offer does not make an answer decline.
    asks = sum(r.kind == "question" for r in others)
    if not declining and asks < _ASKS_BACK:
        return []
    if sum(r.kind == "substance" for r in readings) > _FEW_SUBSTANCE:
        return []
    return sorted(credited)


# At most this many sentences the coder cannot account for in a general explanation.
_GENERAL_SENTENCES = 3


def general_explanation(
    readings: list[SentenceReading], items: list[str], vocabulary: set[str], foreign: frozenset[str]
) -> NonAnswer | None:
    """The study's refusal, referral or "it depends" plus general explanation: the answer declines,
    refers, hedges or asks back, credits none of the group's points, contradicts nothing, and what
    else it says (a few sentences at most) states no rule or figure ("networks change often", "not
    everyone follows the same schedule"). Not Substantive, positively; a rule or a figure among
    them still goes to a person."""
    if any(r.contradicted or r.unsettled or r.doubtful or set(r.covered) & set(items) for r in readings):
        return None
    moves = [r.kind for r in readings if r.kind in _NON_ANSWER_MOVES]
    if not moves:
        return None
    unexplained = uncertain_sentences(readings, items, vocabulary, foreign)
    if len(unexplained) > _GENERAL_SENTENCES or any(states_rule(r.quote) for r in unexplained):
        return None
    return non_answer_kind(moves)


def weak_quotes(readings: list[SentenceReading], weak: list[str]) -> list[str]:
    return [r.quote for r in readings if set(r.covered) & set(weak)]


def worst(severities: list[Severity]) -> Severity:
    out: Severity = "none"
    for s in severities:
        out = worse_severity(out, s)
    return out
