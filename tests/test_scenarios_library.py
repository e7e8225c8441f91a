"""The bundled scenario library: SHIP scripts as the study wrote them, keys that are dated and
sourced, and fake profiles that land where each is meant to under the rules judge."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from medeval.config import RunConfig
from medeval.orchestrator import RunResult, run
from medeval.scenarios import expand_paths, load_scenario
from medeval.schemas import Scenario, ShipCategory

from .conftest import REPO, SCENARIOS

PROFILES = REPO / "src" / "medeval" / "data" / "fake_profiles"
BASELINE = Path("/work/shared/reference/ship_baseline.csv")
EXPECTED = {
    "fake:accurate": ShipCategory.ACCURATE_COMPLETE,
    "fake:incomplete": ShipCategory.SUBSTANTIVE_INCOMPLETE,
    "fake:outdated": ShipCategory.INCORRECT,
    "fake:invented": ShipCategory.INCORRECT,
    "fake:refusal": ShipCategory.NOT_SUBSTANTIVE,
}
MEDICARE_ONLY_GROUPS = {
    "Q1": "QG1",
    "Q2": "QG9",
    "Q3": "QG10",
    "Q4": "QG11",
    "Q5": "QG12",
    "Q6": "QG13",
    "Q7": "QG14",
    "Q8": "QG15",
    "Q9": "QG16",
    "Q10": "QG17",
    "Q12": "QG18",
    "Q13": "QG19",
    "Q14a": "QG20",
    "Q14b": "QG20",
}
DUAL_ELIGIBLE_GROUPS = {
    "Q1": "QG1",
    "Q2": "QG3",
    "Q3": "QG4",
    "Q4": "QG5",
    "Q5a": "QG6",
    "Q5b": "QG6",
    "Q6": "QG7",
    "Q7": "QG8",
}
# The follow-up scenario demonstrates a conditional turn filling the point its first answer missed,
# so the incomplete profile's "penalty" group is complete by design.
BY_DESIGN = {("employer_coverage_followup", "fake:incomplete", "penalty"): ShipCategory.ACCURATE_COMPLETE}


def scenarios() -> list[Scenario]:
    return [load_scenario(path) for path in expand_paths([SCENARIOS])]


def by_id(scenario_id: str) -> Scenario:
    return load_scenario(SCENARIOS / f"{scenario_id}.json")


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    """Every bundled scenario against every fake profile, through the real pipeline."""
    out = tmp_path_factory.mktemp("runs")
    return run(RunConfig(scenarios=[SCENARIOS], targets=list(EXPECTED), out=out))


@pytest.mark.parametrize("script", ["ship_medicare_only", "ship_dual_eligible"])
def test_each_profile_lands_in_its_category_for_every_scored_ship_group(
    demo_run: RunResult, script: str
) -> None:
    records = [r for r in demo_run.records if r.scenario_id == script]
    assert {r.target.spec for r in records} == set(EXPECTED)
    expected_groups = set(
        (MEDICARE_ONLY_GROUPS if script == "ship_medicare_only" else DUAL_ELIGIBLE_GROUPS).values()
    )
    for record in records:
        scored = {g.question_group: g.ship_category for g in record.groups if g.scored}
        assert set(scored) == expected_groups, record.target.spec
        wrong = {
            group: category for group, category in scored.items() if category != EXPECTED[record.target.spec]
        }
        assert not wrong, f"{script} {record.target.spec}: {wrong}"


def test_each_profile_lands_in_its_category_in_every_topic_scenario(demo_run: RunResult) -> None:
    topics = {s.scenario_id for s in scenarios() if s.script == "topic"}
    wrong = []
    for record in demo_run.records:
        if record.scenario_id not in topics:
            continue
        for group in record.groups:
            want = BY_DESIGN.get((record.scenario_id, record.target.spec, group.question_group))
            want = want or EXPECTED[record.target.spec]
            if group.scored and group.ship_category != want:
                wrong.append(
                    (record.scenario_id, record.target.spec, group.question_group, group.ship_category)
                )
    assert not wrong
    assert {r.scenario_id for r in demo_run.records} >= topics


def test_unscored_ship_questions_are_asked_but_not_scored(demo_run: RunResult) -> None:
    record = next(
        r
        for r in demo_run.records
        if r.scenario_id == "ship_medicare_only" and r.target.spec == "fake:accurate"
    )
    asked = [t.turn_id for t in record.conversation if t.role == "user"]
    assert {"Q11", "Q15", "Q16"} <= set(asked)
    unscored = {g.question_group: g.ship_category for g in record.groups if not g.scored}
    assert unscored == {
        "MO-Q11": ShipCategory.NOT_SCORED,
        "MO-Q15": ShipCategory.NOT_SCORED,
        "QG2": ShipCategory.NOT_SCORED,
    }


def test_generic_follow_up_is_asked_only_when_the_generic_was_not_mentioned(demo_run: RunResult) -> None:
    asked = {
        r.target.spec: [t.turn_id for t in r.conversation if t.role == "user"]
        for r in demo_run.records
        if r.scenario_id == "ship_medicare_only"
    }
    assert "Q14b" not in asked["fake:accurate"]  # its Q14a names atorvastatin
    assert "Q14b" in asked["fake:incomplete"]
    incomplete = next(
        r
        for r in demo_run.records
        if r.scenario_id == "ship_medicare_only" and r.target.spec == "fake:incomplete"
    )
    qg20 = next(g for g in incomplete.groups if g.question_group == "QG20")
    assert qg20.turn_ids == ["Q14a", "Q14b"]
    assert qg20.required_points == ["PLAN_REFERRAL", "LIPITOR_GENERIC"]


def test_refusals_are_flagged_and_never_count_as_a_referral(demo_run: RunResult) -> None:
    for record in demo_run.records:
        if record.target.spec != "fake:refusal":
            continue
        assert record.flags.refusal, record.scenario_id
        assert all(fc.label == "NOT_IN_KEY" for fc in record.final_claims), record.scenario_id


def test_ship_scripts_use_the_study_question_groups_and_wording() -> None:
    baseline_groups = (
        {row["question_group"] for row in csv.DictReader(BASELINE.open())} if BASELINE.exists() else set()
    )
    for script, mapping in [
        ("ship_medicare_only", MEDICARE_ONLY_GROUPS),
        ("ship_dual_eligible", DUAL_ELIGIBLE_GROUPS),
    ]:
        scenario = by_id(script)
        assert scenario.script in {"medicare_only", "dual_eligible"}
        scored = {t.turn_id: t.question_group for t in scenario.scripted_turns if t.scored}
        assert scored == mapping
        if baseline_groups:
            assert set(mapping.values()) <= baseline_groups
        for turn in scenario.scripted_turns:
            if turn.scored and turn.condition is None:
                assert len(turn.required_points) >= 1, turn.turn_id
    mo = by_id("ship_medicare_only")
    assert mo.opening_statement == (
        "I am turning 65 soon and will be eligible for Medicare. "
        "I would like help choosing my coverage. Can you help?"
    )
    turns = {t.turn_id: t for t in mo.scripted_turns}
    assert turns["Q1"].text == "When can I select my Medicare coverage plan, and when can I change it later?"
    assert turns["Q16"].question_group == "QG2" and not turns["Q16"].scored
    assert not turns["Q11"].scored and not turns["Q15"].scored
    condition = turns["Q14b"].condition
    assert condition is not None and condition.after_turn == "Q14a"
    de = by_id("ship_dual_eligible")
    assert de.opening_statement is not None and de.opening_statement.startswith(
        "I am turning 65 soon. I have Medicaid"
    )
    assert [t.turn_id for t in de.scripted_turns][-1] == "Q8"
    assert de.scripted_turns[-1].question_group == "QG2" and not de.scripted_turns[-1].scored


def test_every_scored_group_can_separate_complete_from_incomplete() -> None:
    for scenario in scenarios():
        for group, turns in scenario.groups().items():
            if not any(t.scored for t in turns) or scenario.scenario_id == "employer_coverage_followup":
                continue
            points = scenario.group_required_points([t for t in turns if t.condition is None] or turns)
            assert len(points) >= 2, f"{scenario.scenario_id} {group}"


def test_every_fact_is_sourced_dated_and_year_stamped_for_2026() -> None:
    for scenario in scenarios():
        assert scenario.effective_date.year == 2026, scenario.scenario_id
        for fact in scenario.canonical_facts:
            where = f"{scenario.scenario_id}:{fact.fact_id}"
            assert fact.source.strip() and fact.effective_date is not None, where
            if re.search(r"\$\s?\d", fact.statement):
                assert fact.year == 2026, where


def test_unverified_and_wrong_figures_are_never_canonical() -> None:
    # medicare-facts.md: UNVERIFIED (Extra Help resources, 2026 MSP dollar limits, Plan K/L) and wrong
    # (MOOP $8,850 / $13,680; the $206.50 projection).
    never = ["$18,090", "$36,100", "$16,590", "$8,000", "$4,000", "$1,350", "$1,616", "$1,816", "$8,850"]
    never += ["$13,680", "$206.50", "$185", "$2,000", "$1,676", "$257"]
    for scenario in scenarios():
        for fact in scenario.canonical_facts:
            for figure in never:
                assert figure not in fact.statement, f"{scenario.scenario_id}:{fact.fact_id} states {figure}"


def test_stale_2025_figures_are_contradictions_wherever_the_2026_figure_is_keyed() -> None:
    stale = {"$202.90": "$185.00", "$2,100": "$2,000", "$1,736": "$1,676", "$283": "$257", "$9,250": "$9,350"}
    checked = 0
    for scenario in scenarios():
        for fact in scenario.canonical_facts:
            for current, old in stale.items():
                if current in fact.statement:
                    assert fact.patterns is not None
                    sentence = f"The amount is {old} a month."
                    assert any(re.search(p, sentence, re.I) for p in fact.patterns.contradict), fact.fact_id
                    checked += 1
    assert checked >= 8


def test_library_covers_the_issue_topics() -> None:
    topics = {s.scenario_id for s in scenarios() if s.script == "topic"}
    assert len(topics) >= 12
    assert {
        "scenario_001",
        "employer_coverage_followup",
        "topic_initial_enrollment",
        "topic_medigap_open_enrollment",
        "topic_long_term_care",
        "topic_part_d_choice",
        "topic_part_b_costs",
        "topic_part_a_deductible",
        "topic_irmaa",
        "topic_extra_help_msp",
        "topic_dsnp",
        "topic_ma_network_doctor",
        "topic_enrollment_periods",
        "topic_part_d_penalty",
    } <= topics


def test_every_profile_has_a_canned_answer_for_every_bundled_turn() -> None:
    for profile_file in sorted(PROFILES.glob("*.json")):
        responses = json.loads(profile_file.read_text())["responses"]
        for scenario in scenarios():
            answers = responses.get(scenario.scenario_id, {})
            wanted = [t.turn_id for t in scenario.scripted_turns]
            if scenario.opening_statement:
                wanted.append("opening")
            missing = [turn for turn in wanted if not answers.get(turn)]
            assert not missing, f"{profile_file.stem} {scenario.scenario_id}: {missing}"


def test_canned_answers_are_not_copies_of_the_key() -> None:
    for profile_file in sorted(PROFILES.glob("*.json")):
        responses = json.loads(profile_file.read_text())["responses"]
        for scenario in scenarios():
            statements = {f.statement for f in scenario.canonical_facts}
            for text in responses.get(scenario.scenario_id, {}).values():
                assert not any(statement in text for statement in statements), profile_file.stem
