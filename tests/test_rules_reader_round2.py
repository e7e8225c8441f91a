"""False Incorrects found on the round-2 corpus (issue 22), fixed by general readings and guards,
each as a minimal pair: the true sentence is not Incorrect, the wrong one beside it is.

- someone else's belief is reported, not asserted ("people who assume they'll be signed up
  automatically");
- "make sure ..." instructs, it asserts no plan's formulary;
- a figure whose clause names no subject, equal to another quantity's value ("out-of-pocket cap:
  $2,100" is the Part D cap), is a doubt, not a wrong Advantage limit;
- a plan figure dated last year beside this year's ("$2,100 in 2026 (it was $2,000 in 2025)") is not
  last year's data as current;
- "other than emergencies" states the HMO rule's exception, not a denial of emergency cover;
- "since you'd have Medicaid, you wouldn't pay a premium" is said of you, not of Medicaid.
"""

from __future__ import annotations

import pytest

from .rules_support import minimal_pair
from .test_rules_reader import QG9, QG13

TABLE = "| Cost piece | 2026 | 2025 |\n|---|---|---|\n"
HMO = "No. An HMO like Harborview covers care only from its network. "
QG7 = "Yes. Medicaid pays your Medicare premiums and cost sharing under any option. "

# (scenario, group, true answer, wrong answer)
PAIRS = [
    ("ship_medicare_only", "QG9",
     QG9 + " Plenty of people who assume they'll be signed up automatically at 65 are surprised.",
     QG9 + " You'll be signed up automatically at 65."),
    ("ship_medicare_only", "QG13",
     QG13 + " Make sure each of your medicines, including Lipitor, is on the formulary of the plans you "
     "are looking at.",
     QG13 + " Lipitor is on Harborview's formulary at Tier 1 with a $0 copay."),
    ("ship_medicare_only", "QG13",
     QG13 + "\n\n" + TABLE + "| Out-of-pocket cap | $2,100 | $2,000 |\n",
     QG13 + "\n\n" + TABLE + "| Medicare Advantage out-of-pocket cap | $2,100 | $2,000 |\n"),
    ("ship_medicare_only", "QG20",
     "If Harborview includes drug coverage, your drug costs are capped at $2,100 in 2026 (it was $2,000 "
     "in 2025).",
     "Harborview's drug list for 2025 puts Lipitor on Tier 3."),
    ("ship_medicare_only", "QG16",
     HMO + "Out-of-network care in an HMO (other than emergencies) generally isn't covered.",
     HMO + "Out-of-network emergencies generally aren't covered."),
    ("ship_dual_eligible", "QG7",
     QG7 + "Since you'd have full Medicaid, you typically wouldn't pay a premium.",
     "Yes. Medicaid pays your Medicare cost sharing under any option. But Medicaid wouldn't pay your "
     "premiums."),
]  # fmt: skip


@pytest.mark.parametrize(("scenario", "group", "true", "wrong"), PAIRS, ids=[p[1] for p in PAIRS])
def test_round_two_readings_as_minimal_pairs(scenario: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(scenario, group, true, wrong)
