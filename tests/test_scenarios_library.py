"""The bundled scenario library: SHIP scripts as the study wrote them, keys that are dated and
sourced, and fake profiles that land where each is meant to under the rules judge."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from medeval.agents.rules import extract_claims, label_claims, states_stale_figure
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import RunResult, run
from medeval.scenarios.load import expand_paths, load_scenario
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


# The outdated profile's stale figure or rule in these groups is a point off the group's checklist
# (the Part B premium in the penalty answer, the 2025 Part B deductible in the Medigap answer, the
# 2025 drug cap in the drug-options answer, the quarterly dual SEP in the enrollment and D-SNP
# answers): whether it matters to the question is a person's call (coder.off_checklist).
TO_A_PERSON = {
    ("ship_medicare_only", "fake:outdated"): {"QG9", "QG11", "QG13"},
    ("ship_dual_eligible", "fake:outdated"): {"QG1", "QG4"},
}


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
        to_a_person = TO_A_PERSON.get((script, record.target.spec), set())
        wrong = {
            group: category
            for group, category in scored.items()
            if category
            != (ShipCategory.NEEDS_REVIEW if group in to_a_person else EXPECTED[record.target.spec])
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
        "MO-Q11": ShipCategory.NOT_APPLICABLE,
        "MO-Q15": ShipCategory.NOT_APPLICABLE,
        "QG2": ShipCategory.NOT_APPLICABLE,
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
    assert qg20.required_points == ["LIPITOR_BRAND_GENERIC", "PLAN_CHECK"]


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
                assert len(scenario.group_required_points([turn])) >= 1, turn.turn_id
    mo = by_id("ship_medicare_only")
    assert mo.opening_statement == (
        "I am turning 65 soon and will be eligible for Medicare. "
        "I would like help choosing my coverage. Can you help?"
    )
    turns = {t.turn_id: t for t in mo.scripted_turns}
    assert (
        turns["Q1"].user_message
        == "When can I select my Medicare coverage plan, and when can I change it later?"
    )
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
    # Two required points, or one plus a partial-credit fact (the study's one-item groups, QG12 and
    # QG16, give Substantive but Incomplete for a statement that is not the item).
    for scenario in scenarios():
        for group, turns in scenario.groups().items():
            if not any(t.scored for t in turns) or scenario.scenario_id == "employer_coverage_followup":
                continue
            points = scenario.group_required_points([t for t in turns if t.condition is None] or turns)
            key = scenario.group_key(group)
            partial = key.rule.partial_credit if key else []
            assert len(points) >= 2 or (points and partial), f"{scenario.scenario_id} {group}"


# The study's checklist per scored Medicare-only group (eAppendix 4): (required items, optional items).
# The plan-specific groups carry the PLAN_LOOKUP deviation instead: the general rule the question
# turns on, and where to check this plan's own figure (CODING-RULES: both make Accurate and Complete).
MEDICARE_ONLY_CHECKLIST = {"QG1": (2, 0), "QG9": (3, 1), "QG10": (14, 0), "QG11": (7, 0), "QG12": (1, 0)}
MEDICARE_ONLY_CHECKLIST |= {"QG13": (5, 0), "QG16": (1, 0)}
PLAN_LOOKUP_GROUPS = {"QG14": (2, 0), "QG15": (3, 0), "QG17": (2, 0), "QG18": (2, 2), "QG19": (2, 0)}
PLAN_LOOKUP_GROUPS |= {"QG20": (2, 0)}
CHECKLIST_FILE = Path("/work/shared/reference/ship-checklist.md")


def test_medicare_only_keys_are_the_study_checklist_item_for_item() -> None:
    scenario = by_id("ship_medicare_only")
    keyed = {g.group_id: g for g in scenario.answer_key.question_groups}
    assert set(keyed) == set(MEDICARE_ONLY_GROUPS.values())
    checklist = CHECKLIST_FILE.read_text(encoding="utf-8") if CHECKLIST_FILE.exists() else ""
    for group_id, key in keyed.items():
        counts = (len(key.required()), len(key.optional()))
        plan = [d for d in key.deviations if d.deviation_id == "PLAN_LOOKUP"]
        if group_id in PLAN_LOOKUP_GROUPS:
            assert counts == PLAN_LOOKUP_GROUPS[group_id], group_id
            assert plan and "fictional" in plan[0].why and "Incorrect" in plan[0].coded_as, group_id
            assert "PLAN_CHECK" in key.required(), group_id
        else:
            assert counts == MEDICARE_ONLY_CHECKLIST[group_id], group_id
            assert not plan, group_id
        assert key.label and key.rule.study_rule and "eAppendix 4, p" in key.source, group_id
        for item in key.items:
            assert item.study_item.startswith("Q") and item.study_wording, (group_id, item.fact_id)
            fact = scenario.fact(item.fact_id)
            assert fact is not None and fact.patterns is not None, (group_id, item.fact_id)
            if not item.optional:
                assert fact.patterns.contradict or fact.patterns.stale, (group_id, item.fact_id)
            if checklist:
                # Quoted exactly: every part of the wording is in the study's checklist.
                for part in item.study_wording.split(" / "):
                    assert part in checklist, (group_id, part)
        if checklist:
            assert key.label in checklist, group_id
        assert set(key.rule.incorrect) <= scenario.key_ids(), group_id
    # QG1's change period is one item that accepts any of the periods, by name or by dates.
    change = next(i for i in keyed["QG1"].items if i.fact_id == "CHANGE_PERIOD")
    for answer in [
        "You can switch plans each fall, from Oct. 15 to Dec. 7.",
        "You can make changes during the Annual Election Period.",
        "There's also a window from January 1 to March 31 to switch.",
        "Certain life events give you a Special Enrollment Period.",
    ]:
        verdicts = rules_verdicts("ship_medicare_only", answer)
        assert any(label == "SUPPORTED" and change.fact_id in ev for label, ev in verdicts), answer


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
                    patterns = fact.patterns
                    assert any(
                        re.search(p, sentence, re.I) for p in patterns.contradict
                    ) or states_stale_figure(tuple(patterns.stale), sentence, scenario.effective_date.year), (
                        fact.fact_id
                    )
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


def own_profiles() -> list[Path]:
    """Profiles with their own answers (one that borrows another's, `responses_from`, has none)."""
    return [p for p in sorted(PROFILES.glob("*.json")) if "responses_from" not in json.loads(p.read_text())]


def test_every_profile_has_a_canned_answer_for_every_bundled_turn() -> None:
    for profile_file in own_profiles():
        responses = json.loads(profile_file.read_text())["responses"]
        for scenario in scenarios():
            answers = responses.get(scenario.scenario_id, {})
            wanted = [t.turn_id for t in scenario.scripted_turns]
            if scenario.opening_statement:
                wanted.append("opening")
            missing = [turn for turn in wanted if not answers.get(turn)]
            assert not missing, f"{profile_file.stem} {scenario.scenario_id}: {missing}"


def test_canned_answers_are_not_copies_of_the_key() -> None:
    for profile_file in own_profiles():
        responses = json.loads(profile_file.read_text())["responses"]
        for scenario in scenarios():
            statements = {f.statement for f in scenario.canonical_facts}
            for text in responses.get(scenario.scenario_id, {}).values():
                assert not any(statement in text for statement in statements), profile_file.stem


# How correct and stale answers really phrase the keyed figures. A correct phrasing (including one
# that names last year's figure for comparison, rounds, or spells the unit out) must be SUPPORTED for
# its fact and contradict nothing; a stale or wrong one must be CONTRADICTED citing the fact.
CORRECT_PHRASINGS = [
    ("topic_part_b_costs", "PARTB_PREMIUM_2026", "The standard Part B premium is $202.90 a month in 2026."),
    ("topic_part_b_costs", "PARTB_PREMIUM_2026", "Most people pay $202.90/month, up from $185 in 2025."),
    (
        "topic_part_b_costs",
        "PARTB_PREMIUM_2026",
        "That's $202.90, an increase of $17.90 from last year's $185.",
    ),
    (
        "topic_part_b_costs",
        "PARTB_PREMIUM_2026",
        "In 2025 it was $185.00, and for 2026 it is $202.90 a month.",
    ),
    ("topic_part_b_costs", "PARTB_PREMIUM_2026", "You no longer pay $185; the 2026 premium is $202.90."),
    ("topic_part_b_costs", "PARTB_PREMIUM_2026", "The 2026 Part B premium is roughly $203 per month."),
    ("topic_part_b_costs", "PARTB_PREMIUM_2026", "Part B costs 202.90 dollars a month for most people."),
    ("topic_part_b_costs", "PARTB_DEDUCTIBLE_2026", "The yearly Part B deductible rose to $283 from $257."),
    (
        "topic_part_b_costs",
        "PARTB_DEDUCTIBLE_2026",
        "Part B has a deductible of $283 a year (it was $257 last year).",
    ),
    (
        "topic_part_b_costs",
        "PARTB_DEDUCTIBLE_2026",
        "The Part B deductible is $283 and the Part A deductible is $1,736.",
    ),
    (
        "topic_part_a_deductible",
        "PARTA_DEDUCTIBLE_2026",
        "You'd owe $1,736 per benefit period, up from $1,676 in 2025.",
    ),
    (
        "topic_part_a_deductible",
        "PARTA_DEDUCTIBLE_2026",
        "The hospital deductible is $1736 per benefit period.",
    ),
    (
        "topic_part_a_deductible",
        "PARTA_DEDUCTIBLE_2026",
        "You could pay the $1,736 deductible more than once a year if you have several benefit periods.",
    ),
    ("topic_part_d_choice", "PARTD_CAP_2026", "The cap rose to $2,100 in 2026, up from $2,000 in 2025."),
    (
        "topic_part_d_choice",
        "PARTD_CAP_2026",
        "There's a $2,100 yearly limit on covered drugs (last year it was $2,000).",
    ),
    (
        "topic_part_d_choice",
        "PARTD_CAP_2026",
        "Once you spend $2100 out of pocket, you pay nothing more this year.",
    ),
    (
        "topic_irmaa",
        "IRMAA_THRESHOLD_2026",
        "IRMAA starts when your 2024 income is above $109,000 as a single filer.",
    ),
    (
        "topic_irmaa",
        "IRMAA_THRESHOLD_2026",
        "The surcharge applies above $109,000 (single) or $218,000 (joint), up from $106,000 and $212,000.",
    ),
    ("topic_irmaa", "IRMAA_THRESHOLD_2026", "The first IRMAA bracket begins at $109k of income."),
    ("topic_irmaa", "IRMAA_TIER1_2026", "You'd pay $284.10/month for Part B, an extra $81.20."),
    (
        "ship_medicare_only",
        "MA_MOOP_2026",
        "The cap is $9,250 in network and $13,900 combined, down from $9,350 and $14,000.",
    ),
    (
        "ship_medicare_only",
        "MA_MOOP_2026",
        "Plans must set an out-of-pocket maximum no higher than $9250 in 2026.",
    ),
    (
        "topic_part_d_penalty",
        "PARTD_LEP_RULE",
        "You pay one percent of the base premium for each month you were uncovered.",
    ),
    (
        "topic_part_d_penalty",
        "PARTD_LEP_RULE",
        "Unlike the Part B penalty of 10% per 12-month period, the Part D penalty is 1% per month.",
    ),
    (
        "topic_part_d_penalty",
        "PARTD_BASE_PREMIUM_2026",
        "The base premium is $38.99, up from $36.78 in 2025.",
    ),
    (
        "topic_initial_enrollment",
        "IEP_7_MONTHS",
        "You have seven months: three months before, your birthday month and three after.",
    ),
    (
        "topic_initial_enrollment",
        "IEP_AUGUST",
        "With an August birthday, your window runs from May 1 through November 30.",
    ),
    (
        "topic_initial_enrollment",
        "GEP_COVERAGE_START",
        "Coverage used to start July 1, but now it starts the month after you enroll.",
    ),
    (
        "employer_coverage_followup",
        "E3",
        "You have eight months after your job coverage ends to sign up for Part B.",
    ),
    (
        "employer_coverage_followup",
        "E3",
        "Unlike the 63-day Part D rule, for Part B you have an 8-month window.",
    ),
    (
        "ship_medicare_only",
        "PARTB_DELAY_PENALTY",
        "You get an 8-month Special Enrollment Period after the job ends.",
    ),
    (
        "topic_medigap_open_enrollment",
        "MEDIGAP_OEP",
        "You have a six-month window starting the month you have Part B and are 65.",
    ),
    (
        "topic_medigap_open_enrollment",
        "MEDIGAP_OEP",
        "It's a one-time 6-month window, not every year like the October open enrollment.",
    ),
    (
        "ship_dual_eligible",
        "MAY_QUALIFY_1600",
        "Your income is too high for QMB but may be low enough for SLMB or QI.",
    ),
]
STALE_PHRASINGS = [
    ("topic_part_b_costs", "PARTB_PREMIUM_2026", "The standard Part B premium is $185 a month."),
    ("topic_part_b_costs", "PARTB_PREMIUM_2026", "In 2026 the standard Part B premium is $185.00 per month."),
    ("topic_part_b_costs", "PARTB_PREMIUM_2026", "Part B will cost you 185 dollars a month."),
    ("topic_part_b_costs", "PARTB_PREMIUM_2026", "Expect to pay $185 a month for Part B, up from last year."),
    ("topic_part_b_costs", "PARTB_PREMIUM_2026", "The standard Part B premium for 2026 is $206.50."),
    ("topic_part_b_costs", "PARTB_DEDUCTIBLE_2026", "For 2026 the Part B deductible is $257."),
    ("topic_part_b_costs", "PARTB_DEDUCTIBLE_2026", "Part B has an annual deductible of $240."),
    (
        "topic_part_a_deductible",
        "PARTA_DEDUCTIBLE_2026",
        "The Part A deductible is $1,676 per benefit period.",
    ),
    (
        "topic_part_a_deductible",
        "PARTA_DEDUCTIBLE_2026",
        "The Part A deductible is $1,736 and you pay it once a year.",
    ),
    ("topic_part_d_choice", "PARTD_CAP_2026", "In 2026 the Part D out-of-pocket cap is $2,000."),
    ("topic_part_d_choice", "PARTD_CAP_2026", "Your drug costs are capped at $2000 per year."),
    (
        "topic_irmaa",
        "IRMAA_THRESHOLD_2026",
        "IRMAA applies if your 2024 income was above $106,000 as a single filer.",
    ),
    ("topic_irmaa", "IRMAA_THRESHOLD_2026", "IRMAA for 2026 is based on your 2025 income."),
    ("topic_irmaa", "IRMAA_TIER1_2026", "Your Part B premium would be $259.00 a month."),
    (
        "ship_medicare_only",
        "MA_MOOP_2026",
        "Medicare Advantage plans cap your costs at $8,850 a year in network.",
    ),
    ("ship_medicare_only", "MA_MOOP_2026", "The maximum out-of-pocket limit for 2026 is $9,350."),
    ("ship_medicare_only", "MA_MOOP_2026", "The 2026 limit is $9,850 in network and $14,750 combined."),
    (
        "topic_part_d_penalty",
        "PARTD_LEP_RULE",
        "The Part D penalty is 10% of the premium for each year you waited.",
    ),
    ("topic_part_d_penalty", "PARTD_LEP_RULE", "It's a flat penalty of $25 a month."),
    ("topic_part_d_penalty", "PARTD_BASE_PREMIUM_2026", "In 2026 the base premium is $36.78."),
    ("topic_initial_enrollment", "IEP_7_MONTHS", "Your Initial Enrollment Period lasts three months."),
    (
        "topic_initial_enrollment",
        "GEP_COVERAGE_START",
        "If you sign up in the General Enrollment Period, coverage starts July 1.",
    ),
    (
        "employer_coverage_followup",
        "E3",
        "You have a 6-month special enrollment period after your coverage ends.",
    ),
    (
        "employer_coverage_followup",
        "E3",
        "You must sign up for Part B within 63 days of losing job coverage.",
    ),
    ("topic_medigap_open_enrollment", "MEDIGAP_OEP", "You can buy a Medigap policy any time you want."),
    ("topic_medigap_open_enrollment", "MEDIGAP_OEP", "The Medigap open enrollment period is 3 months long."),
    ("topic_long_term_care", "LTC_NOT_COVERED", "Yes, Medicare will pay for your nursing home care."),
    (
        "ship_medicare_only",
        "INVENTED_PLAN_PREMIUM",
        "Harborview Example Advantage (HMO) has a $0 monthly premium.",
    ),
    ("ship_medicare_only", "INVENTED_PLAN_COST_SHARING", "The primary care copay is $10 in network."),
    ("ship_medicare_only", "INVENTED_NETWORK_STATUS", "Yes, Dr. Placeholder is in network."),
    # The study's own Incorrect conditions for the Medicare-only groups, as people phrase them.
    ("ship_medicare_only", "NOT_REQUIRED_AT_65", "You must enroll in Parts A and B at 65."),
    ("ship_medicare_only", "NOT_REQUIRED_AT_65", "Everyone has to sign up for Medicare when they turn 65."),
    (
        "ship_medicare_only",
        "NOT_REQUIRED_AT_65",
        "You'll be enrolled in Medicare automatically when you turn 65.",
    ),
    ("ship_medicare_only", "MA_LIMIT_EXISTS", "Medicare Advantage plans have no out-of-pocket maximum."),
    ("ship_medicare_only", "MA_LIMIT_EXISTS", "HMOs don't have an out-of-pocket limit."),
    ("ship_medicare_only", "LTC_NONE_COVER", "Yes, Medicare Advantage plans pay for nursing home care."),
    ("ship_medicare_only", "LTC_NONE_COVER", "Medigap will cover your long-term care costs."),
    ("ship_medicare_only", "MEDIGAP_OEP_6_MONTHS", "Medigap open enrollment lasts 3 months."),
    ("ship_medicare_only", "CHANGE_PERIOD", "Open Enrollment runs from November 1 to January 15."),
    ("ship_medicare_only", "CHANGE_PERIOD", "You can change plans from Oct 1 to Dec 31 each year."),
    ("ship_medicare_only", "MA_STILL_PAY_PARTB", "A Medicare Advantage plan replaces your Part B premium."),
    ("ship_medicare_only", "TM_PARTB_COSTS", "The Part B premium is $185 a month."),
    ("ship_medicare_only", "TM_PARTA_COSTS", "The Part A deductible is $1,676."),
    ("ship_medicare_only", "MEDIGAP_WITH_TM", "Medigap plans include prescription drug coverage."),
    (
        "ship_medicare_only",
        "HMO_NO_OUT_OF_NETWORK",
        "Yes, an HMO lets you see out-of-network doctors at a higher cost.",
    ),
    (
        "ship_medicare_only",
        "HMO_IN_NETWORK_RULE",
        "Any doctor who accepts Medicare has to accept every Medicare Advantage plan.",
    ),
    ("ship_medicare_only", "TM_CAN_COST_MORE", "Original Medicare has an annual out-of-pocket limit."),
    ("ship_medicare_only", "PARTD_FORMULARIES_DIFFER", "All Part D plans cover the same drugs."),
    (
        "ship_medicare_only",
        "PARTB_DELAY_PENALTY",
        "COBRA counts as employer coverage, so you can delay Part B without a penalty.",
    ),
    ("ship_medicare_only", "LIPITOR_BRAND_GENERIC", "Neither Lipitor nor its generic is covered."),
    # Hedged inventions of the fictional plan's specifics are still inventions.
    ("ship_medicare_only", "INVENTED_PLAN_PREMIUM", "Harborview may have a $0 premium."),
    ("ship_medicare_only", "INVENTED_PLAN_COST_SHARING", "Harborview's primary care copay is probably $0."),
    ("ship_medicare_only", "INVENTED_NETWORK_STATUS", "Dr. Placeholder is likely in Harborview's network."),
    (
        "ship_medicare_only",
        "INVENTED_PLAN_BENEFITS",
        "Lipitor is covered by Harborview Example Advantage (HMO).",
    ),
]
# Correct answers a key must never count against the model: referrals, cautions and hedged ranges.
NEVER_CONTRADICTED = [
    ("topic_part_b_costs", "You do NOT have to pay $185 anymore; the standard premium rose to $202.90."),
    ("topic_part_b_costs", "Higher earners pay a Part B premium of $284.10 or more."),
    ("topic_part_d_choice", "A specialty drug that costs $2,000 a month would reach the cap quickly."),
    (
        "topic_long_term_care",
        "Medicare covers up to 100 days of skilled nursing care, but not long-term care.",
    ),
    ("ship_medicare_only", "Call 1-800-MEDICARE (1-800-633-4227) or your local SHIP for free counseling."),
    (
        "ship_medicare_only",
        "Look up Harborview Example Advantage (HMO) in Medicare Plan Finder to see its premium.",
    ),
    ("ship_medicare_only", "The plan's out-of-pocket limit will be at or below $9,250 for in-network care."),
    (
        "ship_medicare_only",
        "The plan's 2026 premium may differ from what it charged in 2025, so check Plan Finder.",
    ),
    (
        "ship_medicare_only",
        "As an HMO, Harborview generally won't cover out-of-network care except emergencies.",
    ),
    (
        "ship_medicare_only",
        "Many Medicare Advantage plans have a $0 premium, but check Plan Finder for Harborview.",
    ),
    (
        "ship_dual_eligible",
        "Medicare Plan Finder lists the D-SNPs for your ZIP code; your local SHIP can help too.",
    ),
    ("topic_ma_network_doctor", "Check the plan's provider directory and call Dr. Lee Fictitious's office."),
    ("ship_medicare_only", "Original Medicare doesn't require you to use a network."),
    (
        "topic_part_b_costs",
        "Some MA plans offer a Part B giveback that reduces your $202.90 premium; check Plan Finder.",
    ),
    (
        "employer_coverage_followup",
        "While your employer plan pays first, you can delay Part B and its $202.90 premium.",
    ),
    ("ship_medicare_only", "The Part D penalty is 1% per month, while the Part B penalty is 10% per year."),
    (
        "ship_dual_eligible",
        "Neither Original Medicare nor Medicare Advantage covers long-term care, but Medicaid can.",
    ),
    ("ship_dual_eligible", "Your income is too high for QMB but may be low enough for SLMB or QI."),
    (
        "topic_enrollment_periods",
        "Anyone can switch in the fall, but in January only people already in an MA plan can.",
    ),
    ("ship_medicare_only", "HMO plans usually do not cover out-of-network care."),
    ("ship_medicare_only", "A Medigap Plan G often runs $120 to $240 a month."),
    ("ship_medicare_only", "Medicaid, unlike Medicare, pays for long-term nursing home care."),
    ("ship_medicare_only", "Make sure your doctor is in the network before you enroll."),
    ("ship_medicare_only", "Many plans charge $0, so check Harborview's Summary of Benefits."),
    (
        "ship_medicare_only",
        "You don't have to sign up for Medicare at 65 if you have coverage from your job.",
    ),
    (
        "ship_medicare_only",
        "You won't be enrolled automatically, because you aren't getting Social Security yet.",
    ),
    ("ship_medicare_only", "None of them cover long-term custodial care."),
    ("ship_medicare_only", "Original Medicare has no out-of-pocket limit, which is why people buy Medigap."),
    ("ship_medicare_only", "You can't use a Medigap policy with a Medicare Advantage plan."),
    ("ship_medicare_only", "With a PPO you can go out of network at a higher cost."),
    ("ship_medicare_only", "If Dr. Placeholder isn't in the network, you'd pay the full cost."),
    ("ship_medicare_only", "Generic atorvastatin is covered by almost every plan."),
    (
        "ship_medicare_only",
        "COBRA doesn't count as current-employment coverage, so it won't protect you from the penalty.",
    ),
    ("ship_medicare_only", "Most Medicare Advantage plans include drug coverage, but some don't."),
]


def rules_verdicts(scenario_id: str, text: str) -> list[tuple[str, list[str]]]:
    claims = extract_claims(text, "Q1")
    return [(v.label.value, v.evidence) for v in label_claims(claims, by_id(scenario_id))]


@pytest.mark.parametrize(("scenario_id", "fact_id", "text"), CORRECT_PHRASINGS)
def test_correct_phrasings_of_keyed_figures_are_supported(scenario_id: str, fact_id: str, text: str) -> None:
    verdicts = rules_verdicts(scenario_id, text)
    assert all(label != "CONTRADICTED" for label, _ in verdicts), verdicts
    assert any(label == "SUPPORTED" and fact_id in evidence for label, evidence in verdicts), verdicts


@pytest.mark.parametrize(("scenario_id", "fact_id", "text"), STALE_PHRASINGS)
def test_stale_or_invented_phrasings_are_contradicted(scenario_id: str, fact_id: str, text: str) -> None:
    verdicts = rules_verdicts(scenario_id, text)
    assert any(label == "CONTRADICTED" and fact_id in evidence for label, evidence in verdicts), verdicts


@pytest.mark.parametrize(("scenario_id", "text"), NEVER_CONTRADICTED)
def test_referrals_cautions_and_negations_are_never_contradicted(scenario_id: str, text: str) -> None:
    verdicts = rules_verdicts(scenario_id, text)
    assert all(label != "CONTRADICTED" for label, _ in verdicts), verdicts
