"""Misses found on the round-6 corpus (issue 22), fixed by general readings and key guards, each as
a minimal pair: the same answer with and without the construct, each coded as the study would.

- what a source says ("some pages still show $185.00", "Source [3] lists $174.70") is reported;
- a figure labelled with a later year the key cannot check ("for 2027 ($9,850)") is not about now;
- a clause set in an earlier year ("Before 2019, the January-March window was ...") is history;
- "Don't assume '...'" denies the belief it quotes, commas and all;
- a question header's figure ("Can it be $0?") is asked about, not the row's value;
- "$0 days 1-20" is a price, not a count of days;
- a program-wide amount named in a sentence about the plan ("count toward the Part D cap, which is
  $2,100") is not a figure invented for the plan;
- key guards: "ma" inside "matter"; Original Medicare's any-doctor rule; waiting for the fall to
  join a plan; a negation that is not the qualifying's own; "from one plan to the next";
- the reader's question said back ("You're asking whether ...") asks and credits nothing.
"""

from __future__ import annotations

import pytest

from .rules_support import covered, key, minimal_pair

ONLY = "ship_medicare_only"
DUAL = "ship_dual_eligible"
PREMIUM = (
    "Plan premiums vary by plan, and many HMOs charge $0; check Harborview's Summary of Benefits on "
    "Medicare Plan Finder. You also keep paying the Part B premium, $202.90 a month in 2026. "
)
MOOP = (
    "Every Medicare Advantage plan has a yearly limit, no more than $9,250 in-network in 2026; check "
    "Harborview's Evidence of Coverage for its own. "
)
IEP = "You first sign up during your 7-month Initial Enrollment Period around your 65th birthday. "
WINDOWS = "You can change plans during Open Enrollment, October 15 to December 7. "
HELP = (
    "At $1,600 a month you may qualify for a Medicare Savings Program and for Extra Help; apply "
    "through Ohio Medicaid. "
)
SNF = "Medicare covers skilled nursing care for up to 100 days after a 3-day hospital stay"
NETWORK = (
    "With an HMO you generally must use the plan's network except in emergencies; check Harborview's "
    "provider directory and call the doctor's office. "
)
LIPITOR = (
    "Brand-name Lipitor is often not on Medicare drug plan formularies, while generic atorvastatin is on "
    "nearly every one. "
)
ROW = "| Charge | 2026 amount | {} |\n|---|---|---|\n| Part B premium | {} | {} |\n"

# (scenario, group, true answer, wrong answer)
PAIRS = [
    (ONLY, "QG15", PREMIUM + "Some pages still show $185.00, but that was the 2025 amount [4].",
     PREMIUM + "The Part B premium is $185.00 [4]."),
    (ONLY, "QG18", MOOP + "CMS has published a higher ceiling for 2027 ($9,850 in-network), but that "
     "doesn't affect 2026 plans.", MOOP + "The in-network ceiling is $9,850."),
    (ONLY, "QG1", IEP + WINDOWS + "Before 2019, the January-March window was the Medicare Advantage "
     "Disenrollment Period (January 1 - February 14).",
     IEP + WINDOWS + "The January-March window is the Medicare Advantage Disenrollment Period (January 1 "
     "- February 14)."),
    (DUAL, "QG8", HELP + "Don't assume \"I'm not on Medicaid, so I don't qualify for anything.\"",
     HELP + "I'm not on Medicaid, so I don't qualify for anything."),
    (ONLY, "QG15", PREMIUM + "\n\n" + ROW.format("Can it be $0?", "$202.90/month", "No, unless Medicaid"),
     PREMIUM + "\n\n" + ROW.format("Who pays it", "$185.00/month", "You")),
    (DUAL, "QG6", SNF + "; $0 days 1-20, $217/day days 21-100 in 2026. Medicaid covers long-term care if "
     "you meet its financial and medical need rules.",
     SNF + "; $0 days 1-20, $209.50/day days 21-100. Medicaid covers long-term care if you meet its "
     "financial and medical need rules."),
    (ONLY, "QG20", LIPITOR + "Check Harborview's drug list on Medicare Plan Finder. Drug costs in the plan "
     "count toward the Part D out-of-pocket cap, which is $2,100 in 2026.",
     LIPITOR + "Check Harborview's drug list on Medicare Plan Finder. Harborview charges $2,100 a year for "
     "drugs."),
    (ONLY, "QG14", NETWORK + "\n\nA few things about Original Medicare tend to matter:\n\n- You can see any "
     "doctor or hospital that takes Medicare.\n",
     NETWORK + "\n\nWith an HMO you can see any doctor who accepts Medicare.\n"),
    (ONLY, "QG1", IEP + WINDOWS + "If you're in Original Medicare, it doesn't let you join an MA plan in "
     "January; for that you'd wait for the fall Open Enrollment.",
     WINDOWS + "You'd wait for the fall Open Enrollment to sign up for Medicare."),
    (DUAL, "QG8", HELP + "If you don't pick a drug plan, Medicare will assign you one, since Medicaid "
     "enrollees automatically qualify for Extra Help.",
     "Medicare Savings Programs and Extra Help exist, but at $1,600 a month you don't qualify for Extra "
     "Help. Apply through Ohio Medicaid anyway."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("scenario", "group", "true", "wrong"), PAIRS, ids=[f"{p[1]}-{n}" for n, p in enumerate(PAIRS)]
)
def test_round_six_readings_as_minimal_pairs(scenario: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(scenario, group, true, wrong)


@pytest.mark.parametrize(
    ("scenario", "group", "item", "without", "with_it"),
    [
        (ONLY, "QG20", "PLAN_CHECK", LIPITOR + "You're asking whether Harborview would cover your Lipitor.",
         LIPITOR + "Check Harborview's drug list on Medicare Plan Finder."),
        (DUAL, "QG4", "DSNP_ONE_PLAN", "The details differ a lot from one plan to the next.",
         "A D-SNP puts your Medicare and Medicaid benefits in one plan."),
        (ONLY, "QG17", "PCP_COPAY_RULE", "Copays differ between plans and can change from year to year.",
         "Copays are set by each plan and many HMOs charge $0 for primary care."),
    ],
)  # fmt: skip
def test_a_credit_needs_the_point_itself(
    scenario: str, group: str, item: str, without: str, with_it: str
) -> None:
    assert item not in covered(key(scenario), group, without)
    assert item in covered(key(scenario), group, with_it)
