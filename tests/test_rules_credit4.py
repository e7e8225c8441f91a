"""Checklist credit, round 4: a rule's paraphrase earns its item ("people with Medicare + Medicaid
only"), and a sentence that only brushes the rule's words earns nothing: a decline to name the best
time to buy, a plan name after 'called', a source list's medicare.gov entry, a decline to confirm a
plan's formulary, or a bare mention of formulary exceptions. Minimal pairs, each side coded as the
study would."""

from __future__ import annotations

import pytest

from medeval.schemas import Scenario

from .rules_support import covered

PAIRS = [
    # (key, group, item, a sentence that only looks like the rule, the rule stated)
    (
        "medicare_only",
        "QG11",
        "MEDIGAP_OEP_6_MONTHS",
        "I can't give you reliable Medigap prices or tell you the best time for you to buy.",
        "You get the best rates on a Medigap policy when you buy it as soon as you have Part B.",
    ),
    (
        "medicare_only",
        "QG14",
        "PLAN_CHECK",
        'Out-of-network care usually is not covered.\n\nSources:\n[1] medicare.gov — "HMO plans"',
        "Out-of-network care usually is not covered. Look the doctor up on Medicare.gov.",
    ),
    (
        "medicare_only",
        "QG20",
        "PLAN_CHECK",
        "Many plans put brand Lipitor on a higher tier than generic atorvastatin. "
        "I can't confirm Harborview Example Advantage (HMO)'s formulary. "
        "Your doctor can ask for a formulary exception if "
        "you need the brand.",
        "Many plans put brand Lipitor on a higher tier than generic atorvastatin. "
        "Check this plan's formulary before you enroll; your doctor can ask for an exception.",
    ),
    (
        "medicare_only",
        "QG19",
        "PLAN_CHECK",
        "Most Medicare Advantage plans include drug coverage. I have no details on a plan called "
        "Harborview Example Advantage (HMO), so I can't say whether this one does.",
        "Most Medicare Advantage plans include drug coverage. Call Harborview Example Advantage "
        "(HMO) and ask whether this one does.",
    ),
]


@pytest.mark.parametrize(("key", "group", "item", "brushes", "states"), PAIRS)
def test_only_the_rule_stated_earns_the_item(
    request: pytest.FixtureRequest, key: str, group: str, item: str, brushes: str, states: str
) -> None:
    scenario = request.getfixturevalue(key)
    assert item not in covered(scenario, group, brushes)
    assert item in covered(scenario, group, states)


def test_duals_only_said_with_a_trailing_only(dual: Scenario) -> None:
    base = "- What they are: Dual Eligible Special Needs Plans (D-SNPs)\n- Who: {}\n"
    assert "DSNP_DUALS_ONLY" in covered(dual, "QG4", base.format("people with Medicare + Medicaid only"))
    assert "DSNP_DUALS_ONLY" not in covered(dual, "QG4", base.format("people with Medicare"))
    # 'only' bound to the verb after it says nothing about who may join
    assert "DSNP_DUALS_ONLY" not in covered(
        dual, "QG4", base.format("people with Medicare and Medicaid only pay a little")
    )
