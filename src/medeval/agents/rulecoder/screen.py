"""A quick "none of these patterns can match here" for a key item's patterns.

Most clauses match none of an item's patterns, and running every pattern on every clause is most
of the coder's time. A screen settles those clauses cheaply, and never settles one a pattern
would match: it only ever says "cannot match".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from re import _constants as c  # type: ignore[attr-defined]  # the stdlib's own regex parser
from re import _parser  # type: ignore[attr-defined]
from typing import Any

_NEVER = re.compile(r"(?!)")
# Joined patterns must keep their meaning: group numbers shift and a name may repeat.
_UNJOINABLE = re.compile(r"\\\d|\(\?P=|\(\?\(|\(\?P<")


@dataclass(frozen=True)
class Screen:
    """`joined` finds a match exactly when one of the patterns does (None when they cannot be
    joined); `literals`, when known, holds strings one of which (lower-cased, ASCII) is in any text
    one of the patterns matches (case-blind)."""

    joined: re.Pattern[str] | None
    literals: frozenset[str] | None

    def rules_out(self, text: str, folded: str | None = None) -> bool:
        """True when no pattern can match `text`; `folded` is `fold(text)`, when the caller has it
        (one text is screened for every item of the key)."""
        if folded is None:
            folded = fold(text)
        if self.literals is not None and folded and not any(literal in folded for literal in self.literals):
            return True
        return self.joined is not None and self.joined.search(text) is None


def fold(text: str) -> str:
    """The text lower-cased when it is ASCII (a case-blind match of ASCII letters in it is then a
    substring of this), else "" (case folding reaches beyond ASCII: no shortcut)."""
    return text.lower() if text.isascii() else ""


def screen(patterns: tuple[str, ...]) -> Screen:
    """The screen of `patterns`, matched case-blind (as `reading.compile_pattern` does)."""
    if not patterns:
        return Screen(_NEVER, frozenset())
    return Screen(_joined(patterns), _literals(patterns))


def _joined(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    if any(_UNJOINABLE.search(p) for p in patterns):
        return None
    try:
        return re.compile("|".join(f"(?:{p})" for p in patterns), re.I)
    except (re.error, RecursionError):  # RecursionError: nested too deep for the parser
        return None


def _literals(patterns: tuple[str, ...]) -> frozenset[str] | None:
    """Strings one of which any match of any pattern contains; None when a pattern has none."""
    found: set[str] = set()
    for pattern in patterns:
        try:
            needed = required(pattern)
        except Exception:  # an expression this reader does not know: no shortcut, not an error
            return None
        if needed is None:
            return None
        found |= needed
    return frozenset(found)


def required(pattern: str) -> frozenset[str] | None:
    """Strings (lower-cased ASCII) one of which every match of `pattern` contains, or None."""
    return _sequence(list(_parser.parse(pattern, re.I)))


_MIN_LITERAL = 1


def _sequence(items: list[tuple[Any, Any]]) -> frozenset[str] | None:
    """The most selective requirement among the items a match must go through in order."""
    candidates: list[frozenset[str]] = []
    run: list[str] = []

    def close() -> None:
        if len(run) >= _MIN_LITERAL:
            candidates.append(frozenset({"".join(run)}))
        run.clear()

    for op, av in items:
        if op is c.LITERAL and av < 128:
            run.append(chr(av).lower())
            continue
        close()
        need: frozenset[str] | None = None
        if op is c.SUBPATTERN:
            need = _sequence(list(av[3]))
        elif op is c.ATOMIC_GROUP:
            need = _sequence(list(av))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            need = _sequence(list(av[2]))
        elif op is c.BRANCH:
            need = _any_of([_sequence(list(alt)) for alt in av[1]])
        elif op is c.ASSERT:
            # What a look-around must see is in the searched text too.
            need = _sequence(list(av[1]))
        if need:
            candidates.append(need)
    close()
    if not candidates:
        return None
    # The requirement whose shortest string is longest rules out the most texts.
    return max(candidates, key=lambda need: (min(len(s) for s in need), -len(need)))


def _any_of(needs: list[frozenset[str] | None]) -> frozenset[str] | None:
    """A branch needs one of its alternatives' requirements; an alternative without one, none."""
    union: set[str] = set()
    for need in needs:
        if not need:
            return None
        union |= need
    return frozenset(union)
