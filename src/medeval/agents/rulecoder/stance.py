"""The reading of a candidate statement before a pattern decides: what a match of a key's
contradiction pattern says in its clause.

A pattern finds words; whether the words assert the wrong thing depends on how the clause holds
them. A match is read for:

- quantifier: a negated quantifier or hedge ("not all plans", "you don't always have to") denies
  the generalisation, not the claim: it asserts nothing a rule can contradict;
- time: the explicit year nearest the match ("in 2024", "starting in 2025", a "2025" column):
  a statement dated before the key's year is about the past, not a claim about now;
- condition: "if you're on COBRA, you must ..." speaks of the case the condition names; when the
  condition names a situation the persona is not in (or denies one the persona is in), the
  statement is not about the persona;
- subject: "you cannot have both", "neither of them pays" lean on the sentence before (or the
  heading, or the list's lead-in) for their subject. Resolved to programs the fact is not about,
  the match is void; not resolved at all, the reading is unsettled.

An unsettled reading is not a contradiction: the coder abstains and a person reads the passage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

Verdict = Literal["asserted", "void", "unsettled"]


@dataclass(frozen=True)
class Setting:
    """What a clause is read under: the sentences its subject may lean on, and the persona's
    words (a condition that names them includes the persona)."""

    context: str = ""
    persona: frozenset[str] = frozenset()
    heading: str = ""


_NEGATED_QUANTIFIER = re.compile(
    r"(?:\bnot|n't)\s+(?:(?:quite|really|actually|strictly)\s+)?"
    r"(?:always|all|every|everyone|everybody|each|necessarily|universally|guaranteed)\b",
    re.I,
)
# How far before a match a negated quantifier still governs it.
_QUANTIFIER_REACH = 40


def negated_quantifier(text: str, start: int, end: int) -> bool:
    """A negated quantifier or hedge shortly before the match or inside it."""
    return any(
        start - _QUANTIFIER_REACH <= m.start() < end and not re.search(r"[,;:]", text[m.end() : start])
        for m in _NEGATED_QUANTIFIER.finditer(text, 0, end)
    )


# A year that labels a lookback ("your 2024 income", "2024 tax return") dates the income, not the
# figure beside it.
_YEAR = re.compile(
    r"(?<![$\d,.])\b(20[0-4]\d)\b(?![,.]?\d)(?!(?:'s)?\s+(?:income|tax|taxes|return|magi|earnings|filing))",
    re.I,
)


# "Since 2019 ...", "as of 2024 ...": a rule dated from a past year still holds now.
_CONTINUING = re.compile(
    r"\b(?:since|ever since|as of|from|beginning (?:in|with)|effective)\s+(?:\w+\s+)?20[0-4]\d\b", re.I
)


def nearest_year(text: str, start: int, end: int) -> int | None:
    """The explicit year nearest the match in its clause (before it on a tie); a year inside the
    same parentheses as the match comes first ("$202.90 in 2026 (about $174.70 in 2024)")."""
    opened = text.rfind("(", 0, start)
    if opened >= 0 and text.rfind(")", opened, start) < 0:
        closed = text.find(")", end)
        inner = text[opened : closed if closed >= 0 else len(text)]
        year = _nearest(inner, start - opened, end - opened)
        if year is not None:
            return year
    return _nearest(text, start, end)


def _nearest(text: str, start: int, end: int) -> int | None:
    best: tuple[int, int] | None = None
    for m in _YEAR.finditer(text):
        if start <= m.start() < end:
            distance = 0
        else:
            distance = start - m.end() if m.end() <= start else m.start() - end + 1
        if best is None or distance < best[0]:
            best = (distance, int(m.group(1)))
    return best[1] if best else None


_CONDITION_BEFORE = re.compile(
    r"^\s*(?:if|unless|only if|as long as|provided(?: that)?|in case|"
    r"for (?:people|those|anyone|someone|beneficiaries|members|folks|individuals|workers) "
    r"(?:who|with|whose|on|in))\b(?P<cond>[^,]*),",
    re.I,
)
_CONDITION_AFTER = re.compile(r"\b(?:if|unless)\b(?P<cond>.*)$", re.I)
# A situation that sets a person apart: a condition that names one the persona is not in may
# exclude the persona ("if you're on COBRA", "for people with a small employer").
_SITUATION = re.compile(
    r"\b(?:cobra|retire\w*|fewer than 20|under 20|less than 20|small (?:employer|company|business)|"
    r"disab\w*|esrd|kidney|als|medicaid|dual\w*|low income|limited income|extra help|social security|"
    r"railroad|veteran\w*|va|tricare|federal employee\w*|fehb|self-employed|marketplace|aca|"
    r"under 65|spouse\w*|widow\w*|divorc\w*|no (?:employer|other|job) (?:coverage|insurance|plan)|"
    r"not working|stop(?:ped)? working|lose|lost|losing|income (?:above|over|below|under)|"
    r"high(?:er)? income|irmaa|qmb|slmb|nursing home residents?|live abroad|outside the u\.?s)\b",
    re.I,
)
_NEGATION = re.compile(r"\b(?:not|no|never|without)\b|n't\b", re.I)
_WORD = re.compile(r"[a-z][a-z'-]{3,}")
_PLAIN = frozenset(
    {
        *("that", "this", "with", "your", "you're", "from", "have", "will", "they", "their", "them"),
        *("then", "than", "there", "these", "those", "what", "when", "which", "where", "while"),
        *("would", "could", "should", "about", "after", "before", "into", "only", "also", "some"),
        *("more", "other", "each", "does", "doesn't", "don't", "just", "like", "been", "being"),
        *("were", "much", "many", "very", "even", "such", "already", "still", "currently", "want"),
        *("plan", "plans", "medicare", "part", "coverage", "covered", "cover", "have", "you've"),
    }
)


@cache
def content_words(text: str) -> frozenset[str]:
    return frozenset(w.rstrip("s") for w in _WORD.findall(text.lower()) if w not in _PLAIN)


def condition_of(text: str, start: int, end: int) -> str | None:
    """The condition the match is stated under: a leading "if ...," or a trailing "if ..."."""
    before = _CONDITION_BEFORE.match(text)
    if before is not None and before.end() <= start:
        return before.group("cond")
    after = _CONDITION_AFTER.search(text, end)
    return after.group("cond") if after is not None else None


# Programs a statement can be about, finer than "Medicare": a subject resolved to one of these is
# compared with the programs the fact's statement names.
_SUBJECTS = {
    name: re.compile(pattern, re.I)
    for name, pattern in {
        "original": r"\b(?:original|traditional|regular) medicare\b|\bparts a and b\b",
        "advantage": r"\b(?:medicare advantage|advantage plans?|ma plans?|part c|hmos?|ppos?|ma)\b",
        "medigap": r"\bmedigap\b|\bsupplement",
        "part_d": r"\bpart d\b|\bdrug plans?\b|\bpdps?\b",
        "employer": r"\bemployer|\bjob-based\b|\bgroup (?:health )?(?:plan|coverage|insurance)\b|\bcobra\b|"
        r"\bretiree\b|\bunion\b|\bwork(?:-based)? (?:plan|coverage|insurance)\b",
        "medicaid": r"\bmedicaid\b|\bqmb\b|\bmsps?\b|savings programs?\b|\bextra help\b",
    }.items()
}
# A subject that leans on what came before.
# "Both", "neither", "either" standing alone ("you can't have both", "neither pays"), not opening a
# pair it names ("both Medicare and your employer plan", "neither Lipitor nor its generic").
_LEANING = re.compile(
    r"\b(?:both|neither|either)\b(?!\s+(?:[\w'-]+\s+){0,5}?(?:and|nor|or)\b)"
    r"|\b(?:the two|these two|those two)\b",
    re.I,
)
_PRONOUN_START = re.compile(r"^\s*(?:it|they|these|those|this|that)\b", re.I)


@cache
def subjects(text: str) -> frozenset[str]:
    return frozenset(name for name, pattern in _SUBJECTS.items() if pattern.search(text))


def _pronoun_led(text: str, start: int) -> bool:
    return bool(_PRONOUN_START.match(text)) and start <= len(text.split(" ", 3)[0]) + 12


# A supposition or an example is not a claim about the persona ("Suppose someone retires at 66 and
# ..."), nor is a scope the clause restricts ("a few situations where you are required to").
_HYPOTHETICAL = re.compile(
    r"^\s*(?:suppose|supposing|imagine|say you|let's say|for example|for instance|e\.g\.|as an example|"
    r"assuming|thinking|believing)\b|\b(?:situations?|cases?|circumstances?|scenarios?|times) "
    r"(?:where|when|in which)\b|\bin (?:some|certain|rare|a few) (?:cases|situations|circumstances)\b",
    re.I,
)


# "You still have to pay the Part B premium ..., but the state pays it for you": who pays it is
# another, so "you pay" is not what the sentence says you owe.
_PAID_FOR_YOU = re.compile(
    r"\b(?:but|and|though|although)\s+(?:the state|your state|medicaid|extra help|qmb|"
    r"(?:a|the) (?:medicare )?savings program)\s+(?:usually |generally |typically )?"
    r"(?:pays?|covers?|picks? up)\s+(?:it|that|them|this|those|the premium|the cost)\b",
    re.I,
)
_YOU_PAY = re.compile(r"\bpay", re.I)


def read_match(
    text: str, start: int, end: int, statement: str, year: int, setting: Setting, sentence: str = ""
) -> tuple[Verdict, str]:
    """How the clause `text` (of `sentence`) holds a contradiction match [start, end) of the fact
    `statement`: asserted, void (it does not say that), or unsettled (with the reason)."""
    if negated_quantifier(text, start, end):
        return "void", "a negated quantifier"
    if _YOU_PAY.search(text, start, end) and _PAID_FOR_YOU.search(sentence or text):
        return "void", "another pays it"
    # A key's pattern may take in the clause from its start ("^(?!...).*..."), so what precedes
    # the match's end is what the match is read under.
    hypothetical = _HYPOTHETICAL.search(text, 0, end)
    if hypothetical is not None:
        return "void", "a supposition, an example or a restricted scope"
    dated = nearest_year(text, start, end)
    if dated is not None and dated < year and not _CONTINUING.search(text):
        return "void", f"dated {dated}"
    before = _CONDITION_BEFORE.match(text)
    if before is not None and end <= before.end():
        return "void", "inside a condition (an if-clause asserts nothing)"
    if before is not None and start == 0:
        start = before.end()
    condition = condition_of(text, start, end)
    if condition is not None:
        situation = [m.group() for m in _SITUATION.finditer(condition)]
        known = content_words(statement) | setting.persona
        persona_in = any(content_words(w) & known for w in situation)
        # "If you're on COBRA" (not the persona's case), "if you don't have Medicaid" (the
        # persona has it): the condition excludes the persona.
        if situation and (not persona_in or _NEGATION.search(condition)):
            return "void", f"a condition that excludes the persona ({condition.strip()!r})"
    leaning = _LEANING.search(text, start, end) is not None
    own = subjects(statement)
    if own and not leaning and not subjects(sentence) and setting.heading:
        # A clause that names no program, under a heading about programs the fact is not about
        # ("Can you switch Medigap plans?" over "you can apply to change plans at any time").
        named = subjects(setting.heading)
        if named and not named & own:
            return "void", "about the heading's subject"
    if leaning or _pronoun_led(text, start):
        named = subjects(text) or subjects(sentence) or subjects(setting.context) or subjects(setting.heading)
        # "Both"/"neither" with nothing before them to name the pair cannot be read; "it" or
        # "they" usually can (the thing just talked about), so only a resolution elsewhere voids it.
        if own and not named and leaning:
            return "unsettled", "a subject the reader could not resolve"
        if own and named and not named & own:
            return "void", "about another subject"
    return "asserted", ""
