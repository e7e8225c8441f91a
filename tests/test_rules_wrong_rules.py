"""The SHIP Medicare-only key reads wrong RULES (not figures) as contradictions, worded beyond any
corpus sentence, and leaves the correct rule, its negation and its exceptions alone (the
hard-cases round; the dual-eligible key's statements are in test_ship_dual_eligible_key.py)."""

from __future__ import annotations

import pytest

from medeval.agents import rules
from medeval.scenarios.load import bundled_scenarios_dir, load_scenario
from medeval.schemas import Scenario


@pytest.fixture(scope="module")
def key() -> Scenario:
    return load_scenario(bundled_scenarios_dir() / "v1" / "ship_medicare_only.json")


def contradicted(scenario: Scenario, group: str, answer: str) -> set[str]:
    out = rules.code_answer(scenario, group, answer)
    return {e for v in out.verdicts if v.label == "CONTRADICTED" for e in v.evidence}


WRONG = [
    ("QG1", "CHANGE_PERIOD", "You can change your Medicare plan any time of the year."),
    ("QG1", "CHANGE_PERIOD", "Whatever plan you pick at 65 is locked in for life."),
    ("QG9", "NOT_REQUIRED_AT_65", "Medicare automatically enrolls everyone at 65."),
    ("QG9", "PARTB_DELAY_PENALTY", "You can keep delaying Part B without a penalty while you're on COBRA."),
    ("QG9", "EMPLOYER_SIZE_20", "With fewer than 20 employees, your employer plan is primary."),
    (
        "QG10",
        "MA_STILL_PAY_PARTB",
        "Advantage plans have lower costs and you no longer pay the Part B premium.",
    ),
    ("QG13", "TM_SEPARATE_PARTD", "With Original Medicare you won't need a separate plan for drugs."),
    ("QG10", "TM_MEDIGAP_PAIRING", "You can pair it with a Medicare Advantage plan to cover copays."),
    (
        "QG11",
        "MEDIGAP_OEP_6_MONTHS",
        "During your Medigap open enrollment period, insurers can still charge you more for health problems.",
    ),
    ("QG12", "LTC_NONE_COVER", "Medigap Plan G covers custodial care in a nursing home."),
    ("QG19", "MAPD_MOST", "HMOs don't include prescription drug coverage."),
    ("QG16", "HMO_NO_OUT_OF_NETWORK", "An HMO lets you see specialists outside its network."),
    (
        "QG16",
        "EMERGENCY_COVERED_ANYWHERE",
        "Out-of-network care isn't covered, and this applies to emergencies.",
    ),
    ("QG17", "PCP_COPAY_RULE", "Medicare requires all HMOs to charge no copay for primary care."),
    ("QG18", "MOOP_EXCLUSIONS", "Your spending counts toward the limit, including premiums."),
    (
        "QG20",
        "LIPITOR_BRAND_GENERIC",
        "Medicare doesn't allow plans to cover brand-name drugs with a generic.",
    ),
]

RIGHT = [
    ("QG1", "You can't switch plans any time you like; changes wait for Open Enrollment."),
    ("QG1", "People with Medicaid or Extra Help can change drug plans once a month."),
    ("QG11", "You can switch Medigap policies any time, though you may face health questions."),
    ("QG9", "COBRA doesn't count as employer coverage, so don't delay Part B while on it."),
    ("QG9", "With 20 or more employees, the employer plan pays first and Medicare second."),
    ("QG9", "With fewer than 20 employees, Medicare pays first, so you need Part B."),
    ("QG12", "Medicare Advantage plans don't cover custodial care, and neither does Medigap."),
    ("QG12", "Medicaid pays for custodial care if you qualify."),
    ("QG16", "With an HMO, visits outside its network generally aren't covered."),
    ("QG16", "In an emergency you're covered anywhere, and that includes out-of-network ERs."),
    ("QG17", "Each plan sets its own copay; many HMOs charge $0 for primary care."),
    ("QG18", "Premiums and drug costs don't count toward the limit."),
    ("QG13", "You can't add a stand-alone Part D plan on top of your Medicare Advantage plan."),
    ("QG20", "Generic atorvastatin is covered by nearly every plan."),
]


@pytest.mark.parametrize(("group", "fact_id", "text"), WRONG)
def test_a_wrong_rule_contradicts_its_fact(key: Scenario, group: str, fact_id: str, text: str) -> None:
    assert fact_id in contradicted(key, group, text)


@pytest.mark.parametrize(("group", "text"), RIGHT)
def test_the_right_rule_its_negation_and_its_exceptions_do_not(key: Scenario, group: str, text: str) -> None:
    assert contradicted(key, group, text) == set()
