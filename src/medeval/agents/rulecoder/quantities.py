"""The key's quantities (`FactPatterns.quantities`): each with the facts that state it, its unit and
its values per plan year, as the figure reader (figures.py) reads an answer's figures against them."""

from __future__ import annotations

from dataclasses import dataclass

from medeval.agents.rulecoder.seasons import YearValues, values_in, year_values
from medeval.schemas import Scenario, Severity


@dataclass(frozen=True)
class KeyQuantity:
    """One quantity of the key, with the facts that state it."""

    fact_ids: tuple[str, ...]
    severity: Severity
    statement: str
    about: tuple[str, ...]
    unit: str
    values: tuple[str, ...]
    multiples: bool
    #: The values per plan year (None: pending); `values` are the asked year's.
    years: YearValues = ()


def key_quantities(scenario: Scenario) -> list[KeyQuantity]:
    out = []
    asked = scenario.asked_year
    for fact in scenario.canonical_facts:
        # A fact that rests on a pending value is not read: no figure is scored against a guess.
        if fact.patterns is None or fact.pending is not None:
            continue
        for q in fact.patterns.quantities:
            years = year_values(q, asked)
            out.append(
                KeyQuantity(
                    (fact.fact_id,),
                    fact.severity_if_wrong,
                    fact.statement,
                    tuple(q.about),
                    q.unit,
                    values_in(years, asked) or (),
                    q.multiples,
                    years,
                )
            )
    return out
