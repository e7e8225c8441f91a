"""Figures an answer states for the key's quantities (`FactPatterns.quantities`).

A stale pattern catches one known wrong value; a quantity catches any: a dollar amount, a length
in months or days, a percentage, an employer size or a date window that the clause states for the
quantity the fact gives (the Part B premium, the Medigap Open Enrollment Period, Open Enrollment's
dates) and that is not the key's value contradicts the fact. A figure is read as the amount of the
quantity named next to it: the nearest naming before it in the clause, or one right after it
("a 12-month Medigap Open Enrollment Period"). When the naming is farther off, the coder is not
sure the figure is that quantity's, and reports a doubt instead of a contradiction.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from medeval.agents.rulecoder.asides import example_figure, paid_by_others, plans_own, share, yearly
from medeval.agents.rulecoder.quantities import KeyQuantity
from medeval.agents.rulecoder.reading import (
    KINDS,
    about_other_quantity,
    compared_against,
    compile_pattern,
    in_range,
    named_as_past,
    names_subject,
    negated_before,
    reported,
    told_as_history,
)
from medeval.agents.rulecoder.seasons import labelled_year, pending_in, values_in
from medeval.agents.rulecoder.text import Clause

Reading = Literal["contradicted", "doubtful"]

_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "fifty": 50,
    "hundred": 100, "one hundred": 100,
}  # fmt: skip
_NUMBER = r"(\d+(?:\.\d+)?|" + "|".join(sorted(_WORDS, key=len, reverse=True)) + r")"
_MONTH_NAMES = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_DAY = (
    r"(?:(?P<{m}>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?P<{d}>\d{{1,2}})"
    r"(?:st|nd|rd|th)?\b|\b(?P<{n}>1[0-2]|0?[1-9])/(?P<{e}>[0-3]?\d)\b)"
)
_JOIN = (
    r"\s*(?:-|\u2013|\u2014|to|through|thru|until|till"
    r"|and(?: (?:ends|closes|runs (?:through|until|to))(?: on)?)?)\s*"
)
FIGURES: dict[str, re.Pattern[str]] = {
    "usd": re.compile(
        r"\$\s?(?P<v>\d{1,3}(?:,\d{3})+|\d+)(?P<c>\.\d{1,2})?(?![\d,]\d|\s?(?:k|m|million|billion)\b)"
        r"|\b(?P<w>\d{1,3}(?:,\d{3})+|\d+)(?P<x>\.\d{1,2})? dollars\b",
        re.I,
    ),
    # "$0 days 1-20" is a price, not a count of days.
    "months": re.compile(rf"(?<!\$)\b{_NUMBER}[- ](?:full )?(?:calendar )?months?\b", re.I),
    "days": re.compile(rf"(?<!\$)\b{_NUMBER}[- ](?:full )?(?:calendar )?days?\b", re.I),
    "percent": re.compile(rf"\b{_NUMBER}\s?(?:%|percent\b)", re.I),
    "employees": re.compile(
        rf"(?:\b(?:at least|more than|fewer than|less than|under|over)\s+{_NUMBER}"
        rf"|\b(?P<v>\d+)\s*(?:\+|or more|or fewer|or less))\s+(?:\w+\s+)?(?:employees|workers|staff)\b",
        re.I,
    ),
    "date_range": re.compile(
        _DAY.format(m="m1", d="d1", n="n1", e="e1")
        + _JOIN
        + r"(?:(?:on|the)\s+)?"
        + _DAY.format(m="m2", d="d2", n="n2", e="e2"),
        re.I,
    ),
}
# One end of a window, named with its verb ("Open Enrollment starts November 1").
_DATE_EDGE = re.compile(
    r"\b(?:(?P<start>starts?|starting|begins?|beginning|opens?|opening|kicks? off|from)"
    r"|(?P<end>ends?|ending|closes?|closing|runs? (?:until|through|till|to)|until|through|thru"
    r"|deadline(?: is)?|by))"
    r"\s+(?:on\s+)?(?:the\s+)?" + _DAY.format(m="m1", d="d1", n="n1", e="e1"),
    re.I,
)
# "about $200", "a bit over $9,000": a rounded figure is right when it is close to the key's.
_APPROXIMATE = re.compile(
    r"\b(?:about|around|roughly|approximately|nearly|almost|close to|over|under|just over|just under|"
    r"a (?:bit|little) (?:over|under|more than|less than)|more than|less than|some)\s*$|~\s*$",
    re.I,
)
_TOLERANCE = 0.05
# A mention this close after a figure names what the figure is the amount of.
# ("$0 after the Part B deductible" is what is paid past it, not the deductible.)
_ADJACENT_AFTER = re.compile(
    r"^(?!.*\b(?:after|before|until|than|beyond|above|below|over|under|toward|towards|once)\b)"
    r"(?:\s*[\w/.'-]+){0,2}?\s*$",
    re.I,
)
# Within this many words after its naming, a figure is surely that quantity's.
_NEAR_WORDS = 8
_EDGE_WORDS = 3
# "changes start January 1" names when coverage takes effect, not when the window opens.
_EFFECTIVE = re.compile(r"\b(?:changes?|coverage|benefits?|(?:new )?plans?|it|they|which)\s+$", re.I)
_YEAR = re.compile(r"\b(20\d\d)\b")


@dataclass(frozen=True)
class FigureFinding:
    quantity: KeyQuantity
    reading: Reading
    start: int
    end: int


def _number(token: str) -> float:
    token = token.lower().replace(",", "")
    return float(_WORDS[token]) if token in _WORDS else float(token)


def figure_value(unit: str, match: re.Match[str]) -> str | float:
    if unit == "date_range":
        return _date_range(match)
    if unit == "usd":
        whole = match.group("v") or match.group("w")
        cents = match.group("c") or match.group("x") or ""
        return _number(whole + cents)
    groups = [g for g in match.groups() if g]
    return _number(groups[0])


def _date_range(match: re.Match[str]) -> str:
    def one(m: str, d: str, n: str, e: str) -> str:
        if match.group(m):
            return f"{_MONTH_NAMES[match.group(m)[:3].lower()]:02d}-{int(match.group(d)):02d}"
        return f"{int(match.group(n)):02d}-{int(match.group(e)):02d}"

    return f"{one('m1', 'd1', 'n1', 'e1')}..{one('m2', 'd2', 'n2', 'e2')}"


def _date_edge(match: re.Match[str]) -> str:
    if match.group("m1"):
        day = f"{_MONTH_NAMES[match.group('m1')[:3].lower()]:02d}-{int(match.group('d1')):02d}"
    else:
        day = f"{int(match.group('n1')):02d}-{int(match.group('e1')):02d}"
    return f"{'start' if match.group('start') else 'end'}:{day}"


def accepted(
    quantity: KeyQuantity, value: str | float, approximate: bool, values: tuple[str, ...] | None = None
) -> bool:
    given = quantity.values if values is None else values
    if isinstance(value, str) and ":" in value:
        edge, day = value.split(":")
        return any(w.split("..")[0 if edge == "start" else 1] == day for w in given)
    if isinstance(value, str):
        return value in given
    for raw in given:
        right = float(raw)
        if abs(value - right) < 0.005:
            return True
        if approximate and right and abs(value - right) / right <= _TOLERANCE:
            return True
        if (
            quantity.multiples
            and right
            and value > right
            and abs(value / right - round(value / right)) < 1e-9
        ):
            return True
    return False


@dataclass(frozen=True)
class _Mention:
    start: int
    end: int
    quantity: KeyQuantity


def _mentions(text: str, quantities: list[KeyQuantity]) -> list[_Mention]:
    out: list[_Mention] = []
    for q in quantities:
        for pattern in q.about:
            out.extend(_Mention(m.start(), m.end(), q) for m in compile_pattern(pattern).finditer(text))
    return out


def _longest_tied(mentions: list[_Mention], key: str) -> list[_Mention]:
    """Mentions sharing the nearest edge, longest first ("Medicare Advantage Open Enrollment"
    before "Open Enrollment")."""
    edge = min(m.start for m in mentions) if key == "start" else max(m.end for m in mentions)
    tied = [m for m in mentions if (m.start if key == "start" else m.end) == edge]
    return sorted(tied, key=lambda m: m.start - m.end)


# Words that open a new clause between a naming and a figure: the figure may be another thing's
# ("the Initial Enrollment Period is open because you turn 65 in two months").
# "Within" opens a window before another event ("enter the SNF within 30 days of leaving the
# hospital"), not the quantity's own length.
_NEW_CLAUSE = re.compile(
    r"\b(?:because|since|as|when|whenever|if|once|after|before|until|unless|while|although|though|"
    r"so|which means|meaning|within)\b",
    re.I,
)
# A table cell labelled by its column's header ("Part B coinsurance, Plan K: 50%"): the figure is
# the column's (what Plan K pays), not surely the row's quantity; a year header ("2026: $202.90")
# still dates the row's own figure.
_COLUMN_LABEL = re.compile(r",\s*[^,:\d]+:\s*$")


def _bound(
    text: str, unit: str, start: int, end: int, mentions: list[_Mention], rivals: list[_Mention]
) -> tuple[list[_Mention], bool] | None:
    """The mentions the figure at [start, end) is read with (the longest first), and whether they
    are near enough to be sure the figure is their quantity's."""
    inside = [m for m in mentions if m.start <= start and end <= m.end]
    if inside:
        return sorted(inside, key=lambda m: m.start - m.end), True
    after = [m for m in mentions if m.start >= end and _ADJACENT_AFTER.match(text[end : m.start])]
    if after:
        return _longest_tied(after, "start"), True
    before = [m for m in mentions if m.end <= start]
    if not before:
        return None
    tied = _longest_tied(before, "end")
    gap = text[tied[0].end : start]
    abouts = {m.quantity.about for m in tied}
    # Another quantity named between them takes the figure; so does another kind of amount ("the
    # Part B premium is $202.90 and the deductible $257": the $257 is no premium).
    if any(tied[0].end <= m.start and m.end <= start and m.quantity.about not in abouts for m in rivals):
        return None
    named = text[tied[0].start : tied[0].end]
    if any(p.search(gap) and not p.search(named) for p in KINDS.values()):
        return None
    words = len(FIGURES[unit].sub(" ", gap).split())
    return tied, words <= _NEAR_WORDS and not _NEW_CLAUSE.search(gap) and not _COLUMN_LABEL.search(gap)


def _gives_value(text: str, unit: str, quantity: KeyQuantity, year: int, figure: re.Match[str]) -> bool:
    """A dollar figure after the quantity's right value in the same clause is derived from it."""
    if unit != "usd":
        return False
    right = _compared_values(quantity, year)
    return any(
        other.end() <= figure.start() and accepted(quantity, figure_value(unit, other), False, right)
        for other in FIGURES[unit].finditer(text)
    )


def _right_value_before(
    text: str, unit: str, quantity: KeyQuantity, year: int, figure: re.Match[str]
) -> bool:
    """The clause gives the quantity's right value before this figure."""
    right = _compared_values(quantity, year)
    return any(
        other.end() <= figure.start()
        and accepted(
            quantity, _date_edge(other) if other.re is _DATE_EDGE else figure_value(unit, other), False, right
        )
        for other in _figures(unit, text)
    )


def _figures(unit: str, text: str) -> list[re.Match[str]]:
    """The unit's figures in the text; for dates, also a window's single end named with its verb."""
    found = list(FIGURES[unit].finditer(text))
    if unit == "date_range":
        found += [
            e
            for e in _DATE_EDGE.finditer(text)
            if not any(r.start() < e.end() and e.start() < r.end() for r in found)
        ]
    return found


def _other_year(text: str, current_year: int) -> bool:
    return any(int(y) != current_year for y in _YEAR.findall(text))


def _compared_values(quantity: KeyQuantity, year: int) -> tuple[str, ...] | None:
    """The values a figure of plan `year` is read against (None: pending or unknown there)."""
    if not quantity.years:
        return quantity.values
    return values_in(quantity.years, year)


def read_figures(
    clause: Clause, quantities: list[KeyQuantity], current_year: int, before: str = ""
) -> Iterator[FigureFinding]:
    """Each figure in the clause stated for one of the key's quantities with a value the key does
    not give: contradicted when its naming is close, doubtful when it is farther off. `before` is
    the sentence's text before the clause (where a clause naming no subject takes one)."""
    text = clause.text
    if clause.role == "comparison" or not quantities:
        return
    mentions = _mentions(text, quantities)
    if not mentions:
        return
    for unit in {q.unit for q in quantities}:
        unit_mentions = [m for m in mentions if m.quantity.unit == unit]
        if not unit_mentions:
            continue
        for match in _figures(unit, text):
            bound = _bound(text, unit, match.start(), match.end(), unit_mentions, mentions)
            if bound is None:
                continue
            tied, sure = bound
            # A window's single end is read only right after the window's name ("Open Enrollment
            # starts November 1"), not "coverage starting January 1" further on.
            if match.re is _DATE_EDGE and (
                not (
                    tied[0].end <= match.start()
                    and len(text[tied[0].end : match.start()].split()) <= _EDGE_WORDS
                )
                or _EFFECTIVE.search(text[: match.start()])
            ):
                continue
            # A figure labelled with another plan year is read against that year's value when
            # the key gives it ("$1,900 in 2026" is wrong about 2026); else as the past, as before.
            labelled = labelled_year(text, match.start(), match.end())
            year = labelled if labelled is not None and labelled != current_year else current_year
            known = {id(m): _compared_values(m.quantity, year) for m in tied}
            if year != current_year and not any(v for v in known.values()):
                if labelled is not None and labelled > current_year:
                    continue  # a later year's figure the key cannot check says nothing of now
                year = current_year
            # A quantity whose value in that year is pending reads no figure.
            tied = [m for m in tied if not pending_in(m.quantity.years, year)]
            if not tied:
                continue
            if unit == "date_range" and (
                told_as_history(text, match.start(), current_year) or reported(text, match.start())
            ):
                continue
            if unit != "date_range" and (
                (year == current_year and named_as_past(text, match, current_year))
                or (unit == "usd" and in_range(text, match))
                or compared_against(text, match.start())
                or negated_before(text, match.start())
                or reported(text, match.start())
                or example_figure(text, match.start(), before)
                or (unit == "usd" and share(text, match.start()))
                or (unit == "usd" and figure_value(unit, match) == 0 and paid_by_others(text))
                or (unit == "usd" and plans_own(text, match.start(), match.end()))
            ):
                continue
            tied = [
                m
                for m in tied
                if unit == "date_range" or not about_other_quantity(text, match, m.quantity.statement, before)
            ]
            near = text[max(0, match.start() - 40) : match.end() + 20]
            if year != current_year:
                tied = [m for m in tied if known.get(id(m))]
            elif _other_year(near, current_year):
                continue
            if not tied:
                continue
            approximate = bool(_APPROXIMATE.search(text[: match.start()]))
            value = _date_edge(match) if match.re is _DATE_EDGE else figure_value(unit, match)
            # "$2,434.80 a year" is twelve months of a monthly amount.
            monthly = (
                round(value / 12, 2)
                if isinstance(value, float) and yearly(text, match.start(), match.end())
                else None
            )
            if any(
                accepted(m.quantity, value, approximate, _compared_values(m.quantity, year))
                or (
                    monthly is not None
                    and accepted(m.quantity, monthly, approximate, _compared_values(m.quantity, year))
                )
                for m in tied
            ):
                continue
            # Named loosely: a rounded figure, or a value the key gives for another quantity of the
            # same unit, is no doubt. Named closely but by a name two quantities share ("out-of-pocket
            # cap: $2,100" with no subject named is the Part D cap, not the Advantage limit), such a value
            # is a doubt.
            if not sure and (
                approximate or any(accepted(o, value, approximate) for o in quantities if o.unit == unit)
            ):
                continue
            if sure and not names_subject(text):
                sure = not any(
                    accepted(o, value, approximate, _compared_values(o, year))
                    for o in quantities
                    if o.unit == unit and all(o is not m.quantity for m in tied)
                )
            # A clause that already gives the quantity's right value derives the others from it
            # ("at $202.90, a 20% penalty is about $40.58 a month"; "after the $283 deductible,
            # usually $0"): they are not that quantity's amount.
            tied = [m for m in tied if not _gives_value(text, unit, m.quantity, year, match)]
            # A fact with two windows: after Open Enrollment's right dates, "or ... from January 1 to
            # March 31" is the other window, right for the fact ("Open Enrollment runs January 1
            # through March 31" alone stays wrong).
            tied = [
                m
                for m in tied
                if not (
                    _right_value_before(text, unit, m.quantity, year, match)
                    and any(
                        accepted(o, value, approximate, _compared_values(o, year))
                        for o in quantities
                        if o is not m.quantity
                        and o.unit == unit
                        and set(o.fact_ids) & set(m.quantity.fact_ids)
                    )
                )
            ]
            for m in tied:
                yield FigureFinding(
                    m.quantity, "contradicted" if sure else "doubtful", match.start(), match.end()
                )
