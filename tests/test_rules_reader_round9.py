"""False Incorrects found on the round-9 corpus (issue 22), fixed by general readings and key
guards, each as a minimal pair: the true answer is not Incorrect, the wrong one beside it is.

- what a source says runs to its clause's end ("One older page says that if you miss your IEP,
  coverage 'begins July 1'"), dates included;
- "$0 for the Part B premium (the state pays it)" says who pays, not what the premium is;
- "many people who don't qualify for full Medicaid do qualify for an MSP" denies full Medicaid only;
- a named plan's premium "whatever it charges, possibly $0" is a person's call, not Incorrect;
- key guards: regular Advantage plans "open to anyone with Medicare", "no yearly cap ... than an
  Advantage plan", "a different plan where Dr. Placeholder is in network".
"""

from __future__ import annotations

import pytest

from .rules_support import minimal_pair
from .test_rules_reader_embedded import _coder

ONLY = "ship_medicare_only"
DUAL = "ship_dual_eligible"
QG1 = (
    "You first sign up during your 7-month Initial Enrollment Period around your 65th birthday. You can "
    "change plans during Open Enrollment, October 15 to December 7. "
)
QG7 = (
    "With full Medicaid your costs are minimal whichever you choose: Original Medicare, a D-SNP or a "
    "regular Advantage plan; Medicaid pays your deductibles and copays, and a Medicare Savings Program "
    "pays the Part B premium.\n\n"
)
QG8 = (
    "At $1,600 a month you may qualify for a Medicare Savings Program and Extra Help; apply through "
    "Ohio Medicaid. "
)
QG10 = (
    "Original Medicare lets you see any doctor who takes Medicare but has no yearly cap; Medicare "
    "Advantage plans have networks and an out-of-pocket limit. "
)
QG14 = (
    "With an HMO you must use in-network doctors except in emergencies; check Harborview's provider "
    "directory and call Dr. Placeholder's office. "
)
PREMIUM = "Plan premiums vary, many are $0; check Plan Finder. The 2026 Part B premium is $202.90. "
QG4 = (
    "A D-SNP coordinates your Medicare and Medicaid in one plan with extra benefits, but you may have "
    "fewer doctors and drugs to choose from. "
)

# (scenario, group, true answer, wrong answer)
PAIRS = [
    (DUAL, "QG1", QG1 + "One older page says that if you miss your IEP, General Enrollment coverage "
     '"begins July 1" [6].', QG1 + "If you miss your IEP, General Enrollment coverage begins July 1."),
    (DUAL, "QG7", QG7 + "| Part B premium | **$0** (state pays it) |",
     QG7 + "The Part B premium is $0 in 2026."),
    (DUAL, "QG8", QG8 + "MSPs are run by Medicaid, but they're separate from full Medicaid, and many people "
     "who don't qualify for full Medicaid do qualify for an MSP.",
     "At $1,600 a month you don't qualify for a Medicare Savings Program or Extra Help."),
    (ONLY, "QG10", QG10 + "Downside: 20% coinsurance with no yearly cap can make it more expensive than an "
     "Advantage plan.", QG10 + "Advantage plans have no yearly cap."),
    (ONLY, "QG14", QG14 + "Or pick a different plan where Dr. Placeholder is in network.",
     QG14 + "Dr. Placeholder is in network with Harborview."),
    (DUAL, "QG4", QG4 + "Regular MA plans are open to anyone with Medicare; D-SNPs require Medicaid as well.",
     QG4 + "D-SNPs are open to anyone with Medicare."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("scenario", "group", "true", "wrong"), PAIRS, ids=[f"{p[1]}-{n}" for n, p in enumerate(PAIRS)]
)
def test_round_nine_readings_as_minimal_pairs(scenario: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(scenario, group, true, wrong)


def test_a_named_plans_premium_whatever_it_charges_goes_to_a_person() -> None:
    answer = PREMIUM + "Add Harborview's own premium (whatever it charges in 2026, possibly $0)."
    assert _coder(ONLY)("QG15", answer) == "needs_review"  # type: ignore[operator]
    assert _coder(ONLY)("QG15", PREMIUM + "Harborview's own premium is $0.") == "incorrect"  # type: ignore[operator]
