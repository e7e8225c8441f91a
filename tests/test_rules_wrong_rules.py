"""The SHIP Medicare-only key reads wrong RULES (not figures) as contradictions, worded beyond any
corpus sentence, and leaves the correct rule, its negation and its exceptions alone (the
hard-cases round; the dual-eligible key's statements are in test_ship_dual_eligible_key.py)."""

from __future__ import annotations

import pytest

from medeval.agents import rules
from medeval.scenarios.load import bundled_scenarios_dir, load_scenario
from medeval.schemas import Scenario

from .conftest import rules_benchmark
from .rules_support import contradicted


@pytest.fixture(scope="module")
def key() -> Scenario:
    return load_scenario(bundled_scenarios_dir() / "v1" / "ship_medicare_only.json")


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


# Wrong rules no key foresaw (round 2): each as a minimal pair, the same answer stating the wrong
# rule (coded Incorrect) and the true one (not Incorrect), coded as the study's category.
IEP = "You can first sign up during the 7-month Initial Enrollment Period around your 65th birthday. "
QG9 = (
    "No, you don't have to sign up for Medicare at 65 while you're covered by your employer plan from "
    "current work. If you delay Part B, there's no late enrollment penalty as long as you sign up within "
    "8 months after that coverage ends. If you do enroll, you can keep your employer plan too. "
)
HMO = "With an HMO, out-of-network care generally isn't covered except in emergencies. "
CHECK = "With an HMO you generally have to use doctors in the plan's network. "
PAIRS = [
    (
        "ship_medicare_only",
        "QG11",
        "",
        "You can use a Medigap policy with either Original Medicare or a Medicare Advantage plan.",
        "You can use a Medigap policy with Original Medicare only, never with a Medicare Advantage plan.",
    ),
    (
        "ship_medicare_only",
        "QG11",
        "A Medigap policy helps pay costs Original Medicare leaves. ",
        "Your supplement policy pays your Medicare Advantage plan's copays.",
        "Your supplement policy pays Original Medicare's copays.",
    ),
    (
        "ship_medicare_only",
        "QG1",
        IEP,
        "Later, the General Enrollment Period, January 1 to March 31, is when you can change plans.",
        "Later, Open Enrollment, October 15 to December 7, is when you can change plans.",
    ),
    (
        "ship_medicare_only",
        "QG1",
        IEP,
        "There's no annual enrollment period for people who already have Medicare.",
        "There's an annual enrollment period for people who already have Medicare: October 15 to December 7.",
    ),
    (
        "ship_medicare_only",
        "QG1",
        IEP + "Open Enrollment runs October 15 to December 7. ",
        "If you begin the year in Original Medicare, you can join an Advantage plan in the first 3 months.",
        "If you begin the year in an Advantage plan, you can switch to another one in the first 3 months.",
    ),
    (
        "ship_medicare_only",
        "QG9",
        QG9,
        "You're enrolled in Part A automatically at 65.",
        "You're enrolled in Part A automatically once you apply for Medicare.",
    ),
    (
        "ship_medicare_only",
        "QG16",
        HMO,
        "Harborview Example Advantage (HMO) isn't offered in Franklin County.",
        "Check whether Harborview Example Advantage (HMO) is offered in Franklin County.",
    ),
    (
        "ship_medicare_only",
        "QG14",
        CHECK + "Check the plan's directory. ",
        "If your doctor leaves the network, you automatically get a Special Enrollment Period to move.",
        "If your doctor leaves the network, you don't automatically get a Special Enrollment Period to move.",
    ),
    (
        "ship_medicare_only",
        "QG14",
        CHECK,
        "I can't see the directory, but Dr. Placeholder is listed in Harborview's network.",
        "I can't see the directory, but you can ask whether Dr. Placeholder is in Harborview's network.",
    ),
    (
        "ship_medicare_only",
        "QG12",
        "Original Medicare and Medigap don't cover long-term care. ",
        "Medicare Advantage plans now cover long-term custodial care.",
        "Medicare Advantage plans don't cover long-term custodial care either.",
    ),
    (
        "ship_dual_eligible",
        "QG7",
        "With Original Medicare, Medicaid pays your premiums and cost sharing. ",
        "Enrolling in a Medicare Advantage plan ends your Medicaid.",
        "Enrolling in a Medicare Advantage plan doesn't end your Medicaid.",
    ),
    (
        "ship_dual_eligible",
        "QG6",
        "Original Medicare doesn't cover long-term care. ",
        "With a Medicare Advantage plan, long-term care would be covered by your Medicare plan.",
        "With a Medicare Advantage plan, long-term care still wouldn't be covered by your Medicare plan.",
    ),
]


@pytest.mark.parametrize(("name", "group", "base", "wrong", "right"), PAIRS)
def test_a_wrong_rule_is_incorrect_and_the_true_rule_is_not(
    name: str, group: str, base: str, wrong: str, right: str
) -> None:
    scenario = load_scenario(bundled_scenarios_dir() / "v1" / f"{name}.json")
    category = rules_benchmark().category

    def coded(answer: str) -> str:
        return str(category(scenario, group, rules.code_answer(scenario, group, answer))[0])

    assert coded(base + wrong) == "incorrect"
    assert coded(base + right) != "incorrect"
