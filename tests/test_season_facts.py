"""Facts that know their dates: values per plan year, pending values, and figures read against the
year an answer labels them with (issue 24, steps 1 and 2)."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest
from pydantic import ValidationError

from medeval.calls.gateway import Gateway
from medeval.engine.config import RunConfig
from medeval.engine.rescore import judge_answer
from medeval.scenarios.load import load_scenario
from medeval.schemas import Pending, Quantity, Scenario, ShipCategory

from .conftest import SCENARIOS
from .rules_support import contradicted as read_as_wrong

MEDICARE_ONLY = SCENARIOS / "ship_medicare_only.json"


def raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(MEDICARE_ONLY.read_text(encoding="utf-8"))
    return data


def fact(data: dict[str, Any], fact_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(f for f in data["answer_key"]["canonical_facts"] if f["fact_id"] == fact_id)
    return found


def season_2027(data: dict[str, Any]) -> Scenario:
    """The Medicare-only key asking about 2027, with the Part D cap known for both years."""
    data = copy.deepcopy(data)
    data["effective_date"] = "2027-01-01"
    cap = fact(data, "PARTD_CAP_2026")
    cap["year"] = 2027
    [quantity] = cap["patterns"]["quantities"]
    quantity["values"] = []
    quantity["by_year"] = [
        {"year": 2026, "values": ["2100"], "source": "CMS CY2026 Part D Redesign Program Instructions"},
        {
            "year": 2027,
            "values": ["2400"],
            "source": "CMS CY2027 Rate Announcement",
            "source_date": "2026-04-06",
        },
    ]
    return Scenario.model_validate(data)


def contradicted(scenario: Scenario, answer: str, group: str = "QG13") -> set[str]:
    """What the answer contradicts, off QG13's checklist (the cap) included."""
    return read_as_wrong(scenario, group, answer)


def test_the_bundled_keys_load_unchanged_and_ask_about_their_effective_year() -> None:
    scenario = load_scenario(MEDICARE_ONLY)
    assert scenario.asked_year == 2026 and scenario.plan_year is None
    assert all(f.pending is None for f in scenario.canonical_facts)
    assert scenario.pending_items([f.fact_id for f in scenario.canonical_facts], 2026) == {}


def test_a_quantity_holds_values_per_year_and_a_pending_value_has_none() -> None:
    q = Quantity.model_validate(
        {
            "about": ["cap"],
            "unit": "usd",
            "by_year": [
                {"year": 2026, "values": ["2100"], "source": "CMS"},
                {"year": 2027, "pending": {"expected": "2026-11-15", "publisher": "CMS"}},
            ],
        }
    )
    assert q.values_for(2026, 2027) == ["2100"]
    assert isinstance(q.values_for(2027, 2027), Pending)
    assert q.values_for(2025, 2027) is None
    with pytest.raises(ValidationError, match="pending value has no values"):
        Quantity.model_validate(
            {
                "about": ["cap"],
                "unit": "usd",
                "by_year": [
                    {
                        "year": 2027,
                        "values": ["1"],
                        "source": "x",
                        "pending": {"expected": "2026-11-15", "publisher": "CMS"},
                    }
                ],
            }
        )
    with pytest.raises(ValidationError, match="needs values, or by_year"):
        Quantity.model_validate({"about": ["cap"], "unit": "usd"})


def test_the_2027_cap_is_right_in_a_2027_key_and_wrong_in_the_2026_key() -> None:
    answer = "Your out-of-pocket drug cap is $2,400 a year, after which you pay nothing."
    assert "PARTD_CAP_2026" not in contradicted(season_2027(raw()), answer)
    assert "PARTD_CAP_2026" in contradicted(load_scenario(MEDICARE_ONLY), answer)


def test_a_figure_labelled_with_its_year_is_read_against_that_years_value() -> None:
    key = season_2027(raw())
    # The 2026 cap named as 2026's, during the overlap: right about 2026, no claim about 2027.
    assert "PARTD_CAP_2026" not in contradicted(key, "The Part D out-of-pocket cap is $2,100 (2026).")
    assert "PARTD_CAP_2026" not in contradicted(key, "The Part D drug cap is $2,400 in 2027, up from $2,100.")
    # The previous year's value stated as current is stale; a wrong value for a labelled year is wrong.
    assert "PARTD_CAP_2026" in contradicted(key, "The Part D out-of-pocket cap is $2,100.")
    assert "PARTD_CAP_2026" in contradicted(key, "The Part D out-of-pocket cap is $1,900 in 2026.")


def test_a_turn_may_ask_about_next_year() -> None:
    data = copy.deepcopy(raw())
    data["scripted_turns"][5]["plan_year"] = 2027
    scenario = Scenario.model_validate(data)
    assert scenario.group_year("QG13") == 2027 and scenario.group_year("QG1") == 2026


def judge(scenario: Scenario, group: str, answer: str) -> Any:
    config = RunConfig(scenarios=[MEDICARE_ONLY], targets=["fake:accurate"], judges=["rules"], judge_count=2)
    record = asyncio.run(judge_answer(scenario, group, answer, config, Gateway(adapters={})))
    return next(g for g in record.groups if g.question_group == group)


def test_an_item_on_a_pending_value_is_not_scored_and_says_why() -> None:
    data = copy.deepcopy(raw())
    data["effective_date"] = "2027-01-01"
    premium = fact(data, "PARTB_PREMIUM_2026")
    premium["year"] = 2027
    premium["pending"] = {"expected": "2026-11-15", "publisher": "CMS (Part A & B premiums fact sheet)"}
    # Every other Part B premium figure of the key is pending in 2027 too: such figures are not read.
    for other in data["answer_key"]["canonical_facts"]:
        for quantity in (other.get("patterns") or {}).get("quantities", []):
            if "202.90" in quantity["values"]:
                quantity["by_year"] = [
                    {
                        "year": 2026,
                        "values": quantity.pop("values"),
                        "source": "CMS fact sheet, Nov 14, 2025",
                    },
                    {"year": 2027, "pending": {"expected": "2026-11-15", "publisher": "CMS"}},
                ]
    scenario = Scenario.model_validate(data)
    answer = (
        "Premiums vary by plan and many Medicare Advantage plans charge $0. You also keep paying the "
        "Part B premium, which is $150 a month."
    )
    group = judge(scenario, "QG15", answer)
    assert [p.item for p in group.pending] == ["PARTB_PREMIUM_2026"]
    assert "pending" in group.pending[0].reason and "CMS" in group.pending[0].reason
    assert "PARTB_PREMIUM_2026" not in group.required_points
    assert all(d.fact_id != "PARTB_PREMIUM_2026" for d in group.checklist)
    # The wrong premium is not held against the answer: the pending item counts neither way.
    assert group.ship_category != ShipCategory.INCORRECT
    # With the value published, the same answer is wrong.
    published = judge(load_scenario(MEDICARE_ONLY), "QG15", answer)
    assert published.ship_category == ShipCategory.INCORRECT and published.pending == []
