"""False Incorrects found on the round-12 corpus (issue 22), its held-out reading by the coder after
round 11's fixes, fixed afterwards by general readings, each as a minimal pair: the true answer is
not Incorrect, the wrong one beside it is.

- "the plan" right after a plan named with "a" ("A $0 Advantage plan means I pay nothing." -> "The
  plan premium is $0") is that plan, any such plan, not the persona's;
- a case set up earlier in the sentence ("Here's a purely hypothetical illustration (not this
  plan's numbers): imagine an HMO with a $6,000 limit") holds the case's figures;
- "you still have to pay the Part B premium ..., but the state pays it for you" says who pays it.
"""

from __future__ import annotations

import pytest

from .rules_support import minimal_pair

ONLY = "ship_medicare_only"
DUAL = "ship_dual_eligible"
PREMIUM = (
    "Harborview's own premium is in its Summary of Benefits or on Medicare Plan Finder; many plans charge "
    "$0, others more. You also pay the Part B premium, $202.90 a month in 2026.\n\n"
)
MOOP = (
    "Every Medicare Advantage plan has a yearly out-of-pocket limit; in 2026 it can be no more than "
    "$9,250 in network. Premiums and drug costs don't count toward it. Check Harborview's Summary of "
    "Benefits for its own limit.\n\n"
)
QG7 = (
    "Yes. With full Medicaid you have little or nothing to pay whichever way you get Medicare: Medicaid "
    "pays your Medicare premiums and your cost sharing.\n\n"
)

# (scenario, group, true answer, wrong answer)
PAIRS = [
    (ONLY, "QG15",
     PREMIUM + '- "A $0 Advantage plan means I pay nothing." The plan premium is $0; the Part B premium '
     "still applies.",
     PREMIUM + "- Harborview is an Advantage plan. The plan premium is $0."),
    (ONLY, "QG18",
     MOOP + "Here's a purely hypothetical illustration (not this plan's numbers): imagine an HMO with a "
     "$6,000 in-network limit.",
     MOOP + "Here's the figure that matters most for you: every HMO has a $6,000 in-network limit in 2026."),
    (DUAL, "QG7",
     QG7 + "- You still have to pay the Part B premium to be in any MA plan, but the state pays it for you.",
     QG7 + "- You still have to pay the Part B premium yourself to be in any MA plan."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "group", "true", "wrong"), PAIRS, ids=[f"{p[1]}-{n}" for n, p in enumerate(PAIRS)]
)
def test_round_twelve_readings_as_minimal_pairs(name: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(name, group, true, wrong)
