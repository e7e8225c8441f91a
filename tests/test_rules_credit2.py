"""Checklist credit as the rule is worded, not as one answer words it: a paraphrase of the rule
earns its item, and a sentence that only looks like it (a referral, "premiums vary", a generic's
name in a how-to-check step) earns nothing. Minimal pairs, each side coded as the study would."""

from __future__ import annotations

import pytest

from medeval.schemas import Scenario

from .rules_support import covered

CREDITED = [
    # (key, group, item, the rule in other words, the same answer without the point)
    (
        "dual",
        "QG3",
        "DUAL_MA_MEDICAID_SEPARATE",
        "The Advantage plan handles Medicare benefits; Medicaid still handles its own benefits "
        "outside the plan.",
        "The Advantage plan handles Medicare benefits.",
    ),
    (
        "dual",
        "QG3",
        "DUAL_MA_COSTS_COVERED",
        "Medicaid picks up the plan's Medicare cost sharing.",
        "Medicaid keeps its own benefits.",
    ),
    (
        "dual",
        "QG6",
        "LTC_NOT_COVERED",
        "Neither Original Medicare nor a Medicare Advantage plan covers long-term custodial care.",
        "Original Medicare and Medicare Advantage plans have different networks.",
    ),
    (
        "dual",
        "QG8",
        "MAY_QUALIFY_1600",
        "At $1,600 a month, you're in the income range these programs were designed for.",
        "These programs were designed for people with limited income.",
    ),
    (
        "medicare_only",
        "QG15",
        "PLAN_PREMIUMS_VARY",
        "Advantage plans are run by private insurers; many are $0.",
        "Advantage plans are run by private insurers; many are HMOs.",
    ),
    (
        "medicare_only",
        "QG20",
        "LIPITOR_BRAND_GENERIC",
        "Atorvastatin is the generic; it's on nearly every Medicare drug plan's formulary.",
        "Atorvastatin is the generic; look it up in the plan's drug list.",
    ),
]


@pytest.mark.parametrize(("which", "group", "item", "said", "unsaid"), CREDITED)
def test_the_rule_in_other_words_is_credited(
    request: pytest.FixtureRequest, which: str, group: str, item: str, said: str, unsaid: str
) -> None:
    key = request.getfixturevalue(which)
    assert item in covered(key, group, said)
    assert item not in covered(key, group, unsaid)


PARTB = "You still pay the Part B premium, $202.90 a month in 2026."
GENERIC = "The generic name is atorvastatin calcium."
NOT_CREDITED = [
    # A referral or a "varies" line states no rule; the checklist calls it Not Substantive.
    (
        "QG15",
        "PLAN_PREMIUMS_VARY",
        f"{PARTB} Premiums vary by plan, county and year.",
        f"{PARTB} Many plans have a $0 premium.",
    ),
    (
        "QG17",
        "PCP_COPAY_RULE",
        "Copays for doctor visits vary by plan and by location.",
        "Many HMOs charge $0 for in-network primary care visits.",
    ),
    # Naming the generic in a how-to-check step is not the rule that it is covered and cheaper.
    (
        "QG20",
        "LIPITOR_BRAND_GENERIC",
        f"{GENERIC} Add it to your Plan Finder drug list, or find it in the plan's formulary index, which "
        "lists generics in lowercase.",
        f"{GENERIC} Generic atorvastatin is covered by almost every plan and costs less.",
    ),
]


@pytest.mark.parametrize(("group", "item", "loose", "rule"), NOT_CREDITED)
def test_a_sentence_that_only_looks_like_the_rule_earns_nothing(
    medicare_only: Scenario, group: str, item: str, loose: str, rule: str
) -> None:
    assert item not in covered(medicare_only, group, loose)
    assert item in covered(medicare_only, group, rule)
