"""Round-3 wrong rules (issue 22): each wrong rule, worded in general, reads as a contradiction of
its key fact; the same sentence stating the true rule, or hedged, conditioned, reported or asked,
does not."""

from __future__ import annotations

import pytest

from .rules_support import contradicted

DUAL = "ship_dual_eligible"
ALL_OPTIONS = "MEDICAID_COVERS_ALL_OPTIONS"
EXTRA_HELP = "EXTRA_HELP_NAMED"

PAIRS = [
    # Medicaid leaves a regular Medicare Advantage plan's cost sharing to the enrollee: wrong.
    (
        DUAL,
        "QG7",
        ALL_OPTIONS,
        "Medicaid pays your Part B premium, but it doesn't cover a Medicare Advantage plan's copays.",
        "Medicaid pays your Part B premium, and it also covers a Medicare Advantage plan's copays.",
    ),
    (
        DUAL,
        "QG7",
        ALL_OPTIONS,
        "Medicaid pays your Part B premium, but it doesn't cover a Medicare Advantage plan's copays.",
        "With only SLMB, Medicaid pays your Part B premium, but it doesn't cover a Medicare Advantage"
        " plan's copays.",
    ),
    (
        DUAL,
        "QG7",
        ALL_OPTIONS,
        "Medicaid pays your Part B premium, but it doesn't cover a Medicare Advantage plan's copays.",
        "Medicaid may not cover a Medicare Advantage plan's copays for services Medicare doesn't cover.",
    ),
    (
        DUAL,
        "QG7",
        ALL_OPTIONS,
        "With Medicaid, a Medicare Advantage plan's copays and deductibles are on you.",
        "With Medicaid, a Medicare Advantage plan's copays and deductibles are not on you.",
    ),
    (
        DUAL,
        "QG7",
        ALL_OPTIONS,
        "With Medicaid, a Medicare Advantage plan's copays and deductibles are on you.",
        "If you lose Medicaid, a Medicare Advantage plan's copays and deductibles are on you.",
    ),
    # Extra Help replaced by the Part D cap: wrong, it still exists.
    (
        DUAL,
        "QG8",
        EXTRA_HELP,
        "Extra Help: mostly replaced by the Part D cap.",
        "Extra Help: not replaced by the Part D cap.",
    ),
    (
        DUAL,
        "QG8",
        EXTRA_HELP,
        "The Part D cap replaces Extra Help for most people.",
        "The Part D cap doesn't replace Extra Help for most people.",
    ),
    (
        DUAL,
        "QG8",
        EXTRA_HELP,
        "Extra Help has been replaced by the new cap.",
        "Some people assume Extra Help has been replaced by the new cap.",
    ),
]


@pytest.mark.parametrize(("key", "group", "fact", "wrong", "right"), PAIRS)
def test_wrong_rule_read_and_true_rule_left_alone(
    key: str, group: str, fact: str, wrong: str, right: str
) -> None:
    assert fact in contradicted(key, group, wrong)
    assert fact not in contradicted(key, group, right)


# A hedged "does not appear to be in the network" still states the fictional plan's status.
NETWORK_PAIRS = [
    (
        "Dr. Robin Placeholder does not appear to be in the Harborview network.",
        "Call to check whether Dr. Robin Placeholder appears to be in the Harborview network.",
    ),
    (
        "Dr. Robin Placeholder appears to be in the plan's network.",
        "I can't tell if Dr. Robin Placeholder appears to be in the plan's network.",
    ),
]


@pytest.mark.parametrize(("wrong", "right"), NETWORK_PAIRS)
def test_hedged_network_status_read_and_check_left_alone(wrong: str, right: str) -> None:
    claim = "INVENTED_NETWORK_STATUS"
    assert claim in contradicted("ship_medicare_only", "QG14", wrong)
    assert claim not in contradicted("ship_medicare_only", "QG14", right)
