"""Checklist credit, round 3: a rule's paraphrase earns its item, and a sentence that only brushes
the rule's words (a question about when a window opens, the shopper's own "whether I keep
Medicaid", free counseling "at no cost", "any help you might be eligible for", "set by each
insurer", a plan type's bare name, a drug that stays cheap "either way") earns nothing. Minimal
pairs, each side coded as the study would."""

from __future__ import annotations

import pytest

from .rules_support import covered

PAIRS = [
    # (key, group, item, a sentence that only looks like the rule, the rule stated)
    (
        "dual",
        "QG1",
        "IEP_AROUND_65",
        "I can't tell you when your enrollment window opens without your date of birth.",
        "Your sign-up window is already open, so you can enroll now.",
    ),
    (
        "dual",
        "QG3",
        "DUAL_OM_MEDICAID_SEPARATE",
        "Your options depend on whether you'll keep full Medicaid after 65.",
        "With Original Medicare you keep your full Medicaid as well.",
    ),
    (
        "dual",
        "QG3",
        "DSNP_LOW_COST",
        "A SHIP counselor can go over the options in your state at no cost.",
        "With full Medicaid a D-SNP usually has no cost sharing for you.",
    ),
    (
        "dual",
        "QG8",
        "MSP_NAMED",
        "Some programs help with costs, and they're administered through your state.",
        "Medicare Savings Programs are run by your state Medicaid office.",
    ),
    (
        "dual",
        "QG8",
        "MAY_QUALIFY_1600",
        "Ask your Medicaid office to screen you for any help you might be eligible for.",
        "At your income you might be eligible for Extra Help.",
    ),
    (
        "dual",
        "QG7",
        "MEDICAID_COVERS_ALL_OPTIONS",
        "Your Lipitor should stay low-cost either way.",
        "Your Medicare premiums and copays are covered either way.",
    ),
    (
        "medicare_only",
        "QG15",
        "PLAN_PREMIUMS_VARY",
        "Premiums are set by each insurer and change yearly.",
        "Premiums range from $0 to over $100 a month.",
    ),
    (
        "medicare_only",
        "QG19",
        "MAPD_MOST",
        "Watch for look-alike plan names (MA vs MA-PD versions).",
        "Most Medicare Advantage plans are MA-PD plans.",
    ),
]


@pytest.mark.parametrize(("which", "group", "item", "loose", "rule"), PAIRS)
def test_a_sentence_that_only_brushes_the_rule_earns_nothing(
    request: pytest.FixtureRequest, which: str, group: str, item: str, loose: str, rule: str
) -> None:
    key = request.getfixturevalue(which)
    assert item not in covered(key, group, loose)
    assert item in covered(key, group, rule)


PARAPHRASES = [
    # (key, group, item, the rule in other words, the same answer without the point)
    (
        "dual",
        "QG4",
        "DSNP_DUALS_ONLY",
        "D-SNPs are Medicare Advantage plans that enroll only people who qualify for both Medicare "
        "and Medicaid.",
        "D-SNPs are Medicare Advantage plans.",
    ),
    (
        "medicare_only",
        "QG10",
        "MA_MAY_NOT_KEEP_DOCTOR",
        "If your current doctor isn't in the plan's network, you may not be able to keep seeing them.",
        "Advantage plans have networks of doctors and hospitals.",
    ),
]


@pytest.mark.parametrize(("which", "group", "item", "said", "unsaid"), PARAPHRASES)
def test_the_rule_in_other_words_is_credited(
    request: pytest.FixtureRequest, which: str, group: str, item: str, said: str, unsaid: str
) -> None:
    key = request.getfixturevalue(which)
    assert item in covered(key, group, said)
    assert item not in covered(key, group, unsaid)
