"""Where an invented plan specific is not one: an instruction to check ("make sure the plan
includes drug coverage"), an example the answer sets up ("Plan A:", "for example", "Suppose a
plan's limit were $6,000"), which is not the persona's named plan, and a program-wide amount named
beside the plan ("count toward the Part D cap, which is $2,100")."""

from __future__ import annotations

import re

from medeval.agents.rulecoder.figures import FIGURES, accepted, figure_value
from medeval.agents.rulecoder.quantities import KeyQuantity
from medeval.agents.rulecoder.structure import Sentence

# An instruction to check before an invented specific: "make sure the plan includes drug coverage",
# "it's worth confirming that ..." tells the reader what to look up; it asserts nothing.
CHECKING = re.compile(
    r"\b(?:make sure|ensure|confirm\w*|verify\w*|check\w*|double-check\w*|find out|see|look (?:up|for|at)|"
    r"worth (?:asking|checking|confirming)|ask|compare)\s+(?:(?:also|first|again|carefully)\s+)?"
    r"(?:that|whether|if|about|the plan|this plan|harborview|it|d-?snps?|plans|options|what)\b|"
    # "make sure each of your medicines is on the formulary": these verbs only ever instruct.
    r"\b(?:mak(?:e|es|ing) sure|ensur(?:e|es|ing)|double-check\w*)\b",
    re.I,
)


# A labelled or hypothetical example plan ("Plan A: $0 premium ...", "for example, one plan might
# ...", under an "Example" heading) illustrates how plans differ; it invents nothing about the
# persona's plan unless it names that plan ("your plan", "this plan", its name).
_EXAMPLE = re.compile(
    r"^\W*(?:plan|option) (?:[a-z]|\d|one|two|three)\W*:|\bfor (?:example|instance)\b|\be\.g\.|"
    # "example" in lower case, or opening a label: "Harborview Example Advantage" is a name.
    r"\bhypothetical(?:ly)?\b|(?-i:\bexamples?\b)|^\W*example\W*:|\bimagine\b|\bsuppose\b|"
    r"\b(?:let's )?say (?:two|one|a|you|\$)|"
    r"\bone plan (?:might|may|could)\b",
    re.I,
)
_YOUR_PLAN = re.compile(r"\b(?:your|this|that) (?:[\w']+ )?plan\b", re.I)
_THIS_PLAN = re.compile(r"\b(?:your|this|that|the|its) (?:[\w']+ )?plan\b", re.I)
_NAME = re.compile(r"\b[A-Z][a-z]{3,}\b")
# Words a plan's name shares with the words around any example.
_COMMON_NAME_WORDS = frozenset({"plan", "medicare", "example", "advantage", "part"})


def example_lead(unit: Sentence) -> bool:
    """The sentence is under a lead-in or heading that sets up an example ("Here's a simplified
    example. Suppose a plan's limit were $6,000"): its figures are the example's."""
    around = " ".join(p.text for p in (unit.heading, unit.lead) if p is not None)
    return bool(around) and _EXAMPLE.search(around) is not None


# "A $0 Advantage plan means I pay nothing." -> "The plan premium is $0": "the plan" is the plan just
# named with "a", any such plan, not the persona's.
_SOME_PLAN = re.compile(r"\b(?:a|an|any)\s+(?:\$?[\w'-]+\s+){0,3}plan\b", re.I)
_THE_PLAN = re.compile(r"^\W*the plan\b", re.I)


def example_plan(unit: Sentence, clause: str, persona: frozenset[str]) -> bool:
    context = unit.context.text if unit.context is not None else ""
    if _THE_PLAN.match(clause) and _SOME_PLAN.search(context) and not _YOUR_PLAN.search(context):
        return not (_named(clause) & persona) and not (_named(context) & persona)
    in_example = example_lead(unit)
    if not (in_example or _EXAMPLE.search(unit.text)):
        return False
    # Under an example's lead-in, "the plan" is the example's plan; "your plan" is still yours.
    this_plan = _YOUR_PLAN if in_example else _THIS_PLAN
    return not this_plan.search(clause) and not (_named(clause) & persona)


def _named(text: str) -> set[str]:
    """The capitalised words that could name a plan."""
    return {w.lower() for w in _NAME.findall(text)} - _COMMON_NAME_WORDS


def names_key_value(text: str, start: int, end: int, quantities: list[KeyQuantity]) -> bool:
    """Whether each dollar figure in [start, end) is a program-wide amount the key gives ("count
    toward the Part D cap, which is $2,100"), not one invented for the plan."""
    usd = [q for q in quantities if q.unit == "usd"]
    figures = [m for m in FIGURES["usd"].finditer(text) if start <= m.start() < end]
    return bool(figures and usd) and all(
        figure_value("usd", m) != 0  # too common to tell a program's amount from the plan's
        and _GENERAL_AMOUNT.search(text, max(start, m.start() - 60), m.start())
        and any(accepted(q, figure_value("usd", m), False) for q in usd)
        for m in figures
    )


# What names a program-wide amount rather than the plan's own.
_GENERAL_AMOUNT = re.compile(
    r"\b(?:part [abd]|cap|ceiling|federal|medicare's|standard|maximum|by law|the law)\b", re.I
)
