"""Round-4 wrong rules the keys now read as contradictions (a 4-month initial window, Medigap
added to a Medicare Advantage plan, an HMO still paying out of network, Medicaid leaving long-term
care or a Medicare Advantage plan's copays to the enrollee), each with its true or guarded twin."""

from __future__ import annotations

import pytest

from .rules_support import wrong_rule_pair

# (key, group, fact, wrong sentence, the same point said rightly or guarded)
PAIRS = [
    (
        "ship_medicare_only",
        "QG1",
        "IEP_AROUND_65",
        "Your enrollment window closes at the end of your birthday month.",
        "Your enrollment window closes 3 months after your birthday month.",
    ),
    (
        "ship_medicare_only",
        "QG1",
        "IEP_AROUND_65",
        "It opens 3 months before you turn 65. That's a 4-month window in total.",
        "It opens 3 months before you turn 65. That's a 7-month window in total.",
    ),
    (
        "ship_medicare_only",
        "QG1",
        "IEP_AROUND_65",
        "If you don't sign up by the end of the month you turn 65, you have to wait for the "
        "General Enrollment Period.",
        "Many people think that if you don't sign up by the end of the month you turn 65, you "
        "have to wait for the General Enrollment Period.",
    ),
    (
        "ship_medicare_only",
        "QG11",
        "MEDIGAP_WITH_TM",
        "You can pair it with Original Medicare, or add it to a Medicare Advantage plan.",
        "You can pair it with Original Medicare, but not add it to a Medicare Advantage plan.",
    ),
    (
        "ship_medicare_only",
        "QG14",
        "HMO_NO_OUT_OF_NETWORK",
        "If your doctor is out of network, the plan will still cover the visits at a higher cost.",
        "If your doctor is out of network, a PPO will still cover the visits at a higher cost.",
    ),
    (
        "ship_medicare_only",
        "QG14",
        "HMO_NO_OUT_OF_NETWORK",
        "Even with an HMO, you usually aren't locked out of your doctor.",
        "Even with an HMO, you aren't locked out of your doctor in an emergency.",
    ),
    (
        "ship_dual_eligible",
        "QG6",
        "MEDICAID_LTC_COVERS",
        "Medicaid covers your doctor visits, but nursing home care requires separate long-term "
        "care insurance.",
        "If you don't qualify for Medicaid, nursing home care requires separate long-term care insurance.",
    ),
    (
        "ship_dual_eligible",
        "QG7",
        "MEDICAID_COVERS_ALL_OPTIONS",
        "Regular MA plans set their own copays, which Medicaid doesn't pick up.",
        "Regular MA plans set their own copays, which Medicaid may not pick up if you have SLMB.",
    ),
    (
        "ship_dual_eligible",
        "QG7",
        "MEDICAID_COVERS_ALL_OPTIONS",
        "With Medicare Advantage, the plan's copays and deductibles are your responsibility.",
        "Without Medicaid, the plan's copays and deductibles are your responsibility.",
    ),
]


@pytest.mark.parametrize(("name", "group", "fact", "wrong", "right"), PAIRS)
def test_wrong_rule_contradicts_and_its_twin_does_not(
    name: str, group: str, fact: str, wrong: str, right: str
) -> None:
    wrong_rule_pair(name, group, fact, wrong, right)
