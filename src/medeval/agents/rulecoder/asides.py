"""Figures an answer gives that are not its claim about the key's quantity: an example's (a
company with, say, 100+ employees; "Imagine a 12-day hospital admission ..."), who pays rather
than what it costs ("$0 (the state pays it)"), a year's total of a monthly amount ("$2,434.80
a year", "premium x 12"), and a share of an amount ("20% of the standard premium, about $40")."""

from __future__ import annotations

import re

# A figure given as an example of the rule's case: "a company with, say, 100+ employees".
_EXAMPLE_FIGURE = re.compile(r"\b(?:say|e\.g\.|for example|for instance)\W{0,3}$", re.I)
# A sentence that sets up a case ("Imagine a 12-day hospital admission ..."): its figures are the case's.
_EXAMPLE_START = re.compile(
    r"^\W*(?:imagine|suppose|picture|let's say|say you|for example|for instance|"
    r"as an (?:illustration|example)|to illustrate|hypothetically)\b",
    re.I,
)
# "$0 for the Part B premium (the state pays it)": who pays, not what the premium is.
_PAID_BY_OTHERS = re.compile(
    r"\b(?:state|medicaid|msp|savings program|qmb|slmb|extra help)\b[^.;]{0,20}"
    r"\b(?:pays?|covers?|picks? up)\b",
    re.I,
)
# "20% of the standard premium, about $40", "you'd owe 20%, roughly $2,000": the share, not the amount.
_SHARE = re.compile(
    r"\d\s?%(?:\s+of\s+(?:the\s+|your\s+|a\s+)?(?:[\w-]+\s+){0,2}[\w-]+)?\s*[,(=:]?\s*"
    r"(?:or\s+)?(?:about|around|roughly|approximately|approx\.?|~|that's|which is)?\s*$",
    re.I,
)
_TIMES_12 = re.compile(r"(?:\u00d7|\bx|\btimes)\s*12\b", re.I)
_PER_YEAR = re.compile(r"\s*(?:a|per|each|every) year\b|\s*(?:annually|yearly)\b|\s*/\s*y(?:ea)?r\b", re.I)


# What sets up a case earlier in the sentence: "Here's a purely hypothetical illustration (not this
# plan's numbers): imagine an HMO with a $6,000 limit".
_SET_UP = re.compile(r"\b(?:hypothetical(?:ly)?|illustrat(?:e|ion)|imagine|suppose)\b", re.I)


def example_figure(text: str, start: int, before: str) -> bool:
    """The figure at `start` is an example's: right after "say," or in a sentence (its text before
    the clause is `before`) that sets up a case, or in a clause that opens one."""
    after_say = _EXAMPLE_FIGURE.search(text, max(0, start - 16), start)
    return bool(
        after_say
        or _EXAMPLE_START.match(before or text)
        or (before and (_SET_UP.search(before) or _EXAMPLE_START.match(text)))
    )


def paid_by_others(text: str) -> bool:
    return _PAID_BY_OTHERS.search(text) is not None


def share(text: str, start: int) -> bool:
    """The figure at `start` is a percentage's share of an amount, right after the percentage."""
    return _SHARE.search(text, max(0, start - 70), start) is not None


def yearly(text: str, start: int, end: int) -> bool:
    """The figure at [start, end) is twelve months of a monthly amount."""
    return bool(_PER_YEAR.match(text, end) or _TIMES_12.search(text, max(0, start - 25), start))


# A figure that is a plan's own amount, not the quantity named before it: "you keep paying the Part
# B premium even in a $0-premium plan", "$0 plan premium", "a plan with a $0 premium".
_PLAN_AFTER = re.compile(
    r"(?:-|\s)(?:premium[- ])?(?:(?:medicare )?advantage |ma |hmo |ppo |part d |drug )?plans?\b", re.I
)
_PLAN_BEFORE = re.compile(r"\bplans? (?:with|charging|that charges?|at|for) (?:a |an |only |just )?$", re.I)


def plans_own(text: str, start: int, end: int) -> bool:
    """The figure at [start, end) is a plan's own amount ("a $0-premium plan")."""
    return bool(_PLAN_AFTER.match(text, end) or _PLAN_BEFORE.search(text, max(0, start - 40), start))
