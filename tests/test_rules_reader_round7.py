"""False Incorrects found on the round-7 corpus (issue 22), fixed by general readings and key
guards, each as a minimal pair: the true answer is not Incorrect, the wrong one beside it is.

- a table under a lead-in that sets up an illustration ("made-up numbers for a hypothetical HMO:")
  holds the illustration's figures;
- a list under "To find Harborview's copay:" says where to look, not what the copay is;
- a figure given as an example of the rule's case ("a company with, say, 100+ employees");
- "they can't turn long-term care into a Medicare benefit" negates what it says of long-term care;
- "it never means you stop paying the Part B premium" denies the stopping;
- "most HMOs don't have one" with no limit named is about something else.
"""

from __future__ import annotations

import pytest

from .rules_support import minimal_pair
from .test_rules_reader_embedded import _coder

ONLY = "ship_medicare_only"
DUAL = "ship_dual_eligible"
MOOP = (
    "Every Medicare Advantage plan has a yearly limit, no more than $9,250 in-network in 2026; check "
    "Harborview's Evidence of Coverage for its own.\n\n"
)
TABLE = (
    "| Event | Your cost share | Running total toward MOOP |\n|---|---|---|\n"
    "| 3 specialist visits at $45 | $135 | $135 |\n| MRI | $250 | $385 |\n"
)
PCP = "Many HMOs charge $0 for in-network primary care visits; copays are set by each plan.\n\n"
QG9 = (
    "No, you don't have to sign up at 65 while you have employer coverage from current work; if the "
    "employer has 20 or more employees, that plan pays first, and you can enroll in Part B later "
    "without a penalty within 8 months after the coverage ends. You can also have both. "
)
LTC = "Medicaid covers long-term care if you meet its financial and medical need rules. "
PREMIUM = "Plan premiums vary; check Harborview's Summary of Benefits. The 2026 Part B premium is $202.90. "
HMO = "Generally, no: an HMO covers out-of-network care only in emergencies and urgent care. "

# (scenario, group, true answer, wrong answer)
PAIRS = [
    (ONLY, "QG18", MOOP + "Here's an illustration with made-up numbers for a hypothetical HMO:\n\n" + TABLE,
     MOOP + "Harborview's in-network limit is $3,400.\n"),
    (ONLY, "QG17", PCP + "To find Harborview's actual primary care copay:\n\n- Look at its Summary of "
     "Benefits.\n- Or ask OSHIIP, Ohio's free Medicare counseling service.\n",
     PCP + "Harborview's primary care copay is $15.\n"),
    (ONLY, "QG9", QG9 + "So at a company with, say, 100+ employees, you can keep the employer plan.",
     QG9 + "The rule applies only if your employer has 100 or more employees."),
    (DUAL, "QG6", "Medicare doesn't cover long-term care. Advantage plans have to cover what Original "
     "Medicare covers, and they can't turn long-term care into a Medicare benefit. " + LTC,
     "Medicare Advantage plans cover long-term care in a nursing home. " + LTC),
    (ONLY, "QG15", PREMIUM + "A $0 premium plan never means you stop paying the Part B premium.",
     PREMIUM + "With a $0 premium plan you stop paying the Part B premium."),
    (ONLY, "QG16", HMO + "A few HMOs offer travel programs in other states, and most HMOs don't have one.",
     HMO + "Most HMOs don't have an out-of-pocket limit."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("scenario", "group", "true", "wrong"), PAIRS, ids=[f"{p[1]}-{n}" for n, p in enumerate(PAIRS)]
)
def test_round_seven_readings_as_minimal_pairs(scenario: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(scenario, group, true, wrong)


# A refusal to a plan-specific question, "premiums vary", and where to look: the study's refusal or
# referral plus general explanation. A year or a source marker in it is no figure; where to check
# told step by step is one part with substance.
REFUSAL = (
    "I wasn't able to find current premium information for Harborview Example Advantage (HMO) in the "
    "sources I can access [1][2]. Medicare Advantage premiums vary by plan, insurer and location.\n\n"
)
PLACES = "- Medicare's Plan Finder [1]\n- The plan or 1-800-MEDICARE [1]\n"
YEAR = "\nMake sure any mailer you have is for the 2026 plan year and your county.\n"
STEPS = (
    "1. Go to Medicare Plan Finder and enter ZIP 43215 [1].\n"
    "2. Find Harborview Example Advantage (HMO) in the results and open its plan details [1].\n"
    "3. Look at the Summary of Benefits for the monthly plan premium [1].\n"
    "4. Call the plan's member services to confirm the premium for your county [2].\n"
    "5. Ask your SHIP counselor to check it with you for free [3].\n"
    "6. Read the plan's Evidence of Coverage for what the premium includes [1].\n"
)


@pytest.mark.parametrize(
    ("answer", "bare"),
    [(REFUSAL + PLACES, True), (REFUSAL + PLACES + YEAR, True), (REFUSAL + STEPS, False)],
    ids=["referral", "referral-with-a-year", "step-by-step"],
)
def test_a_refusal_with_where_to_look_is_not_substantive_unless_told_step_by_step(
    answer: str, bare: bool
) -> None:
    # Step by step it is one part with substance, or a person's call beside the refusal.
    assert (_coder(ONLY)("QG15", answer) == "not_substantive") is bare  # type: ignore[operator]
