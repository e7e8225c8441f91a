"""Round-8 wrong rules the keys now read as contradictions (Medicaid not paying for long-term care,
Medicaid covering no cost sharing whatever the option, $1,600 over the programs' limits or out of
their reach, an Advantage plan without drugs plus a stand-alone Part D plan, the named plan's
hedged drug coverage or its own $0 primary-care copay, Medicare requiring HMOs to charge nothing for
primary care), each with its true or guarded twin."""

from __future__ import annotations

import pytest

from .rules_support import wrong_rule_pair

# (key, group, fact or claim, wrong sentence, the same point said rightly or guarded)
PAIRS = [
    (
        "ship_dual_eligible",
        "QG6",
        "MEDICAID_LTC_COVERS",
        "Medicaid helps with medical bills, but it doesn't pay for long-term care either.",
        "Medicaid helps with medical bills, and it does pay for long-term care for people who qualify.",
    ),
    (
        "ship_dual_eligible",
        "QG7",
        "MEDICAID_COVERS_ALL_OPTIONS",
        "Deductibles and coinsurance: not covered by Medicaid, any option.",
        "Deductibles and coinsurance: covered by Medicaid, any option.",
    ),
    (
        "ship_dual_eligible",
        "QG7",
        "MEDICAID_COVERS_ALL_OPTIONS",
        "Cost sharing: on you, no matter which.",
        "Cost sharing: covered by Medicaid, no matter which.",
    ),
    (
        "ship_dual_eligible",
        "QG8",
        "MAY_QUALIFY_1600",
        "At $1,600 a month you'd most likely be just over the income limits for the main "
        "assistance programs.",
        "At $1,600 a month you'd most likely be just under the income limits for the main "
        "assistance programs.",
    ),
    (
        "ship_dual_eligible",
        "QG8",
        "MAY_QUALIFY_1600",
        "MSP and Extra Help: probably just out of reach at $1,600 a month.",
        "MSP and Extra Help: probably within reach at $1,600 a month.",
    ),
    (
        "ship_dual_eligible",
        "QG8",
        "MAY_QUALIFY_1600",
        "You'd generally pay the standard Medicare costs yourself.",
        "Without these programs, you'd generally pay the standard Medicare costs yourself.",
    ),
    (
        "ship_medicare_only",
        "QG13",
        "PARTD_TWO_ROUTES",
        "You simply buy a stand-alone Part D plan alongside it, just as you would with Original Medicare.",
        "You can't simply buy a stand-alone Part D plan alongside it, as you would with Original Medicare.",
    ),
    (
        "ship_medicare_only",
        "QG13",
        "PARTD_TWO_ROUTES",
        "MA-only + PDP: two cards.",
        "Original Medicare + PDP: two cards.",
    ),
    (
        "ship_medicare_only",
        "QG19",
        "MAPD_MOST",
        "Medicare Advantage without drugs + a separate Part D plan: two cards.",
        "Original Medicare + a separate Part D plan: two cards.",
    ),
    (
        "ship_medicare_only",
        "QG19",
        "INVENTED_PLAN_BENEFITS",
        "Plans like this one almost always come with drug coverage, so it very likely does include Part D.",
        "Plans like this one almost always come with drug coverage, but check whether it does "
        "include Part D.",
    ),
    (
        "ship_medicare_only",
        "QG19",
        "INVENTED_PLAN_BENEFITS",
        "It almost certainly includes prescription drug coverage.",
        "Most Advantage plans include prescription drug coverage.",
    ),
    (
        "ship_medicare_only",
        "QG17",
        "INVENTED_PLAN_COST_SHARING",
        "Harborview Example Advantage (HMO) doesn't charge a copay for in-network primary care visits.",
        "Many HMOs don't charge a copay for in-network primary care visits.",
    ),
    (
        "ship_medicare_only",
        "QG17",
        "PCP_COPAY_RULE",
        "Medicare requires HMO plans to cover in-network primary care visits at no cost to members.",
        "Medicare requires HMO plans to cover in-network preventive visits at no cost to members.",
    ),
    (
        "ship_medicare_only",
        "QG17",
        "PCP_COPAY_RULE",
        "PCP visit: $0 (required for HMOs).",
        "PCP visit: $0 (common for HMOs).",
    ),
]


@pytest.mark.parametrize(("name", "group", "fact", "wrong", "right"), PAIRS)
def test_wrong_rule_contradicts_and_its_twin_does_not(
    name: str, group: str, fact: str, wrong: str, right: str
) -> None:
    wrong_rule_pair(name, group, fact, wrong, right)
