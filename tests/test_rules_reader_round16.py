"""Misreadings found on rounds 15 and 16 (issue 22), each read once by the coder before these fixes
(the figures are in docs/methodology.md), fixed afterwards by general readings, each as a minimal
pair: the true answer is not Incorrect, the wrong one beside it is.

- a figure that is a plan's own amount ("you keep paying the Part B premium even in a $0-premium
  plan", "a plan with a $0 premium") is not the Part B premium (cause E);
- a quotation the sentence labels as wrong ('"Medicare covers nursing homes" is one of the most
  common misunderstandings') is reported, not asserted;
- a clause that opens as the comparison ("For comparison, under Original Medicare you'd pay 20%")
  says nothing about the plan asked about;
- "Other categories, like SLMB, only pay the Part B premium, so you'd still owe the cost sharing"
  is about partial help, not the persona's full Medicaid (a condition that excludes the persona);
- a bold lead-in "Finding Harborview's PCP copay:" heads places to look, as "To find ...:" does, so
  "OSHIIP: free" under it is no plan cost.
"""

from __future__ import annotations

import pytest

from .rules_support import minimal_pair
from .test_rules_reader_round12 import PREMIUM, QG7
from .test_rules_reader_round14 import QG6

ONLY = "ship_medicare_only"
DUAL = "ship_dual_eligible"
QG17 = (
    "Most HMOs charge a flat primary care copay; Harborview's own copay is in its Summary of Benefits "
    "or on Plan Finder.\n\n"
)

# (scenario, group, true answer, wrong answer)
PAIRS = [
    (ONLY, "QG15",
     PREMIUM + "You keep paying the Part B premium even in a $0-premium plan.",
     PREMIUM + "You keep paying the Part B premium, which is $0 for you."),
    (ONLY, "QG15",
     PREMIUM + "You keep paying the Part B premium even in a plan with a $0 premium.",
     PREMIUM + "You keep paying the Part B premium of $0 a month."),
    (DUAL, "QG6",
     QG6 + '**Important:** "Medicare covers nursing homes" is one of the most common misunderstandings.',
     QG6 + "**Important:** Medicare covers nursing homes, a fact many people miss."),
    (ONLY, "QG17",
     QG17 + "For comparison, under Original Medicare you'd pay 20% of the approved amount after the Part B "
     "deductible ($283 in 2026, up from $257 in 2025), which for a typical office visit works out to roughly "
     "$20-$40, so an HMO's flat copay is usually the cheaper route for routine visits.",
     QG17 + "With Harborview, a primary care visit costs a $40 copay."),
    (DUAL, "QG7",
     QG7 + "Other categories, like SLMB, only pay the Part B premium, so you'd still owe the cost sharing.",
     QG7 + "In your case, you'd still owe the cost sharing."),
    (ONLY, "QG17",
     QG17 + "**Finding Harborview's PCP copay (2026):**\n\n- **Summary of Benefits**\n"
     "- **OSHIIP**: free, Ohio SHIP counselors\n",
     QG17 + "**Harborview's PCP copay (2026):**\n\n- **Summary of Benefits**\n"
     "- **In network**: $5 a visit\n"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "group", "true", "wrong"), PAIRS, ids=[f"{p[1]}-{n}" for n, p in enumerate(PAIRS)]
)
def test_round_sixteen_readings_as_minimal_pairs(name: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(name, group, true, wrong)
