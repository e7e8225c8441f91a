"""Wrong rules that several writers of the held-out rounds 10-14 put in Incorrect answers, in their
own words, and the keys missed: the Advantage plan "taking over" the Part B premium, a stand-alone
Part D plan paired with an Advantage plan, Social Security or Medicare enrolling a worker at 65
automatically, a regular Advantage plan's cost sharing left to a full-benefit dual, a Medigap
policy paired with an Advantage plan, the Medigap Open Enrollment Period opening at 65 whatever Part
B, and no Medigap at all after it. Each with its true, negated or guarded twin."""

from __future__ import annotations

import pytest

from .rules_support import wrong_rule_pair

ONLY = "ship_medicare_only"
DUAL = "ship_dual_eligible"

# (key, group, fact, wrong sentence, the same point said rightly or guarded)
PAIRS = [
    (ONLY, "QG10", "MA_STILL_PAY_PARTB",
     "When you join an Advantage plan, the plan takes over your Part B premium, so a $0 plan costs nothing.",
     "When you join an Advantage plan, the plan doesn't take over your Part B premium; you still pay it."),
    (ONLY, "QG10", "MA_STILL_PAY_PARTB",
     "Once you're in the HMO, Medicare stops deducting the Part B premium from your Social Security check.",
     "Once you're in the HMO, Medicare keeps deducting the Part B premium from your Social Security check."),
    (ONLY, "QG13", "MAPD_MOST",
     "If you like an Advantage plan's doctors but not its drug list, you can keep the Advantage plan for "
     "medical care and add a separate stand-alone Part D plan.",
     "If you like an Advantage plan's doctors but not its drug list, you can't keep the Advantage plan for "
     "medical care and add a separate stand-alone Part D plan."),
    (ONLY, "QG19", "MAPD_MOST",
     "You can pair a stand-alone PDP with an Advantage HMO if its drug list doesn't suit you.",
     "With Original Medicare you can pair a stand-alone PDP with Parts A and B."),
    (ONLY, "QG19", "MAPD_MOST",
     "Pairing a medical-only HMO with a separate Part D plan is a popular way to get better drug coverage.",
     "Pairing a medical-only HMO with a separate Part D plan would end your HMO coverage."),
    (ONLY, "QG9", "NOT_REQUIRED_AT_65",
     "Social Security will automatically enroll you in Parts A and B the month you turn 65.",
     "If you already get benefits, Social Security will automatically enroll you in Parts A and B."),
    (ONLY, "QG9", "NOT_REQUIRED_AT_65",
     "Because Medicare starts automatically at 65, you'll have Parts A and B on your birthday.",
     "Because Medicare starts automatically at 65 only for people already drawing benefits, you'd apply."),
    (DUAL, "QG7", "MEDICAID_COVERS_ALL_OPTIONS",
     "A regular Medicare Advantage plan means paying its cost sharing out of pocket.",
     "A regular Medicare Advantage plan means paying its cost sharing out of pocket only if you lose "
     "Medicaid."),
    (DUAL, "QG3", "DUAL_MA_COSTS_COVERED",
     "Because a regular Advantage plan isn't coordinated with Medicaid, Medicaid doesn't step in on the "
     "plan's copays.",
     "Even in a regular Advantage plan, Medicaid steps in on the plan's copays."),
    (ONLY, "QG11", "MEDIGAP_WITH_TM",
     "Many people pair a $0-premium Advantage plan with a Medigap Plan N to get the best of both.",
     "You can't pair a $0-premium Advantage plan with a Medigap Plan N to get the best of both."),
    (ONLY, "QG11", "MEDIGAP_OEP_6_MONTHS",
     "The Medigap window opens at 65 regardless of Part B, so don't let it slip by.",
     "The Medigap window opens once you're 65 and have Part B, so don't let it slip by."),
    (ONLY, "QG11", "MEDIGAP_OEP_6_MONTHS",
     "Your 6-month Medigap Open Enrollment Period begins the month you turn 65.",
     "Your 6-month Medigap Open Enrollment Period begins the month you're 65 and have Part B."),
    (ONLY, "QG11", "MEDIGAP_ANY_TIME",
     "After those six months, the door to Medigap closes for good.",
     "After those six months, the door to Medigap stays open, though insurers may ask health questions."),
    (DUAL, "QG7", "MEDICAID_COVERS_ALL_OPTIONS",
     "Medicaid doesn't cover a regular MA plan's own copays.",
     "Medicaid covers a regular MA plan's own copays."),
]  # fmt: skip


@pytest.mark.parametrize(("name", "group", "fact", "wrong", "right"), PAIRS)
def test_a_recurring_wrong_rule_is_read_and_its_twin_is_not(
    name: str, group: str, fact: str, wrong: str, right: str
) -> None:
    wrong_rule_pair(name, group, fact, wrong, right)
