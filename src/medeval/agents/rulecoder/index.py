"""The answer key made ready for the rules coder: its patterned items, its quantities, the facts
that are only referrals, and each question group's checklist, vocabulary and foreign items.

All of it is a pure function of the scenario, and working it out (the referral facts most of all)
cost more than reading a group's answer, so it is done once per scenario, not once per answer.
The cache is keyed on the scenario object: the engine loads a scenario once and never changes it.
It holds each scenario it indexes, so an id is never reused while its entry lives.
"""

from __future__ import annotations

import re
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
    #: In a group whose rule names no invented specific (a general question: "how do Advantage
    #: plans differ?"), the key's disallowed claims do not settle it in a sentence that speaks of a
    #: plan without naming one (`KeyIndex.plan_in_general`): "the plan premium may be $0" there is
    #: about plans in general as often as not.
    unnamed: frozenset[str] = frozenset()


@dataclass
class KeyIndex:
    scenario: Scenario
    keyed: list[Keyed]
    quantities: list[KeyQuantity]
    year: int
    referrals: frozenset[str]
    #: The persona's words: a condition that names none of them (nor the fact's) may exclude them.
    persona: frozenset[str] = frozenset()
    #: What names the persona's plan (`plan_names`).
    plan: re.Pattern[str] | None = None
    _groups: dict[str, GroupIndex] = field(default_factory=dict)

    def group(self, group_id: str) -> GroupIndex:
        found = self._groups.get(group_id)
        if found is None:
            items = group_items(self.scenario, group_id)
            found = GroupIndex(
                items,
                checklist_vocabulary(self.scenario, items),
                foreign_items(self.scenario, group_id),
                *self._own(group_id, items),
            )
            self._groups[group_id] = found
        return found

    def plan_in_general(self, text: str) -> bool:
        """Whether the sentence speaks of "the plan" or "a plan" without naming one (`plan_names`)."""
        return _SOME_PLAN.search(text) is not None and (self.plan is None or not self.plan.search(text))

    def _own(self, group_id: str, items: list[str]) -> tuple[frozenset[str] | None, frozenset[str]]:
        """The group's `GroupIndex.own` and `GroupIndex.unnamed`."""
        key = self.scenario.group_key(group_id)
        if key is None:
            return None, frozenset()
        disallowed = frozenset(k.item_id for k in self.keyed if k.disallowed)
        named = frozenset(key.rule.incorrect)
        own = frozenset(items) | frozenset(key.rule.partial_credit) | named | disallowed
        return own, frozenset() if named & disallowed else disallowed


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
        plan_names(scenario),
    )
    if len(_INDEXES) >= _CAPACITY:
        del _INDEXES[next(iter(_INDEXES))]
    _INDEXES[id(scenario)] = index
    return index


# "the plan premium", "a $0 plan", "this plan's copay": a plan not named ("a Plan G policy" is a
# Medigap letter, named).
_SOME_PLAN = re.compile(
    r"\b(?:the|this|that|a|an|any|each|every|such a)\s+(?:[\w$-]+\s+)?plan(?:'s)?\b(?!\s+[A-N]\b)", re.I
)
# "your plan", "your friend's plan" or the plan the persona names ("Harborview").
_YOUR_PLAN = r"\byour (?:friend'?s )?(?:\w+ )?plan\b"


# A plan named as a brand ("Buckeye Example Dual Complete", "Example Rx Saver"), not a kind of plan.
_BRAND = (
    r"(?-i:\b(?!(?:Medicare|Original|Traditional|The|A|An|Your|Regular|Standard|Dual|Special|Part)\b)"
    r"[A-Z][\w-]+(?: [A-Z][\w-]+)* (?:Dual|Advantage|Complete|Choice|Plus|Select|Saver|Care|Connect|"
    r"Prime|Value|Premier|Secure|Access|Rx|HMO|PPO)\b)"
)


def plan_names(scenario: Scenario) -> re.Pattern[str]:
    """What names a plan in a sentence: "your plan", the first word of the name of the plan the
    persona heard about, or a brand name."""
    named = str(scenario.persona.get("plan_heard_about") or "").split("(")[0].split()
    words = [re.escape(named[0])] if named else []
    return re.compile("|".join([_YOUR_PLAN, _BRAND, *(rf"\b{w}\b" for w in words)]), re.I)


def persona_words(scenario: Scenario) -> frozenset[str]:
    return content_words(" ".join(str(v) for v in scenario.persona.values() if v))
