"""The topic scenarios' keys read answers fairly: correct negations, comparisons and cautions are
never contradicted, and each key's common wrong statements are."""

from __future__ import annotations

import pytest

from medeval.agents.rules import extract_claims, label_claims
from medeval.scenarios.load import load_scenario

from .conftest import SCENARIOS


def verdicts(scenario_id: str, text: str) -> list[tuple[str, list[str]]]:
    scenario = load_scenario(SCENARIOS / f"{scenario_id}.json")
    return [(v.label.value, v.evidence) for v in label_claims(extract_claims(text, "Q1"), scenario)]


RIGHT = [
    ("topic_long_term_care", "Medicaid, unlike Medicare, pays for long-term nursing home care."),
    (
        "topic_long_term_care",
        "Medicaid won't pay for a nursing home unless you meet its income and medical rules.",
    ),
    (
        "topic_long_term_care",
        "Medicare covers up to 100 days in a skilled nursing facility after a 3-day hospital stay.",
    ),
    ("scenario_001", "Make sure your doctor is in the network before you join."),
    (
        "scenario_001",
        "Unlike Original Medicare, which has no limit, Medicare Advantage has an out-of-pocket limit.",
    ),
    ("scenario_001", "Not all doctors who accept Medicare take Medicare Advantage plans."),
    (
        "employer_coverage_followup",
        "You have 63 days to get Part D coverage, but 8 months to sign up for Part B.",
    ),
    ("topic_part_d_choice", "Not all plans cover the same drugs, so compare their formularies."),
    ("topic_part_d_choice", "Don't just pick the plan with the lowest premium."),
    ("topic_dsnp", "Joining a D-SNP doesn't end your Medicaid."),
    (
        "topic_initial_enrollment",
        "The Initial Enrollment Period runs three months before your birthday month through three after.",
    ),
    (
        "topic_medigap_open_enrollment",
        "You can apply for Medigap any time, but later on insurers can turn you down.",
    ),
    (
        "topic_medigap_open_enrollment",
        "Medigap open enrollment happens only once, unlike Medicare's open enrollment each October.",
    ),
    ("topic_medigap_open_enrollment", "Medigap doesn't work with Medicare Advantage."),
    ("topic_part_d_penalty", "It's not a flat fee; it grows with each month you went without coverage."),
    ("topic_part_d_penalty", "The penalty never goes away, even after years."),
    ("topic_enrollment_periods", "Open Enrollment runs Oct. 15 to Dec. 7 every year."),
    (
        "topic_enrollment_periods",
        "In the MA Open Enrollment Period you can't make unlimited changes, only one.",
    ),
    ("topic_extra_help_msp", "Extra Help isn't only for people on Medicaid."),
]
WRONG = [
    ("topic_long_term_care", "LTC_NOT_COVERED", "Medicare will pay for your nursing home care."),
    ("topic_long_term_care", "MEDICAID_LTC", "Neither Medicare nor Medicaid covers long-term care."),
    (
        "topic_ma_network_doctor",
        "DOCTOR_CHECK",
        "If your doctor accepts Medicare, they're in every Advantage plan's network.",
    ),
    ("topic_part_d_choice", "PARTD_CHOOSE", "All Part D plans cover the same drugs."),
    ("topic_dsnp", "DSNP_WHAT", "Joining a D-SNP ends your Medicaid."),
    (
        "topic_medigap_open_enrollment",
        "MEDIGAP_OEP",
        "The Medigap open enrollment period happens every year in October.",
    ),
    ("topic_part_d_penalty", "PARTD_LEP_RULE", "The Part D penalty is a flat fee."),
    ("topic_enrollment_periods", "OEP_FALL", "Open Enrollment runs from November 1 to January 15."),
    (
        "topic_enrollment_periods",
        "MA_OEP",
        "In the MA Open Enrollment Period you can make unlimited changes.",
    ),
    ("topic_extra_help_msp", "EXTRA_HELP_MAY_QUALIFY", "Extra Help is only for people on full Medicaid."),
]


@pytest.mark.parametrize(("scenario_id", "text"), RIGHT)
def test_correct_statements_are_never_contradicted(scenario_id: str, text: str) -> None:
    found = verdicts(scenario_id, text)
    assert all(label != "CONTRADICTED" for label, _ in found), found


@pytest.mark.parametrize(("scenario_id", "fact_id", "text"), WRONG)
def test_common_wrong_statements_are_contradicted(scenario_id: str, fact_id: str, text: str) -> None:
    found = verdicts(scenario_id, text)
    assert any(label == "CONTRADICTED" and fact_id in evidence for label, evidence in found), found
