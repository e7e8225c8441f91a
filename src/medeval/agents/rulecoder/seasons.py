"""Which of a key quantity's values a figure is read against: the year the answer labels it with
("$2,100 in 2026", "$2,100 (2026)"), else the plan year the question asks about. A year whose value
is pending, or that the key does not know, is not read at all: no figure is scored against a guess."""

from __future__ import annotations

import re

from medeval.schemas import Quantity

#: Per plan year, the accepted values; None when that year's value is pending.
YearValues = tuple[tuple[int, tuple[str, ...] | None], ...]

# A year right after the figure: "$2,100 in 2026", "$2,100 (2026)", "$2,100 for 2026".
_AFTER = re.compile(r"^\s*(?:\(\s*(?:in |for |as of )?|,?\s*(?:in|for|during) )(20\d\d)\b", re.I)
# A year that opens the figure's clause: "In 2026 the cap is $2,100", "2026: $2,100", "the 2026 cap
# of $2,100", "for 2027, ... $2,400".
_BEFORE = re.compile(
    r"(?:\b(?:in|for|during) (20\d\d)\b|\b(20\d\d)(?:'s)?(?::| [a-z]+))(?:[^.;!?()]|\.\d){0,40}?$", re.I
)


def year_values(quantity: Quantity, asked: int) -> YearValues:
    """The quantity's values by plan year: its `by_year` entries (a window counts for each year it
    spans, open ends at the asked year), and `values` for the asked year unless an entry gives it."""
    out: dict[int, tuple[str, ...] | None] = {}
    for dated in quantity.by_year:
        values = None if dated.pending is not None else tuple(dated.values)
        if dated.year is not None:
            out[dated.year] = values
            continue
        first = dated.valid_from.year if dated.valid_from else asked
        last = dated.valid_to.year if dated.valid_to else max(first, asked)
        for year in range(first, last + 1):
            out.setdefault(year, values)
    if quantity.values and asked not in out:
        out[asked] = tuple(quantity.values)
    return tuple(sorted(out.items()))


def values_in(years: YearValues, year: int) -> tuple[str, ...] | None:
    """The values to compare a figure of `year` against; None when pending or unknown."""
    return dict(years).get(year)


def pending_in(years: YearValues, year: int) -> bool:
    found = dict(years)
    return year in found and found[year] is None


def labelled_year(text: str, start: int, end: int) -> int | None:
    """The year the answer labels the figure at [start, end) with, if any."""
    after = _AFTER.match(text[end:])
    if after:
        return int(after.group(1))
    before = _BEFORE.search(text[:start])
    if before:
        return int(before.group(1) or before.group(2))
    return None
