"""Round-2 wrong rules (issue 22): each wrong rule, worded in general, reads as a contradiction of
its key fact, and the same sentence stating the true rule (or its exception) does not."""

from __future__ import annotations

import pytest

from .rules_support import contradicted

PAIRS = [
    (
        "ship_dual_eligible",
        "QG3",
        "DUAL_MA_MEDICAID_SEPARATE",
        "If you join a regular Medicare Advantage plan, your Medicaid coverage ends.",
        "If you join a regular Medicare Advantage plan, your Medicaid coverage continues.",
    ),
    (
        "ship_dual_eligible",
        "QG7",
        "DUAL_MA_COSTS_COVERED",
        "If you pick a regular Advantage plan, the state stops paying your Part B premium.",
        "If you pick a regular Advantage plan, the state keeps paying your Part B premium.",
    ),
    (
        "ship_dual_eligible",
        "QG7",
        "DUAL_MA_COSTS_COVERED",
        "Medicaid only pays the premium if you're in a D-SNP.",
        "Medicaid pays the premium whether or not you're in a D-SNP.",
    ),
    (
        "ship_medicare_only",
        "QG9",
        "NOT_REQUIRED_AT_65",
        "Enroll in Part B at 65. This applies even if you're still working.",
        "Enroll in Part B at 65. This does not apply if you're still working.",
    ),
    (
        "ship_medicare_only",
        "QG11",
        "MEDIGAP_ANY_TIME",
        "Each fall you can switch to another Medigap plan with no health questions.",
        "Each fall you cannot switch to another Medigap plan with no health questions.",
    ),
    (
        "ship_medicare_only",
        "QG12",
        "LTC_NONE_COVER",
        "Many Advantage plans include long-term care benefits, such as custodial care at home.",
        "Advantage plans don't include long-term care benefits, such as custodial care at home.",
    ),
    (
        "ship_medicare_only",
        "QG12",
        "LTC_NONE_COVER",
        "With a Medigap policy a long nursing home stay is covered.",
        "With a Medigap policy a long nursing home stay is not covered.",
    ),
]


@pytest.mark.parametrize(("key", "group", "fact", "wrong", "right"), PAIRS)
def test_wrong_rule_read_and_true_rule_left_alone(
    key: str, group: str, fact: str, wrong: str, right: str
) -> None:
    assert fact in contradicted(key, group, wrong)
    assert fact not in contradicted(key, group, right)


# Statements about the named (fictional) plan's status, hedged or not, are invented; the same
# sentence that sends the shopper to check the plan is not.
PLAN_PAIRS = [
    (
        "QG16",
        "INVENTED_PLAN_AVAILABILITY",
        "Harborview Example Advantage doesn't appear to be offered in your county.",
        "Check whether Harborview Example Advantage is offered in your county.",
    ),
    (
        "QG16",
        "INVENTED_PLAN_BENEFITS",
        "Harborview is an HMO, but it has a point-of-service benefit.",
        "Check whether Harborview has a point-of-service benefit.",
    ),
    (
        "QG19",
        "INVENTED_PLAN_BENEFITS",
        "I can't see its documents, but Harborview is most likely an MA-PD plan.",
        "I can't see its documents, so check if Harborview is an MA-PD plan.",
    ),
    (
        "QG20",
        "MAPD_MOST",
        "Join a stand-alone Part D plan and keep your HMO for medical care.",
        "You can't join a stand-alone Part D plan and keep your HMO for medical care.",
    ),
]


@pytest.mark.parametrize(("group", "claim", "wrong", "right"), PLAN_PAIRS)
def test_named_plan_status_read_and_check_left_alone(group: str, claim: str, wrong: str, right: str) -> None:
    assert claim in contradicted("ship_medicare_only", group, wrong)
    assert claim not in contradicted("ship_medicare_only", group, right)
