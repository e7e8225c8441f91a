"""Round-6 wrong rules the keys now read as contradictions (Medicaid paying only a full dual's
premium, a D-SNP without Medicaid, Medicare's 100 days called long-term care, Medicare Savings
Programs kept for full Medicaid, Original Medicare to Medicare Advantage in January-March, a yearly
Medigap switch with no health questions, Medigap with drug coverage, a stand-alone Part D plan added
to an HMO, a named plan's formulary tier), each with its true or guarded twin."""

from __future__ import annotations

import pytest

from .rules_support import wrong_rule_pair

# (key, group, fact, wrong sentence, the same point said rightly or guarded)
PAIRS = [
    (
        "ship_dual_eligible",
        "QG3",
        "DUAL_OM_COSTS_COVERED",
        "Deductibles and 20% coinsurance are yours; Medicaid only covers the premium.",
        "Deductibles and 20% coinsurance are yours if you have SLMB; Medicaid only covers the premium.",
    ),
    (
        "ship_dual_eligible",
        "QG4",
        "DSNP_DUALS_ONLY",
        "They're for people with limited income; you don't need Medicaid itself to join.",
        "They're for people with limited income; you don't need full Medicaid itself to join.",
    ),
    (
        "ship_dual_eligible",
        "QG6",
        "LTC_NOT_COVERED",
        "Medicare will cover long-term care in a nursing home for up to 100 days.",
        "Medicare will cover skilled care in a nursing home for up to 100 days.",
    ),
    (
        "ship_dual_eligible",
        "QG6",
        "LTC_NOT_COVERED",
        "For most people, the first few months of long-term care are covered by Medicare.",
        "For most people, the first few months of long-term care are not covered by Medicare.",
    ),
    (
        "ship_dual_eligible",
        "QG8",
        "MSP_NAMED",
        "Medicare Savings Programs are only for people who already have full Medicaid.",
        "Medicare Savings Programs are not only for people who already have full Medicaid.",
    ),
    (
        "ship_medicare_only",
        "QG1",
        "CHANGE_PERIOD",
        "Missed the fall window? Use January-March to move into an Advantage plan.",
        "Already in an Advantage plan? Use January-March to move into another Advantage plan.",
    ),
    (
        "ship_medicare_only",
        "QG1",
        "CHANGE_PERIOD",
        "From January 1 to March 31, you can switch from Original Medicare to Medicare Advantage.",
        "From January 1 to March 31, you can't switch from Original Medicare to Medicare Advantage.",
    ),
    (
        "ship_medicare_only",
        "QG11",
        "MEDIGAP_OEP_6_MONTHS",
        "Every year during Open Enrollment, you can switch to a different Medigap plan with no "
        "health questions asked.",
        "Every year during Open Enrollment, you cannot switch to a different Medigap plan with no "
        "health questions asked.",
    ),
    (
        "ship_medicare_only",
        "QG13",
        "TM_SEPARATE_PARTD",
        "Instead of a Part D plan, you can choose a Medigap plan with a prescription drug benefit.",
        "Instead of a Part D plan, you used to be able to choose a Medigap plan with a prescription "
        "drug benefit.",
    ),
    (
        "ship_medicare_only",
        "QG19",
        "MAPD_MOST",
        "If the HMO is medical-only, you can simply add a stand-alone Part D plan.",
        "If the HMO is medical-only, you cannot simply add a stand-alone Part D plan.",
    ),
    (
        "ship_medicare_only",
        "QG20",
        "INVENTED_PLAN_BENEFITS",
        "Lipitor on Harborview Example Advantage (HMO):\n\n- Covered? Yes\n- Tier: 4\n",
        "Lipitor on Harborview Example Advantage (HMO):\n\n- Covered? Check the formulary\n"
        "- Tier: usually 3 or 4\n",
    ),
]


@pytest.mark.parametrize(("name", "group", "fact", "wrong", "right"), PAIRS)
def test_wrong_rule_contradicts_and_its_twin_does_not(
    name: str, group: str, fact: str, wrong: str, right: str
) -> None:
    wrong_rule_pair(name, group, fact, wrong, right)
