"""False Incorrects found on the round-11 corpus (issue 22), the held-out reading of the coder
that sends off-checklist contradictions to a person, fixed afterwards by general readings, each as
a minimal pair: the true answer is not Incorrect, the wrong one beside it is (or, off the
checklist, goes to a person).

- a list joined to an example's lead-in that names the plan only to set it aside ("using made-up
  copays rather than Harborview's:") invents nothing for the plan;
- a task-list item ("- [ ] ...") is a box to tick, a check to make, not a claim;
- a parenthetical aside ("(you don't yet, but worth noting)") does not cut a condition from the
  clause it governs;
- "replaced an older January 1 - February 14 period" tells history;
- a percentage's share ("20% of the standard premium, about $40") is not the amount.
"""

from __future__ import annotations

import pytest

from .rules_support import minimal_pair

ONLY = "ship_medicare_only"
MOOP = (
    "Every Medicare Advantage plan has a yearly out-of-pocket limit; in 2026 it can be no more than "
    "$9,250 in network. Premiums and drug costs don't count toward it. Check Harborview's Summary of "
    "Benefits for its own limit.\n\n"
)
HMO = (
    "With an HMO you generally have to use doctors in the plan's network. Check Harborview's provider "
    "directory or call the plan to confirm Dr. Placeholder.\n\n"
)
QG9 = (
    "No, you don't have to sign up for Medicare at 65 while you're covered by your employer plan from "
    "current work. If you delay Part B, there's no late enrollment penalty as long as you sign up within "
    "8 months after that coverage ends. Because your employer has 20 or more employees, your group plan "
    "pays first. If you do enroll, you can keep your employer plan too: the two work together.\n\n"
)
QG1 = (
    "You first sign up during your 7-month Initial Enrollment Period around your 65th birthday. After "
    "that you can change plans each year during Open Enrollment, October 15 to December 7. "
)
PREMIUM = "Plan premiums vary, many are $0; check Harborview's Summary of Benefits. "

# (scenario, group, true answer, wrong answer)
PAIRS = [
    (ONLY, "QG18",
     MOOP + "A hypothetical example, using made-up copays rather than Harborview's:\n"
     "- A 5-day hospital stay at a $350-per-day copay for days 1-5: $1,750\n",
     MOOP + "Harborview's copays:\n- A 5-day hospital stay at a $350-per-day copay for days 1-5: $1,750\n"),
    (ONLY, "QG14",
     HMO + "## A quick checklist\n\n- [ ] Doctor confirmed in network for 2026\n"
     "- [ ] Dr. Placeholder is in Harborview's network\n",
     HMO + "## What we know\n\n- Dr. Placeholder is in Harborview's network\n"),
    (ONLY, "QG9",
     QG9 + "- If you already collect Social Security (you don't yet, from what you've said, but worth "
     "noting), you're enrolled in Parts A and B automatically.",
     QG9 + "- At 65 you're enrolled in Parts A and B automatically, so you must take Part B."),
    (ONLY, "QG1",
     QG1 + "The January-March Advantage window replaced an older January 1 - February 14 disenrollment "
     "period in 2019.",
     QG1 + "There is also a January 1 - February 14 disenrollment period each year."),
    (ONLY, "QG15",
     PREMIUM + "You also pay the Part B premium, $202.90 a month in 2026. A late penalty of 10% of the "
     "standard premium, about $20 a month, would be added for each year you waited.",
     PREMIUM + "You also pay the Part B premium, about $20 a month in 2026."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "group", "true", "wrong"), PAIRS, ids=[f"{p[1]}-{n}" for n, p in enumerate(PAIRS)]
)
def test_round_eleven_readings_as_minimal_pairs(name: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(name, group, true, wrong)
