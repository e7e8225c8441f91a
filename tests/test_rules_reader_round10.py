"""False Incorrects found on the round-10 corpus (issue 22), the final coder's held-out reading,
fixed afterwards by general readings and key guards, each as a minimal pair: the true answer is not
Incorrect, the wrong one beside it is.

- a year's total of a monthly amount ("$2,434.80 a year", "premium x 12") is the monthly amount;
- "Before that, it was once per quarter" is history;
- a quoted rule denied ('not a general "switch any plan any month" rule') is not asserted;
- a sentence that opens "As an illustration" holds the illustration's figures;
- key guards: an employer plan's PCP copay, "before your choice is final", the Part B premium not
  paid while Part B is delayed, "$2,000-$4,000 in copays", a spend-down in some states.
"""

from __future__ import annotations

import pytest

from .rules_support import minimal_pair

ONLY = "ship_medicare_only"
DUAL = "ship_dual_eligible"
PREMIUM = "Plan premiums vary, many are $0; check Harborview's Summary of Benefits. "
IEP = (
    "You first sign up during your 7-month Initial Enrollment Period around your 65th birthday. You can "
    "change plans during Open Enrollment, October 15 to December 7, and with Medicaid your drug plan "
    "once a month. "
)
PCP = "Many HMOs charge $0 for in-network primary care; check Harborview's Summary of Benefits. "
MOOP = (
    "Every Medicare Advantage plan has a yearly limit, no more than $9,250 in-network in 2026; check "
    "Harborview's Evidence of Coverage for its own. "
)

# (scenario, group, true answer, wrong answer)
PAIRS = [
    (ONLY, "QG15", PREMIUM + "The Part B premium is $202.90 a month, $2,434.80 a year in 2026.",
     PREMIUM + "The Part B premium is $2,434.80 in 2026."),
    (ONLY, "QG15", PREMIUM + "Fixed costs: Part B premium x 12 ($2,434.80 in 2026).",
     PREMIUM + "Fixed costs: the Part B premium ($2,434.80 in 2026)."),
    (DUAL, "QG1", IEP + "Before that, the option was limited to once per quarter.",
     IEP.replace("once a month", "once per quarter")),
    (DUAL, "QG1", IEP + 'This is not a general "switch any Medicare Advantage plan any month" rule.',
     IEP + "You can switch any Medicare Advantage plan any month."),
    (ONLY, "QG17", PCP + "Under many employer plans, a PCP visit costs $20-$40.",
     PCP + "A PCP visit costs $20-$40."),
    (ONLY, "QG18", MOOP + "One hospital stay with surgery could easily run $2,000-$4,000 in copays.",
     MOOP + "The 2026 cap on drug costs is $2,000."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("scenario", "group", "true", "wrong"), PAIRS, ids=[f"{p[1]}-{n}" for n, p in enumerate(PAIRS)]
)
def test_round_ten_readings_as_minimal_pairs(scenario: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(scenario, group, true, wrong)
