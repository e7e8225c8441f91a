"""How a key's pattern match is read in its clause: negated, compared, named as the past, or
about another quantity. A match the clause does not assert is void."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache, lru_cache
from typing import Literal

from medeval.agents.rulecoder.stance import nearest_year
from medeval.agents.rulecoder.text import YEAR_LABEL, Clause

MatchKind = Literal["support", "contradict", "stale", "disallowed"]


@cache
def compile_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.I)


# Negation cues. "not only", "whether or not" and "if not" do not negate what follows.
_NEGATION = re.compile(
    r"\b(?:not|never|no longer|neither|nor|cannot|without|none)\b|n't\b|\bno\b(?=\s+[a-z])", re.I
)
_NOT_NEGATION = re.compile(r"\bnot (?:only|just|necessarily)\b|\bwhether or not\b|\bif not\b", re.I)
# A pattern that names a negation itself ("(doesn't|does not) cover", "^(?!.*\bnot\b)") already
# says how it reads negations; the clause reading leaves it alone.
# ("n't" needs its apostrophe: "enrollment" or "payment" names no negation.)
_PATTERN_NEGATION = re.compile(r"not|n'\??t\b|n\\'t|never|\bno\b|neither|none|without|cannot", re.I)
# At most this many words between a negation and the match it negates ("do not generally cover").
_NEGATION_REACH = 3


@cache
def _pattern_reads_negation(pattern: str) -> bool:
    return _PATTERN_NEGATION.search(pattern) is not None


def _negations(text: str) -> list[re.Match[str]]:
    excluded = [(m.start(), m.end()) for m in _NOT_NEGATION.finditer(text)]
    return [m for m in _NEGATION.finditer(text) if not any(a <= m.start() < b for a, b in excluded)]


# "I can't say whether ...", "not sure if ...", "they can tell you whether ...": what follows is left
# open, not asserted.
_LEFT_OPEN = re.compile(
    r"(?:(?:n't|\bnot|\bnever|\bunable to|\bno way to)\s+(?:[\w']+\s+){0,3}(?:whether|if)|"
    # An embedded question ("they can tell you what you might be eligible for") asks, not asserts.
    r"\b(?:tell you|find out|figure out|determine|ask(?:ing)?) (?:exactly )?(?:what|whether|if|which))"
    r"\b[^,;:()]*$",
    re.I,
)


# An embedded question asserts nothing, whatever the pattern reads: "I don't know whether you'd
# qualify", "the network decides whether you can keep your doctor", "check if the plan covers it".
# It runs from "whether" (or a verb of knowing, deciding or asking before "if") to the clause's
# next break; "if" alone sets a condition ("if you qualify, Medicaid pays") and opens none.
_EMBEDDED = re.compile(
    r"(?:\bwhether\b|(?:\b(?:know|sure|say|tell|decides?|deciding|depends? on|depending on|check\w*|"
    r"ask\w*|see|find out|confirm\w*|verify|wonder\w*|unclear|certain)\s+(?:[\w']+\s+){0,2}?if\b)|"
    # Someone else's belief is reported, not asserted: "people who assume they'll be signed up
    # automatically", "a common myth that ...", "you might think you have to enroll".
    r"\b(?:assum(?:e|es|ed|ing)|believ(?:e|es|ed|ing)|(?:might|may|would|could) think|"
    r"(?:people|many|some|folks|others|a lot of people)(?: \w+)? (?:think|expect)|"
    r"(?:myth|misconception|misunderstanding) (?:is )?that)\b|"
    # 'A common misconception is "once I have Medicare, I lose Medicaid."'
    r"\b(?:myth|misconception|misunderstanding)s?\b(?: (?:is|goes|says))?:?(?=\s*[\"\u201c])|"
    # A quoted rule denied: 'This is not a general "switch any plan any month" rule.'
    r"\bnot (?:a|an|the)\b[^\"\u201c.;]{0,20}[\"\u201c]|"
    # Quoted speech: 'you'll hear people say "everyone has to sign up at 65"'.
    r"\b(?:say|says|said|claim|claims|hear|heard)\b[^\"\u201c]{0,20}[\"\u201c])"
    # A quotation the cue introduces runs to its closing mark, commas and all ('describes the
    # older rule, a "once per quarter" SEP').
    r"(?:[^;:()\"\u201c]{0,50}?[\"\u201c][^\"\u201d]*[\"\u201d]?)?(?:[^,;:()]|,(?=\d))*",
    re.I,
)
# What a source says, reported by a search assistant: "Source [3] lists $174.70", "some pages
# still show $185", "one older page says that if you miss your IEP, coverage 'begins July 1'"
# (whether it is right is said next, if at all). It runs to the clause's end, commas and all.
_REPORTED_SOURCE = re.compile(
    r"\b(?:sources?|pages?|sites?|websites?|articles?|guides?|posts?|brochures?|blogs?|listings?|"
    r"search results?)\b(?:\s*\[\d+\])?(?:[^.;:\"\u201c]{0,40}?)\s(?:still\s)?(?:say|says|said|list|lists|"
    r"listed|listing|quote|quotes|quoted|quoting|show|shows|showed|showing|state|states|stating|mention|"
    r"mentions|claim|claims|report|reports|cite|cites|give|gives|describe|describes|describing)\b[^;:]*",
    re.I,
)
_EMBEDDED_CUE = re.compile(
    r"whether| if |assum|believ|think|myth|misconception|misunderstanding|mistake|confusion|say|claim|hear|"
    r"not (?:a|an|the) |"
    r"source|page|site|article|guide|post|brochure|blog|listing|result",
    re.I,
)


# A quotation the sentence then labels as wrong: '"Medicare covers nursing homes" is one of the most
# common misunderstandings.'
_QUOTED_MYTH = re.compile(
    r"[\"\u201c][^\"\u201d]{3,}[\"\u201d]\s*(?:is|are|was|remains)\s+(?:one of\s+)?(?:the\s+|a\s+)?"
    r"(?:(?:most|very|single)\s+)?(?:(?:common|frequent|widespread|big(?:gest)?|popular|persistent)\s+)?"
    r"(?:myths?|misconceptions?|misunderstandings?|mistakes?|confusions?)\b",
    re.I,
)


def embedded_questions(text: str) -> list[tuple[int, int]]:
    """The spans of the clause's embedded questions."""
    return list(_question_spans(text))


# Every pattern of every key item reads the same clause: its questions are found once.
@lru_cache(maxsize=4096)
def _question_spans(text: str) -> tuple[tuple[int, int], ...]:
    if not _EMBEDDED_CUE.search(text):
        return ()
    spans = [(m.start(), m.end()) for m in _EMBEDDED.finditer(text)]
    spans += [(m.start(), m.end()) for m in _QUOTED_MYTH.finditer(text)]
    return tuple(spans + [(m.start(), m.end()) for m in _REPORTED_SOURCE.finditer(text)])


def reported(text: str, start: int) -> bool:
    """Whether `start` falls in what the clause reports rather than asserts (an embedded
    question, a belief, quoted speech, what a source says)."""
    return any(a <= start < b for a, b in _question_spans(text))


def _outside_questions(
    pattern: re.Pattern[str], text: str, match: re.Match[str], spans: tuple[tuple[int, int], ...]
) -> re.Match[str] | None:
    """`match`, or when it ends inside an embedded question, the pattern's match in the clause
    before that question (if any): only what the clause says outside its questions is asserted."""
    for start, end in spans:
        if start < match.end() <= end:
            return pattern.search(text, 0, start)
    return match


def negated_before(text: str, start: int) -> bool:
    """A negation shortly before `start` in the same clause, with no comma between."""
    if _LEFT_OPEN.search(text[:start]):
        return True
    for cue in reversed(_negations(text[:start])):
        gap = text[cue.end() : start]
        if re.search(r"[,;:()]", gap):
            return False
        return len(gap.split()) <= _NEGATION_REACH
    return False


_DETERMINER_NEGATION = re.compile(r"\b(?:no|not|never|neither)\s+$", re.I)
# A clause whose subject is negated, with its verb ("No Medicare option covers custodial care"; not
# "No network restrictions: ..."), at the clause's start, after a colon or where a list item joins
# its lead-in. "No, ..." is an answer, not a determiner.
_SUBJECT_NEGATION = re.compile(
    r"[^\w:;]*(?:no|not one|not a single)\s+(?!(?:matter|doubt|longer|more|later|earlier|sooner|need)\b)"
    r"(?:[\w-]+\s+){1,3}?(?:covers?|pays?|includes?|offers?|lets?|allows?|has|have|is|are|will|can|would|does|do)\b",
    re.I,
)
_CLAUSE_START = re.compile(r"[:;\u2014]\s*")


def subject_negated(text: str, start: int, end: int, joined_at: int | None = None) -> bool:
    """Whether a negated subject starts a clause inside text[start:end]."""
    starts = [0, *(m.end() for m in _CLAUSE_START.finditer(text, 0, end))]
    if joined_at is not None:
        starts.append(joined_at)
    return any(start <= at < end and _SUBJECT_NEGATION.match(text, at) for at in starts)


def negated_inside(text: str) -> bool:
    return bool(_negations(text))


# The thing compared against: "lower than Original Medicare", "compared with $185".
_COMPARAND_BEFORE = re.compile(
    r"\b(?:than|compared (?:with|to)|versus|vs\.?|as opposed to)\s+(?:\S+\s+){0,2}[\"'\u201c\u2018(]?$", re.I
)


# A clause that opens as the comparison ("For comparison, under Original Medicare you'd pay 20%").
_COMPARISON_LEAD = re.compile(r"^\W*(?:for|by|in) (?:comparison|contrast)\b", re.I)


def compared_against(text: str, start: int) -> bool:
    return bool(_COMPARAND_BEFORE.search(text[:start]) or _COMPARISON_LEAD.match(text))


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
# "in 2025", "(2025)", "for 2025" right after the figure.
_YEAR_AFTER = re.compile(r"^\s*(?:\(\s*(?:in |for )?|,?\s*(?:in|for) )(20\d\d)\b", re.I)


# What a rule or window "used to" be: a change told as history, not the rule now ("Open Enrollment
# used to run November 15 to December 31").
_HISTORY_BEFORE = re.compile(
    r"\b(?:used to|previously|formerly|originally|back in|in the past|years ago|before (?:that|then)|"
    # "... replaced an older January 1 - February 14 period in 2019"
    r"replaced (?:an? |the )?(?:older|earlier|former|previous|prior|old))\b"
    r"(?:[^.;!?]|\.\d){0,60}$",
    re.I,
)


# A clause set in an earlier year as a whole: "Before 2019, the January-March window was ...".
_HISTORY_LEAD = re.compile(
    r"^\W*(?:(?:and|but|so)\s+)?(?:before|until|prior to|up to|through|in|back in) ((?:19|20)\d\d)\b", re.I
)


def told_as_history(text: str, start: int, current_year: int) -> bool:
    if _HISTORY_BEFORE.search(text, 0, start) is not None:
        return True
    lead = _HISTORY_LEAD.match(text)
    return lead is not None and lead.end() <= start and int(lead.group(1)) < current_year


def _year_label(before: str) -> re.Match[str] | None:
    """The year labelling a figure, read only where the label ends in its colon ("2025: $209.50")."""
    return YEAR_LABEL.search(before) if before.rstrip().endswith(":") else None


# A dollar figure inside a match that also names its quantity ("deductible ($283 in 2026, it was
# $240"): the figure, not the whole match, is what a year or a cue dates.
_DOLLARS = re.compile(r"\$\s?\d[\d,]*(?:\.\d+)?")


def named_as_past(text: str, match: re.Match[str], current_year: int) -> bool:
    start, end = match.start(), match.end()
    figures = list(_DOLLARS.finditer(text, start, end))
    if figures:
        last = figures[-1] if figures[-1].end() == end else figures[0]
        start, end = last.start(), last.end()
    before, after = text[:start], text[end:]
    if _CUE_BEFORE.search(before) or _CUE_AFTER.match(after):
        return True
    # The explicit year nearest the figure dates it ("$174.70/month in 2024", "starting in 2025,
    # ... capped at $2,000", a "2025" column): before the key's year, it is the past's figure.
    dated = nearest_year(text, start, end)
    if dated is not None:
        # A later year's figure ("2027: announced at $9,850") is no more a claim about now.
        return dated != current_year
    year = _YEAR_BEFORE.search(before)
    if year and int(year.group(1) or year.group(2)) < current_year:
        return True
    year = _YEAR_AFTER.match(after) or _year_label(before)
    return year is not None and int(year.group(1)) < current_year


# One end of a range of prices ("$120 to $240", "$50-$300", "between $100 and $185") is not an
# amount asserted for a single quantity.
_RANGE_BEFORE = re.compile(r"(?:\d\s*(?:-|\u2013|to)\s*|\bbetween\s+)$", re.I)
_RANGE_AFTER = re.compile(r"^(?:\s*(?:-|\u2013|to)\s*\$?\d|\s+and\s+\$?\d)", re.I)


def in_range(text: str, match: re.Match[str]) -> bool:
    return bool(_RANGE_BEFORE.search(text[: match.start()]) or _RANGE_AFTER.match(text[match.end() :]))


# What a figure can be the amount of: whose (subject) and which kind of amount (kind). A stale
# figure is read with the nearest one named in its clause.
_SUBJECTS: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern, re.I)
    for name, pattern in {
        "part_a": r"\bpart a\b|hospital (?:insurance|deductible|stay)",
        "part_b": r"\bpart b\b",
        "part_d": r"\bpart d\b|\bdrugs?\b|\bmedications?\b|prescription|\bpdps?\b|\bma-?pds?\b",
        "medigap": r"\bmedigap\b|\bsupplement(?:al)?\b|\bplan [a-n]\b",
        # "$0 plan premium" is the plan's, not Part B's.
        "advantage": r"\badvantage\b|\bma\b(?!-?pd)|\bhmos?\b|\bppos?\b|harborview|\bplan(?:'s)? premium",
        "nursing": r"skilled nursing|nursing (?:home|facility)|\bsnf\b|long[- ]term care",
        # Other named services with limits of their own: a hospice respite stay's five days are
        # not the skilled-nursing limit.
        "hospice": r"\bhospice\b|\brespite\b",
        "psychiatric": r"\bpsychiatric\b|\bmental health\b",
        "income": r"\bincome\b|\bearn|\bfil(?:er|ing)\b|\birmaa\b",
    }.items()
}
KINDS: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern, re.I)
    for name, pattern in {
        "premium": r"\bpremiums?\b",
        "deductible": r"\bdeductibles?\b",
        "cost_sharing": r"\bco-?pay(?:ment)?s?\b|\bcoinsurance\b|\bcost[- ]sharing\b|\bper day\b|\ba day\b",
        "limit": r"out[- ]of[- ]pocket|\bcap(?:ped|s)?\b|\bmaximum\b|\blimit\b|\bmoop\b",
        "penalty": r"\bpenalt(?:y|ies)\b",
        "threshold": r"\bthresholds?\b|\bbrackets?\b|\babove\b",
    }.items()
}


@cache
def quantity_of(statement: str) -> tuple[frozenset[str], frozenset[str]]:
    """The subjects and kinds of amount a fact's statement is about."""
    subjects = frozenset(n for n, p in _SUBJECTS.items() if p.search(statement))
    kinds = frozenset(n for n, p in KINDS.items() if p.search(statement))
    return subjects, kinds


# A mention this close after a figure is what the figure is the amount of ("the $185 monthly
# premium", "the $257 Part B deductible").
_ADJACENT_AFTER = re.compile(r"^(?:\s*[\w/.-]+){0,2}?\s*$")


def _nearest(vocabulary: dict[str, re.Pattern[str]], text: str, at: int, end: int) -> str | None:
    before: tuple[int, str] | None = None
    after: tuple[int, str] | None = None
    for name, pattern in vocabulary.items():
        for m in pattern.finditer(text):
            if m.end() <= at and (before is None or m.end() > before[0]):
                before = (m.end(), name)
            elif m.start() >= end and (after is None or m.start() < after[0]):
                after = (m.start(), name)
    if after is not None and _ADJACENT_AFTER.match(text[end : after[0]]):
        return after[1]
    if before is not None:
        return before[1]
    return after[1] if after else None


def names_subject(text: str) -> bool:
    """Whether the text names whose amount a figure is (Part B, Medigap, an Advantage plan...)."""
    return any(p.search(text) for p in _SUBJECTS.values())


def about_other_quantity(text: str, match: re.Match[str], statement: str, before: str = "") -> bool:
    """The figure is read with the nearest subject and kind of amount named in the clause
    (before it, else after it): a Medigap price is not a Part B premium. A clause naming no
    subject takes the nearest named earlier in its sentence (`before`): "it includes respite care
    - a short inpatient stay (up to five days)" gives hospice's days, not a nursing stay's."""
    subjects, kinds = quantity_of(statement)
    subject = _nearest(_SUBJECTS, text, match.start(), match.end())
    if subject is None and before:
        subject = _nearest(_SUBJECTS, before, len(before), len(before))
    if subjects and subject is not None and subject not in subjects:
        return True
    kind = _nearest(KINDS, text, match.start(), match.end())
    return bool(kinds) and kind is not None and kind not in kinds


def asserted(
    pattern: str,
    clause: Clause,
    kind: MatchKind,
    *,
    current_year: int,
    statement: str = "",
    joined_at: int | None = None,
) -> Iterator[re.Match[str]]:
    """The matches of `pattern` that the clause asserts, read as `kind` (`joined_at`: where a clause
    joined to the one before it starts, `keyed.reading_units`):

    - support and contradict: void when a negation shortly before the match (or inside it)
      negates it, unless the pattern itself names the negation;
    - contradict, stale and disallowed: void in a comparison phrase ("unlike Medicare") or after
      "than" ("lower than Original Medicare"): the comparison is not what the clause asserts;
    - stale: also void when named as the past, when one end of a price range, or when the clause
      gives it as the amount of another quantity;
    - disallowed: a hedge does not void an invented specific ("may have a $0 premium" still
      invents it); only a negation before it does ("I can't say whether ...");
    - contradict and disallowed: void when it ends inside an embedded question ("I don't know
      whether ...", "the network decides whether ..."), even if the pattern reads negation.
    """
    text = clause.text
    compiled = compile_pattern(pattern)
    questions = _question_spans(text) if kind in ("contradict", "disallowed") else ()
    for found in compiled.finditer(text):
        match = _outside_questions(compiled, text, found, questions) if questions else found
        if match is None:
            continue
        if kind != "support" and (clause.role == "comparison" or compared_against(text, match.start())):
            continue
        # "no Medigap policy covers drugs": a determiner's negation right before the match negates
        # it even where the pattern reads negations inside itself.
        if kind == "contradict" and (
            _DETERMINER_NEGATION.search(text, 0, match.start())
            or subject_negated(text, match.start(), match.end(), joined_at)
            or told_as_history(text, match.end(), current_year)
        ):
            continue
        if kind in ("support", "contradict", "disallowed") and not _pattern_reads_negation(pattern):
            if negated_before(text, match.start()):
                continue
            if kind != "disallowed" and negated_inside(match.group()):
                continue
        if kind == "stale" and (
            named_as_past(text, match, current_year)
            or reported(text, match.start())
            or in_range(text, match)
            or (statement and about_other_quantity(text, match, statement))
        ):
            continue
        yield match
