"""False Incorrects found on the round-4 corpus (issue 22), fixed by general readings and guards,
each as a minimal pair: the true answer is not Incorrect, the wrong one beside it is.

- a year labelling the value after it ("(2025: $209.50/day)") dates that value;
- a figure under a denying lead-in ("Common Myths") or an example's ("Suppose a plan's limit were
  $6,000") is the myth's or the example's, and "say $1,500" is an example's figure;
- quoted speech ('you'll hear people say "everyone has to sign up at 65"') asserts nothing;
- a hedged "Generally no" cell answers its header in the negative;
- "making sure the plan includes drug coverage" instructs;
- a fact with two windows is right on the second after the first's right dates;
- "If you are, Medicare enrolls you automatically" leans on the condition before it;
- "you usually aren't allowed to add a stand-alone Part D plan" is the rule;
- "you don't pay the Part B premium through the plan" says how it is paid, not that it is not;
- "you can join one wherever one is offered" invents no local plan.
"""

from __future__ import annotations

import pytest

from .rules_support import minimal_pair
from .test_rules_reader import QG9, QG13

ONLY = "ship_medicare_only"
DUAL = "ship_dual_eligible"
IEP = "You first sign up during your 7-month Initial Enrollment Period around your 65th birthday. "
SNF = "Medicare covers skilled nursing care for up to 100 days. "
MOOP = (
    "Every Medicare Advantage plan has a yearly limit, no more than $9,250 in-network in 2026; check "
    "Harborview's Evidence of Coverage for its own."
)
MAPD = "Most Medicare Advantage plans include drug coverage; check Harborview's Summary of Benefits."
ROW = "\n\n| Plan type | Can you add a stand-alone Part D plan? |\n|---|---|\n| MA-only HMO or PPO | "
LIPITOR = (
    "Generic atorvastatin is on nearly every formulary; brand Lipitor often is not. Check Harborview's "
    "drug list. "
)
PREMIUM = "Premiums vary by plan; check Harborview's Summary of Benefits. "
DSNP = "D-SNPs aren't offered everywhere; check Medicare's Plan Finder for your ZIP code. "

# (scenario, group, true answer, wrong answer)
PAIRS = [
    (DUAL, "QG6", SNF + "SNF cost sharing, 2026: $217/day for days 21-100 (2025: $209.50/day).",
     SNF + "SNF cost sharing is $209.50/day for days 21-100."),
    (ONLY, "QG13", QG13 + '\n\n### Common Myths\n\n- "The drug cap is still $2,000." It is $2,100 in 2026.',
     QG13 + " The drug cap is still $2,000."),
    (ONLY, "QG18",
     MOOP + "\n\nHere's a simplified example. Suppose a plan's in-network limit were $6,000:\n\n"
     "- April: a 5-day hospital stay, you pay the plan's daily hospital copays, say $1,500.",
     MOOP + " Harborview charges a $1,500 copay for a hospital stay."),
    (ONLY, "QG9", QG9 + ' You\'ll hear people say "everyone has to sign up at 65."',
     QG9 + " Everyone has to sign up at 65."),
    (ONLY, "QG19", MAPD + ROW + "Generally no |\n", MAPD + ROW + "Yes |\n"),
    (ONLY, "QG20", LIPITOR + "It's also worth making sure the plan includes drug coverage at all.",
     LIPITOR + "The plan includes drug coverage."),
    (ONLY, "QG1",
     IEP + "You can switch during Open Enrollment (October 15 - December 7) or make one change from "
     "January 1 to March 31.",
     IEP + "Open Enrollment runs November 1 to December 31."),
    (ONLY, "QG9", QG9 + " Are you getting Social Security yet? If you are, Medicare enrolls you in Parts A "
     "and B automatically.",
     QG9 + " Medicare enrolls you in Parts A and B automatically."),
    (ONLY, "QG19",
     MAPD + " If you're in a Medicare Advantage HMO that doesn't include drug coverage, you usually "
     "aren't allowed to add a separate stand-alone Part D plan.",
     MAPD + " If you're in an MA-only HMO, you can add a separate stand-alone Part D plan."),
    (ONLY, "QG15",
     PREMIUM + "You also keep paying the Part B premium, $202.90 a month in 2026. You don't pay the Part B "
     "premium through the plan; it's deducted from your Social Security check.",
     PREMIUM + "With this plan you won't have to pay the Part B premium."),
    (DUAL, "QG5", DSNP + "With full Medicaid, you can join one wherever one is offered in your area.",
     "D-SNPs aren't offered everywhere. In your area you can join Buckeye Dual Complete."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("scenario", "group", "true", "wrong"), PAIRS, ids=[f"{p[1]}-{n}" for n, p in enumerate(PAIRS)]
)
def test_round_four_readings_as_minimal_pairs(scenario: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(scenario, group, true, wrong)
