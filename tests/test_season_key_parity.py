"""The seasons' SHIP keys stay in step: a pattern fix made to one season's key (a paraphrase credited,
a wrong rule real chatbots state) is in the other season's key too, unless the pattern names a
figure, which each season keys from its own published value (docs/scenario-authoring.md, "Key
versions")."""

from __future__ import annotations

import re

import pytest

from medeval.agents import rules
from medeval.scenarios.load import load_scenario, season_dir
from medeval.schemas import Label, Scenario

#: A pattern naming a dollar figure, or carving one out ("\$(?!202\.90...)"), is year-specific.
FIGURE = re.compile(r"\\\$(?:\(\?!)?\d")
#: 2026 claims that the 2027 key states under its own id (the same wrong claim).
SAME_CLAIM = {"PROVIDER_SEP_AS_LAW": "NETWORK_SEP_2027"}


def key(name: str, season: str) -> Scenario:
    return load_scenario(season_dir(season) / f"{name}.json")


def pattern_lists(scenario: Scenario) -> dict[tuple[str, str], list[str]]:
    """Every list of patterns in a key, by (fact or claim id, kind)."""
    key_ = scenario.model_dump(mode="json")["answer_key"]
    lists: dict[tuple[str, str], list[str]] = {}
    for fact in key_["canonical_facts"]:
        if fact.get("pending"):
            continue
        for kind, patterns in (fact.get("patterns") or {}).items():
            if isinstance(patterns, list) and all(isinstance(p, str) for p in patterns):
                lists[(fact["fact_id"], kind)] = patterns
    for claim in key_.get("disallowed_claims") or []:
        lists[(SAME_CLAIM.get(claim["claim_id"], claim["claim_id"]), "claim")] = claim["patterns"]
    return lists


@pytest.mark.parametrize("name", ["ship_medicare_only", "ship_dual_eligible"])
def test_every_2026_pattern_without_a_figure_is_in_the_2027_key(name: str) -> None:
    old, new = pattern_lists(key(name, "2026")), pattern_lists(key(name, "2027"))
    missing = [
        (where, pattern[:60])
        for where, patterns in old.items()
        if where in new
        for pattern in patterns
        if not FIGURE.search(pattern) and pattern not in new[where]
    ]
    assert missing == []
    # Every 2026 claim is in the 2027 key, under its own id or the 2027 one.
    assert {w for w in old if w[1] == "claim"} <= set(new)


@pytest.mark.parametrize(
    ("group", "answer", "claim_2026", "claim_2027"),
    [
        (
            "QG18",
            "Your premium statements and pharmacy receipts add up toward the limit.",
            "MOOP_EXCLUSIONS",
            "MOOP_EXCLUSIONS",
        ),
        (
            "QG15",
            "You can call Harborview member services at 1-888-555-0142 to ask.",
            "INVENTED_PLAN_PHONE",
            "INVENTED_PLAN_PHONE",
        ),
        (
            "QG15",
            "You get a special enrollment period if your doctor leaves the plan's network.",
            "PROVIDER_SEP_AS_LAW",
            "NETWORK_SEP_2027",
        ),
    ],
)
def test_a_wrong_rule_caught_in_2026_is_caught_in_2027(
    group: str, answer: str, claim_2026: str, claim_2027: str
) -> None:
    for season, expected in (("2026", claim_2026), ("2027", claim_2027)):
        coded = rules.code_answer(key("ship_medicare_only", season), group, answer)
        found = [e for v in coded.verdicts if v.label == Label.CONTRADICTED for e in v.evidence]
        assert expected in found, (season, found)
