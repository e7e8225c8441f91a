"""The key side of the probes: a scenario whose facts and checklist items come in another order, and
the known wrong statement a question group's answer can carry."""

from __future__ import annotations

import random

from medeval.calibration.probes.perturb import WrongStatement, material
from medeval.schemas import Scenario


def shuffled_key(scenario: Scenario, seed: int) -> Scenario:
    """The same scenario with the key's facts, disallowed claims, required points and each group's
    checklist items in a seeded order. What they say is untouched; the conversation's turns keep
    their order (that is the script, not the key)."""
    rng = random.Random(seed)
    copy = scenario.model_copy(deep=True)
    key = copy.answer_key

    def mixed(items: list[str]) -> list[str]:
        out = list(items)
        rng.shuffle(out)
        return out

    facts = list(key.canonical_facts)
    rng.shuffle(facts)
    key.canonical_facts = facts
    disallowed = list(key.disallowed_claims)
    rng.shuffle(disallowed)
    key.disallowed_claims = disallowed
    key.required_points = mixed(key.required_points)
    for group in key.question_groups:
        items = list(group.items)
        rng.shuffle(items)
        group.items = items
        group.rule.partial_credit = mixed(group.rule.partial_credit)
    for turn in copy.scripted_turns:
        turn.required_points = mixed(turn.required_points)
    return copy


def wrong_statement(scenario: Scenario, group: str) -> WrongStatement | None:
    """The first fact of the group's Incorrect rule that the probes hold a wrong statement for
    (data/probes.json), or None: that group's answers sit out the position probe."""
    key = scenario.group_key(group)
    if key is None:
        return None
    by_fact = {w.fact_id: w for w in material().wrong_statements}
    for fact_id in key.rule.incorrect:
        if fact_id in by_fact and scenario.fact(fact_id) is not None:
            return by_fact[fact_id]
    return None
