"""The answer key read against an answer's text: which items each sentence covers or contradicts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from medeval.agents.rulecoder.coder import SentenceReading, worst
from medeval.agents.rulecoder.examples import CHECKING, example_lead, example_plan, names_key_value
from medeval.agents.rulecoder.figures import read_figures
from medeval.agents.rulecoder.nonanswer import SentenceKind, sentence_kind
from medeval.agents.rulecoder.quantities import KeyQuantity
from medeval.agents.rulecoder.reading import MatchKind, asserted, compile_pattern, negated_inside
from medeval.agents.rulecoder.screen import Screen, fold, screen
from medeval.agents.rulecoder.stance import Setting, negated_quantifier, read_match
from medeval.agents.rulecoder.structure import DENYING_LEAD, Sentence, read_structure
from medeval.agents.rulecoder.text import Clause, Piece, clauses, without_asides
from medeval.schemas import Scenario, Severity, Span

# Markup around a sentence belongs to its quote ("**Yes.**" is quoted whole).
OPENING_MARKUP = "*_`~["
CLOSING_MARKUP = "*_`~]"


@dataclass(frozen=True)
class Finding:
    """A key item the rules coder found asserted in a sentence. It depends on the sentence's text
    alone, so one reading serves every reader of the same sentence (see `Memo`)."""

    item_id: str
    code: Literal["covered", "contradicted", "doubtful", "unsettled"]
    severity: Severity
    #: Why a contradiction is unsettled (a person reads it).
    reason: str = ""


#: Findings by sentence text, shared by the readers of one group's answer (its sentences are read
#: for the checklist and again as claims).
Memo = dict[str, list[Finding]]


@dataclass(frozen=True)
class Keyed:
    item_id: str
    severity: Severity
    statement: str
    support: tuple[str, ...]
    contradict: tuple[str, ...]
    stale: tuple[str, ...]
    #: Rules out quickly a text none of the item's patterns matches.
    screen: Screen
    disallowed: bool = False


def keyed_items(scenario: Scenario) -> list[Keyed]:
    out = [
        _keyed(
            fact.fact_id,
            fact.severity_if_wrong,
            fact.statement,
            tuple(fact.patterns.support),
            tuple(fact.patterns.contradict),
            tuple(fact.patterns.stale),
        )
        for fact in scenario.canonical_facts
        # A fact resting on a value pending in the year asked is not read (it is not scored).
        if fact.patterns and fact.pending_in(scenario.asked_year) is None
    ]
    out.extend(
        _keyed(d.claim_id, d.severity, d.text, (), tuple(d.patterns), (), disallowed=True)
        for d in scenario.disallowed_claims
    )
    return out


def _keyed(
    item_id: str,
    severity: Severity,
    statement: str,
    support: tuple[str, ...],
    contradict: tuple[str, ...],
    stale: tuple[str, ...],
    disallowed: bool = False,
) -> Keyed:
    return Keyed(
        item_id,
        severity,
        statement,
        support,
        contradict,
        stale,
        screen=screen(support + contradict + stale),
        disallowed=disallowed,
    )


def first_match(
    patterns: tuple[str, ...],
    clause: Clause,
    kind: MatchKind,
    year: int,
    statement: str = "",
    sentence: str | None = None,
    across: int | None = None,
) -> re.Match[str] | None:
    """The first match of any pattern that the clause asserts; with `across`, only a match that
    runs from before that offset to after it (a subject in one clause, its predicate in the next)."""
    for pattern in patterns:
        # A contradiction must hold in its clause and in the whole sentence: keys write their
        # exceptions as look-aheads over the sentence ("... unless it also says 'but' or 'may'").
        if sentence is not None and not compile_pattern(pattern).search(sentence):
            continue
        for match in asserted(pattern, clause, kind, current_year=year, statement=statement):
            if across is None or match.start() < across < match.end():
                return match
    return None


def judged_match(
    patterns: tuple[str, ...],
    clause: Clause,
    year: int,
    statement: str,
    sentence: str,
    across: int | None,
    setting: Setting,
    scope: str | None = None,
) -> tuple[re.Match[str] | None, str]:
    """The first contradiction match the clause's reading asserts (with ""), else the first whose
    reading is unsettled (with the reason), else (None, ""). A pattern's sentence-wide look-aheads
    read `scope` (the sentence from a contrast clause on), its subject the whole sentence."""
    unsettled: tuple[re.Match[str] | None, str] = (None, "")
    for pattern in patterns:
        if not compile_pattern(pattern).search(sentence if scope is None else scope):
            continue
        for match in asserted(
            pattern, clause, "contradict", current_year=year, statement=statement, joined_at=across
        ):
            if across is not None and not match.start() < across < match.end():
                continue
            verdict, reason = read_match(
                clause.text, match.start(), match.end(), statement, year, setting, sentence
            )
            if verdict == "asserted":
                return match, ""
            if verdict == "unsettled" and unsettled[0] is None:
                unsettled = (match, reason)
    return unsettled


# A clause that leans on the one before it for its subject: it starts with a pronoun ("...: it
# pays your deductibles") or is elliptical ("..., but only for a limited time").
_DEPENDENT = re.compile(
    r"^(?:it|its|it's|they|their|they're|them|this|that|these|those|which|only|just|not|also|even|and)\b",
    re.I,
)


def reading_units(sentence: Piece, lead: Piece | None = None) -> list[tuple[Clause, int | None]]:
    """The clauses of a sentence, and each dependent clause joined to the one before it (with the
    offset where it starts), so a clause is read with its subject. A list item's first clause is
    also read joined to its lead-in ("What Medicare does NOT cover: - long-term care")."""
    units: list[tuple[Clause, int | None]] = []
    previous: Clause | None = None
    if lead is not None and lead.text:
        previous = clauses(lead)[-1] if clauses(lead) else None
    for clause in clauses(sentence):
        units.append((clause, None))
        if clause.role == "comparison":
            continue
        if (
            previous is not None
            and clause.piece.offsets
            and (lead is not None or _DEPENDENT.match(clause.text))
        ):
            # A lead-in keeps its colon: "What I'd suggest: Contact Social Security" must not
            # read as one phrase ("suggest Contact Social").
            glue = ": " if lead is not None else " "
            at = clause.piece.offsets[0]
            joint = previous.piece + Piece(glue, (at,) * len(glue)) + clause.piece
            units.append((Clause(joint, clause.role), len(previous.text) + len(glue)))
        previous = clause
        lead = None
    return units


# A lead-in that negates what its items say ("What Medicare does NOT cover:"); a negated
# quantifier ("not all plans:") does not.
def _negating(lead: Piece | None) -> bool:
    if lead is None:
        return False
    if DENYING_LEAD.search(lead.text):
        return True
    return negated_inside(lead.text) and not negated_quantifier(lead.text, 0, len(lead.text))


_LEAD_NEGATION = re.compile(r"\b(?:not|never|no|cannot)\b|n't\b", re.I)


def _negation_at(text: str, end: int) -> int:
    """Where the last negation of a lead-in (the first `end` characters of a joint) starts; -1
    when it has none ("Common mistakes to avoid" denies without one)."""
    found = [m.start() for m in _LEAD_NEGATION.finditer(text, 0, end)]
    return found[-1] if found else -1


# "which may be $0, depending on the plan": a named plan's figure offered as one possibility of
# many is not the figure asserted; whether it reads as one is a person's call.
_DEPENDING = re.compile(
    r"\b(?:may|might|could)\b[^.;]{0,40}\bdepending on\b|\bdepending on (?:the|your|which|each) "
    r"(?:plan|county|area|insurer)\b|\bwhatever\b[^.;]{0,40}\b(?:possibly|perhaps|maybe|may be|could be)\b",
    re.I,
)


def _before(sentence: Piece, clause: Clause) -> str:
    """The sentence's text before the clause."""
    if not clause.piece.offsets or clause.piece.offsets[0] not in sentence.offsets:
        return ""  # a joint with its lead-in starts before the sentence
    return sentence.text[: sentence.offsets.index(clause.piece.offsets[0])]


def read_sentence(
    sentence: Piece | Sentence,
    keyed: list[Keyed],
    year: int,
    quantities: list[KeyQuantity] | None = None,
    memo: Memo | None = None,
    persona: frozenset[str] = frozenset(),
) -> list[Finding]:
    """What one sentence asserts about the key, clause by clause. Contradiction outranks support
    for the same item: a clause that states a stale figure as current, or any other wrong value of
    a key quantity, is wrong even if another clause gives the right one. A figure the coder cannot
    surely tie to its quantity is a doubt about the fact (reported beside any support). A heading
    or a suggested question asserts nothing (it may still credit), a question says nothing; a
    contradiction whose reading is unsettled (stance.py) is reported as such, not as one."""
    unit = sentence if isinstance(sentence, Sentence) else Sentence(sentence)
    if memo is not None:
        known = memo.get(unit.text)
        if known is None:
            known = memo[unit.text] = read_sentence(unit, keyed, year, quantities, persona=persona)
        return known
    if unit.role == "question":
        return []
    asserts = unit.asserts
    inherited = _negating(unit.lead)
    setting = Setting(
        " ".join(p.text for p in (unit.context, unit.lead) if p is not None),
        persona,
        unit.heading.text if unit.heading is not None else "",
    )
    # A key's sentence-wide look-aheads read an item with its lead-in, as the item is read.
    # (A table's lead-in is not: it says what the table shows, not how each row is hedged.)
    whole = f"{unit.lead.text} {unit.text}" if unit.lead is not None and unit.role != "row" else unit.text
    found: dict[str, Finding] = {}
    doubts: dict[str, Finding] = {}
    units = reading_units(unit.piece, unit.lead)
    lead_end = len(clauses(unit.lead)[-1].text) if unit.lead is not None and clauses(unit.lead) else 0
    for n, (clause, across) in enumerate(units):
        plain = without_asides(clause) if across is None else None
        # Each text is folded once for every item's screen.
        folded, plain_folded = fold(clause.text), fold(plain.text) if plain is not None else ""
        # A contrast clause is read from where it starts: "Original Medicare doesn't, but many
        # Advantage plans do cover long-term care" - the first clause's negation is not its own.
        # (A disallowed claim's look-aheads still read the whole sentence: "I can't give you the
        # figure, but ..." is a refusal's hedge.)
        before = _before(unit.piece, clause)
        scope = unit.text[len(before) :] if clause.role == "contrast" and across is None and before else whole
        # An item under a negating lead-in is read only with it: alone it has the wrong polarity.
        # Joined to a heading or a question it asserts nothing; joined to a negating lead-in, only
        # a pattern that reads the lead's negation itself can find a contradiction.
        joint = unit.lead is not None and across == lead_end + 2 and n == 1
        claims = asserts and not (inherited and across is None) and (not joint or unit.lead_states)
        for figure in (
            read_figures(clause, quantities or [], year, before)
            if claims and not (inherited and joint) and not example_lead(unit)
            else ()
        ):
            for fact_id in figure.quantity.fact_ids:
                if figure.reading == "contradicted":
                    found[fact_id] = Finding(fact_id, "contradicted", figure.quantity.severity)
                else:
                    doubts.setdefault(fact_id, Finding(fact_id, "doubtful", "none"))
        for item in keyed:
            if found.get(item.item_id) and found[item.item_id].code == "contradicted":
                continue
            if item.screen.rules_out(clause.text, folded):
                if item.item_id not in found and _credits_without_asides(item, plain, plain_folded, year):
                    found[item.item_id] = Finding(item.item_id, "covered", "none")
                continue
            if claims:
                if item.disallowed:
                    match = first_match(
                        item.contradict, clause, "disallowed", year, sentence=whole, across=across
                    )
                    reason = ""
                else:
                    match, reason = judged_match(
                        item.contradict, clause, year, item.statement, whole, across, setting, scope
                    )
                if match is None:
                    match = first_match(item.stale, clause, "stale", year, item.statement, across=across)
                if (
                    match is not None
                    and joint
                    and inherited
                    and match.start() > _negation_at(clause.text, lead_end)
                ):
                    match = None
                if (
                    match is not None
                    and item.disallowed
                    and (
                        # Joined to an example's lead-in, the plan it names is the one not meant
                        # ("A hypothetical example, using made-up copays rather than Harborview's:").
                        (joint and example_lead(unit))
                        or CHECKING.search(clause.text, 0, match.end())
                        or example_plan(unit, clause.text, persona)
                        or names_key_value(clause.text, match.start(), match.end(), quantities or [])
                    )
                ):
                    match = None
                if match is not None and item.disallowed and _DEPENDING.search(clause.text):
                    reason = "a possibility that depends on the plan, not a figure given as the plan's"
                if match is not None and not reason:
                    found[item.item_id] = Finding(item.item_id, "contradicted", item.severity)
                    continue
                if match is not None and item.item_id not in found:
                    found[item.item_id] = Finding(item.item_id, "unsettled", item.severity, reason)
                    continue
            if item.item_id in found:
                continue
            match = first_match(item.support, clause, "support", year, across=across)
            if match is not None or _credits_without_asides(item, plain, plain_folded, year):
                found[item.item_id] = Finding(item.item_id, "covered", "none")
    extra = [d for i, d in doubts.items() if found.get(i) is None or found[i].code != "contradicted"]
    return list(found.values()) + extra


def _credits_without_asides(item: Keyed, plain: Clause | None, folded: str, year: int) -> bool:
    """The clause read without its long asides (`text.without_asides`; `folded`, its
    `screen.fold`) credits the item."""
    if plain is None or item.screen.rules_out(plain.text, folded):
        return False
    return first_match(item.support, plain, "support", year) is not None


def quote_span(answer: str, sentence: Piece) -> Span:
    span = sentence.span()
    start, end = span.start, span.end
    while start > 0 and answer[start - 1] in OPENING_MARKUP:
        start -= 1
    while end < len(answer) and answer[end] in CLOSING_MARKUP:
        end += 1
    return Span(start=start, end=end)


def read_answer(
    answer: str,
    keyed: list[Keyed],
    quantities: list[KeyQuantity],
    year: int,
    memo: Memo | None = None,
    persona: frozenset[str] = frozenset(),
) -> list[SentenceReading]:
    """Each sentence of the answer with the key items it covers or contradicts and, for the rest,
    what kind of move it is (substance, a referral, "it depends", a refusal...). The memo also
    keeps each reading under the sentence's quote, so a claim (whose text is that quote) is read
    in its place in the answer's structure."""
    readings = []
    for sentence in read_structure(answer):
        findings = read_sentence(sentence, keyed, year, quantities, memo, persona)
        span = quote_span(answer, sentence.piece)
        quote = answer[span.start : span.end]
        if memo is not None:
            memo.setdefault(quote, findings)
        contradicted = [f for f in findings if f.code == "contradicted"]
        unsettled = [f for f in findings if f.code == "unsettled"]
        readings.append(
            SentenceReading(
                span=span,
                quote=quote,
                contradicted=[f.item_id for f in contradicted],
                covered=[f.item_id for f in findings if f.code == "covered"],
                doubtful=[f.item_id for f in findings if f.code == "doubtful"],
                unsettled=[f"{f.item_id}: {f.reason}" for f in unsettled],
                severity=worst([f.severity for f in contradicted]),
                kind=_kind(sentence),
            )
        )
    return readings


def _kind(sentence: Sentence) -> SentenceKind:
    kind = sentence_kind(sentence.piece)
    # A heading or a suggested question may label or refer, but says nothing of substance.
    return "filler" if kind == "substance" and not sentence.asserts else kind


def group_items(scenario: Scenario, group_id: str) -> list[str]:
    """The checklist items of a question group (required and optional)."""
    key = scenario.group_key(group_id)
    if key is not None:
        return [item.fact_id for item in key.items]
    turns = scenario.groups().get(group_id, [])
    return scenario.group_required_points(turns)
