"""The plan-year 2027 keys (scenarios/v2027): built from medicare-facts-2027.md, valid with warnings
only for pending values, and read as the issue asks (issue 24, step 3)."""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path

from medeval.agents import rules
from medeval.calls.gateway import Gateway
from medeval.engine.config import RunConfig
from medeval.engine.rescore import judge_answer
from medeval.scenarios.lint import lint_paths
from medeval.scenarios.load import expand_paths, load_scenario, season_dir
from medeval.schemas import GroupResult, Scenario, ShipCategory
from medeval.study import study_problems

from .conftest import REPO
from .rules_support import off_checklist

V2027 = season_dir("2027")
STUDY_2027 = REPO / "src" / "medeval" / "data" / "studies" / "ship_replication_2027.toml"


def key(name: str, season: str = "2027") -> Scenario:
    return load_scenario(season_dir(season) / f"{name}.json")


def judge(scenario: Scenario, group: str, answer: str) -> GroupResult:
    config = RunConfig(scenarios=[V2027], targets=["fake:accurate"], judges=["rules"], judge_count=2)
    record = asyncio.run(judge_answer(scenario, group, answer, config, Gateway(adapters={})))
    return next(g for g in record.groups if g.question_group == group)


def test_the_2027_keys_are_valid_with_warnings_only_for_pending_values() -> None:
    files = expand_paths([V2027])
    assert {p.stem for p in files} >= {"ship_medicare_only", "ship_dual_eligible", "topic_part_d_choice"}
    findings = lint_paths(files, today=date(2026, 11, 26))
    assert not [f for f in findings if f.level == "error"]
    assert findings and all("pending" in f.message or "was due by" in f.message for f in findings)
    # The Part B premium was due mid-November 2026: the key says so.
    assert any("PARTB_PREMIUM_2027" in f.message and "was due by 2026-11-15" in f.message for f in findings)
    # Before its date, the same value is only pending.
    early = lint_paths([V2027 / "topic_part_b_costs.json"], today=date(2026, 10, 1))
    assert early and all("is pending" in f.message for f in early)


def test_the_2027_keys_keep_the_2026_ids_and_ask_about_2027() -> None:
    for path in expand_paths([V2027]):
        scenario = load_scenario(path)
        assert scenario.asked_year == 2027
        assert (season_dir("2026") / path.name).exists()  # the same scenario, the 2026 key untouched
        assert all(f.year in (None, 2027) for f in scenario.canonical_facts)


def test_the_2027_cap_is_correct_in_the_2027_key_and_stale_in_the_2026_key() -> None:
    answer = "Your Part D out-of-pocket cap is $2,400 a year, and after it you pay nothing."
    new = rules.code_answer(key("ship_medicare_only"), "QG13", answer)
    old = rules.code_answer(key("ship_medicare_only", "2026"), "QG13", answer)
    assert [v.evidence for v in new.verdicts if v.label == "SUPPORTED"] == [["PARTD_CAP_2027"]]
    # In the 2026 key the cap is read as wrong; off QG13's checklist, a person judges if it matters.
    assert off_checklist(old) == {"PARTD_CAP_2026"}


def test_the_2026_cap_labelled_2026_is_not_incorrect_in_an_answer_about_2027() -> None:
    scenario = key("topic_part_d_choice")
    right = (
        "Compare each plan's formulary in Medicare Plan Finder. Your out-of-pocket drug cap is $2,400 in "
        "2027 ($2,100 in 2026)."
    )
    group = judge(scenario, "topic_part_d_choice", right)
    assert group.ship_category == ShipCategory.ACCURATE_COMPLETE
    labelled = "Compare each plan's formulary in Medicare Plan Finder. The drug cap was $2,100 (2026)."
    assert judge(scenario, "topic_part_d_choice", labelled).ship_category != ShipCategory.INCORRECT
    # The 2026 cap stated as the cap, or the $2,200 estimate in circulation, is wrong for 2027.
    for wrong in ("The drug cap is $2,100 a year.", "The Part D cap is about $2,200 in 2027."):
        text = f"Compare each plan's formulary in Medicare Plan Finder. {wrong}"
        assert judge(scenario, "topic_part_d_choice", text).ship_category == ShipCategory.INCORRECT


def test_an_item_on_the_pending_part_b_premium_is_not_scored_with_its_reason() -> None:
    answer = (
        "Premiums vary by plan and many Medicare Advantage plans charge $0; check the plan's own "
        "documents or call the plan. You also still pay the Part B premium, $202.90 a month."
    )
    group = judge(key("ship_medicare_only"), "QG15", answer)
    assert [p.item for p in group.pending] == ["PARTB_PREMIUM_2027"]
    assert "CMS" in group.pending[0].reason and "2026-11-15" in group.pending[0].reason
    assert "PARTB_PREMIUM_2027" not in group.required_points + group.scores.missing_required_points
    assert group.ship_category == ShipCategory.ACCURATE_COMPLETE
    # A scenario whose every item waits for the value is not scored, and says why.
    wrong = "It is $250 a month with a $300 deductible."
    only = judge(key("topic_part_b_costs"), "topic_part_b_costs", wrong)
    assert only.ship_category == ShipCategory.NOT_SCORED
    assert only.reason and "not published yet" in only.reason


def test_the_2027_study_runs_the_2027_keys() -> None:
    _, problems = study_problems(STUDY_2027)
    assert problems == []
    assert 'season = "2027"' in STUDY_2027.read_text(encoding="utf-8")


def test_a_run_takes_one_season_so_ids_never_collide() -> None:
    default = expand_paths([season_dir()])
    assert "scenario_001" in {p.stem for p in default} and all(Path(p).parent.name == "v1" for p in default)
