"""Round-7 wrong rules the keys now read as contradictions (Medicaid not covering a regular
Medicare Advantage plan's costs, a D-SNP joined on low income or Extra Help alone, $1,600 over every
program's limit, Part B required at 65 whatever the employer coverage, Medicare's nursing-home days
for help with daily activities, an HMO that still covers an out-of-network doctor, HMOs without drug
coverage and a stand-alone Part D plan added to one, Advantage plans held to Original Medicare's 20%),
each with its true or guarded twin."""

from __future__ import annotations

import pytest

from .rules_support import wrong_rule_pair

# (key, group, fact, wrong sentence, the same point said rightly or guarded)
PAIRS = [
    (
        "ship_dual_eligible",
        "QG3",
        "DUAL_MA_COSTS_COVERED",
        "In a regular Advantage plan, you'd be responsible for the plan's deductibles and copays.",
        "In a regular Advantage plan, you'd be responsible for the plan's deductibles and copays "
        "if you lose Medicaid.",
    ),
    (
        "ship_dual_eligible",
        "QG3",
        "DUAL_MA_COSTS_COVERED",
        "The state stops paying your Part B premium once you're in a private plan.",
        "The state stops paying your Part B premium once you lose Medicaid.",
    ),
    (
        "ship_dual_eligible",
        "QG7",
        "MEDICAID_COVERS_ALL_OPTIONS",
        "Medicaid covers your Medicare costs with Original Medicare or a D-SNP, but not with a "
        "regular Medicare Advantage plan.",
        "Medicaid covers your Medicare costs with Original Medicare or a D-SNP, and also with a "
        "regular Medicare Advantage plan.",
    ),
    (
        "ship_dual_eligible",
        "QG7",
        "MEDICAID_COVERS_ALL_OPTIONS",
        "Once you enroll in a Medicare Advantage plan, the state's premium buy-in ends.",
        "Once you enroll in a Medicare Advantage plan, the state's premium buy-in continues.",
    ),
    (
        "ship_dual_eligible",
        "QG4",
        "DSNP_DUALS_ONLY",
        "Medicaid not required: low income or Extra Help alone is enough to join.",
        "Medicaid required: low income or Extra Help alone is not enough to join.",
    ),
    (
        "ship_dual_eligible",
        "QG8",
        "MAY_QUALIFY_1600",
        "That puts you over all three limits.",
        "That puts you over the QMB limit.",
    ),
    (
        "ship_dual_eligible",
        "QG8",
        "MAY_QUALIFY_1600",
        "You'd pay full Medicare costs yourself.",
        "Without help, you'd pay full Medicare costs yourself.",
    ),
    (
        "ship_medicare_only",
        "QG9",
        "NOT_REQUIRED_AT_65",
        "Required at 65: yes",
        "Required at 65: no",
    ),
    (
        "ship_medicare_only",
        "QG9",
        "NOT_REQUIRED_AT_65",
        "Part B: must enroll during your Initial Enrollment Period.",
        "Part B: if you have no employer coverage, must enroll during your Initial Enrollment Period.",
    ),
    (
        "ship_medicare_only",
        "QG12",
        "LTC_NONE_COVER",
        "Medicare Part A covers up to 100 days of nursing home care per year for anyone who needs "
        "help with daily activities.",
        "Medicare Part A doesn't cover nursing home care for anyone who only needs help with daily "
        "activities.",
    ),
    (
        "ship_dual_eligible",
        "QG6",
        "LTC_NOT_COVERED",
        "Medicare Part A covers up to 100 days of nursing home care for anyone who needs help with "
        "daily activities.",
        "Medicare Part A covers up to 100 days of nursing home care, but not for anyone who only "
        "needs help with daily activities.",
    ),
    (
        "ship_medicare_only",
        "QG14",
        "HMO_IN_NETWORK_RULE",
        "Advantage plans, HMOs included, follow Medicare's rules, and Medicare guarantees you can see "
        "any doctor who accepts Medicare.",
        "Advantage plans, HMOs included, follow their own networks, while Original Medicare "
        "guarantees you can see any doctor who accepts Medicare.",
    ),
    (
        "ship_medicare_only",
        "QG14",
        "HMO_IN_NETWORK_RULE",
        "Even if the doctor is not in the network, you'd still be able to keep seeing the doctor; it "
        "would just cost more.",
        "Even if the doctor is not in the network, you'd still be able to keep seeing the doctor; "
        "you'd pay the full cost.",
    ),
    (
        "ship_medicare_only",
        "QG14",
        "HMO_IN_NETWORK_RULE",
        "The network mainly affects your price, not whether you're covered.",
        "In a PPO, the network mainly affects your price, not whether you're covered.",
    ),
    (
        "ship_medicare_only",
        "QG14",
        "HMO_IN_NETWORK_RULE",
        "With an HMO you can generally keep your doctor.",
        "With an HMO you can generally keep your doctor if they're in the network.",
    ),
    (
        "ship_medicare_only",
        "QG19",
        "MAPD_MOST",
        "Medicare Advantage HMOs usually cover your Part A and Part B services only.",
        "Some Medicare Advantage HMOs cover your Part A and Part B services only.",
    ),
    (
        "ship_medicare_only",
        "QG19",
        "MAPD_MOST",
        "Medicare Advantage HMOs usually don't include drug coverage.",
        "Medicare Advantage HMOs usually include drug coverage.",
    ),
    (
        "ship_medicare_only",
        "QG19",
        "MAPD_MOST",
        "With an HMO like this one, you'd add a separate Part D plan for prescriptions.",
        "With Original Medicare instead of an HMO like this one, you'd add a separate Part D plan "
        "for prescriptions.",
    ),
    (
        "ship_medicare_only",
        "QG17",
        "PCP_COPAY_RULE",
        "Plans aren't allowed to charge less than Medicare's standard cost sharing for Part B services.",
        "Plans aren't allowed to charge more than Medicare's standard cost sharing for some Part B services.",
    ),
    (
        "ship_medicare_only",
        "QG17",
        "PCP_COPAY_RULE",
        "With a Medicare Advantage HMO, you usually pay 20% for each primary care visit.",
        "With Original Medicare, you usually pay 20% for each primary care visit.",
    ),
    (
        "ship_medicare_only",
        "QG17",
        "PCP_COPAY_RULE",
        "Medicare Advantage plans generally use the same cost-sharing structure Medicare does.",
        "Medicare Advantage plans don't use the same cost-sharing structure Medicare does.",
    ),
]


@pytest.mark.parametrize(("name", "group", "fact", "wrong", "right"), PAIRS)
def test_wrong_rule_contradicts_and_its_twin_does_not(
    name: str, group: str, fact: str, wrong: str, right: str
) -> None:
    wrong_rule_pair(name, group, fact, wrong, right)
