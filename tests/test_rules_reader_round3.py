"""False Incorrects found on the round-3 corpus (issue 22), fixed by general readings and guards,
each as a minimal pair: the true answer is not Incorrect, the wrong one beside it is.

- a rule told as history ("Open Enrollment used to run November 15 to December 31") is not the
  rule now;
- "they can see any doctor" said of people who prefer Original Medicare is no D-SNP claim;
- "people end up relying on Medicaid" ends nothing;
- a "No" under a yes/no column stays a "No" with a search assistant's source marker ("No [2]");
- a determiner's negation ("no Medigap policy ... covers prescriptions") negates the match even
  where the key's pattern reads negations itself;
- "coverage" is no "covers", and the HMO rule's own exception (no in-network provider) is none;
- "a typical Medicare Advantage plan" is no named plan.
"""

from __future__ import annotations

import pytest

from .rules_support import minimal_pair
from .test_rules_reader import QG9, QG13

QG1 = "You first sign up during your 7-month Initial Enrollment Period around your 65th birthday. "
TABLE = "| Coverage | Lets you delay Part B without penalty? |\n|---|---|\n"
HMO = "No. An HMO like Harborview covers care only from its network, except emergencies. "

# (scenario, group, true answer, wrong answer)
PAIRS = [
    ("ship_medicare_only", "QG1",
     QG1 + "Open Enrollment used to run November 15 to December 31; it now runs October 15 to December 7.",
     QG1 + "Open Enrollment runs November 15 to December 31."),
    ("ship_dual_eligible", "QG4",
     "D-SNPs use networks, so you may have to change doctors. Some people prefer Original Medicare with "
     "Medicaid because they can see any doctor who takes Medicare.",
     "D-SNPs use networks. But with these plans you can see any doctor who takes Medicare."),
    ("ship_dual_eligible", "QG3",
     "You'd have Medicare and Medicaid together. Many people end up relying on Medicaid for long "
     "nursing-home stays.",
     "You'd have Medicare and Medicaid together, but enrolling in Medicare will end your Medicaid."),
    ("ship_medicare_only", "QG9",
     QG9 + "\n\n" + TABLE + "| COBRA or retiree plan | No [2] |\n",
     QG9 + "\n\n" + TABLE + "| COBRA or retiree plan | Yes [2] |\n"),
    ("ship_medicare_only", "QG13",
     QG13 + " A Medigap policy helps with cost sharing, but no Medigap policy sold today covers "
     "prescriptions.",
     QG13 + " A Medigap policy helps with cost sharing, and Medigap policies cover prescriptions."),
    ("ship_medicare_only", "QG16",
     HMO + "If no in-network provider can give you a medically necessary service, HMOs generally have to "
     "arrange coverage with an out-of-network provider.",
     HMO + "HMOs generally cover out-of-network doctors at a higher copay."),
    ("ship_medicare_only", "QG20",
     "Check Harborview's drug list. There's a fair chance brand Lipitor either isn't covered or is fairly "
     "expensive on a typical Medicare Advantage plan.",
     "Brand Lipitor isn't covered on Harborview's formulary."),
]  # fmt: skip


@pytest.mark.parametrize(("scenario", "group", "true", "wrong"), PAIRS, ids=[p[1] for p in PAIRS])
def test_round_three_readings_as_minimal_pairs(scenario: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(scenario, group, true, wrong)
