"""The answer key made ready for the rules coder: its patterned items, its quantities, the facts
that are only referrals, and each question group's checklist, vocabulary and foreign items.

All of it is a pure function of the scenario, and working it out (the referral facts most of all)
cost more than reading a group's answer, so it is done once per scenario, not once per answer.
The cache is keyed on the scenario object: the engine loads a scenario once and never changes it.
It holds each scenario it indexes, so an id is never reused while its entry lives.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from medeval.agents.rulecoder.coder import checklist_vocabulary, foreign_items, referral_facts
from medeval.agents.rulecoder.keyed import Keyed, group_items, keyed_items
from medeval.agents.rulecoder.quantities import KeyQuantity, key_quantities
from medeval.agents.rulecoder.stance import content_words
from medeval.schemas import Scenario

# Scenarios indexed at once: a run has a few dozen; past this the oldest entry is dropped.
_CAPACITY = 128


@dataclass(frozen=True)
class GroupIndex:
    items: list[str]
    vocabulary: set[str]
    foreign: frozenset[str]
    #: What a contradiction may be about and settle the group Incorrect: its checklist items, its
    #: partial-credit facts, the facts its rule names as Incorrect and the key's disallowed claims.
    #: None (a group without a checklist): any key item.
    own: frozenset[str] | None = None


@dataclass
class KeyIndex:
    scenario: Scenario
    keyed: list[Keyed]
    quantities: list[KeyQuantity]
    year: int
    referrals: frozenset[str]
    #: The persona's words: a condition that names none of them (nor the fact's) may exclude them.
    persona: frozenset[str] = frozenset()
    _groups: dict[str, GroupIndex] = field(default_factory=dict)

    def group(self, group_id: str) -> GroupIndex:
        found = self._groups.get(group_id)
        if found is None:
            items = group_items(self.scenario, group_id)
            found = GroupIndex(
                items,
                checklist_vocabulary(self.scenario, items),
                foreign_items(self.scenario, group_id),
                self._own(group_id, items),
            )
            self._groups[group_id] = found
        return found

    def _own(self, group_id: str, items: list[str]) -> frozenset[str] | None:
        key = self.scenario.group_key(group_id)
        if key is None:
            return None
        disallowed = {k.item_id for k in self.keyed if k.disallowed}
        return (
            frozenset(items) | frozenset(key.rule.partial_credit) | frozenset(key.rule.incorrect) | disallowed
        )


_INDEXES: dict[int, KeyIndex] = {}


def key_index(scenario: Scenario) -> KeyIndex:
    index = _INDEXES.get(id(scenario))
    if index is not None and index.scenario is scenario:
        return index
    index = KeyIndex(
        scenario,
        keyed_items(scenario),
        key_quantities(scenario),
        scenario.asked_year,
        referral_facts(scenario),
        persona_words(scenario),
    )
    if len(_INDEXES) >= _CAPACITY:
        del _INDEXES[next(iter(_INDEXES))]
    _INDEXES[id(scenario)] = index
    return index


def persona_words(scenario: Scenario) -> frozenset[str]:
    return content_words(" ".join(str(v) for v in scenario.persona.values() if v))
