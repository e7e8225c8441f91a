"""False Incorrects found on the round-8 corpus (issue 22), fixed by general readings and key
guards, each as a minimal pair: the true answer is not Incorrect, the wrong one beside it is.

- what people think ("People sometimes think 'Medicaid will keep paying ...'") is reported;
- what a source describes, with its quotation a few words on, and "older pages listing $2,000";
- a sentence that sets up a case ("Imagine a 12-day hospital admission ...") holds its figures;
- a dollar figure inside a match that names its quantity is dated by its own year ("deductible
  ($283 in 2026, it was $240 in 2024)");
- a program-wide maximum named in a sentence about the plan ("the 2026 maximum deductible is $615");
- key guards: "unless you qualify for QMB", "part of its premium goes to that", and Part A's
  premium in parentheses after Part B.
"""

from __future__ import annotations

import pytest

from .rules_support import minimal_pair

ONLY = "ship_medicare_only"
DUAL = "ship_dual_eligible"
QG3 = (
    "With Medicare and full Medicaid you'd have Part A and Part B, Medicaid would pay your Medicare costs, "
    "and you'd get drug coverage through a Part D plan with Extra Help. "
)
QG1 = (
    "You first sign up during your 7-month Initial Enrollment Period around your 65th birthday. You can "
    "change plans during Open Enrollment, October 15 to December 7, and with Medicaid you can change "
    "your drug plan once a month. "
)
QG13 = (
    "You can get drug coverage from a Medicare Advantage plan that covers drugs (most do) or from a "
    "stand-alone Part D plan with Original Medicare; drug lists and costs differ by plan. In 2026 "
    "drug costs are capped at $2,100. "
)
QG12 = (
    "None of them covers long-term custodial care. Medicare covers only short skilled nursing stays, "
    "up to 100 days after a 3-day hospital stay. "
)
QG8 = (
    "At $1,600 a month you may qualify for a Medicare Savings Program and for Extra Help; apply through "
    "Ohio Medicaid.\n\n"
)
ROW = "| Cost | Without help | With help |\n|---|---|---|\n| Part B deductible | You pay | {} |\n"
QG18 = (
    "Every Medicare Advantage plan has a yearly limit, no more than $9,250 in-network in 2026; premiums "
    "and drug costs don't count toward it. Check Harborview's Evidence of Coverage for its own. "
)
QG10 = "Part B covers doctor visits and outpatient care; it's optional but has a premium. "
LIPITOR = (
    "Brand-name Lipitor is often not on formularies, while generic atorvastatin is on nearly every one. "
    "Check Harborview's drug list on Medicare Plan Finder. "
)

# (scenario, group, true answer, wrong answer)
PAIRS = [
    (DUAL, "QG3", QG3 + 'People sometimes think "Medicaid will keep paying for my drugs like it does now."',
     QG3 + "Medicaid will keep paying for your prescriptions like it does now."),
    (DUAL, "QG1", QG1 + 'One source you may come across still describes the older rule, a "once per '
     'quarter in the first nine months of the year" dual SEP [5].',
     "You first sign up during your 7-month Initial Enrollment Period around your 65th birthday. You can "
     "change plans during Open Enrollment, October 15 to December 7, and with Medicaid you can change "
     "your drug plan once per quarter in the first nine months of the year."),
    (ONLY, "QG13", QG13 + "You may see older pages listing a $2,000 cap [7]; that was the 2025 amount.",
     QG13.replace("$2,100", "$2,000")),
    (ONLY, "QG12", QG12 + "Imagine a 12-day hospital admission followed by a move to a rehab facility.",
     QG12 + "Medicare covers a skilled nursing facility stay for 12 days after a hospital admission."),
    (DUAL, "QG8", QG8 + ROW.format("You still pay (unless you qualify for QMB)"),
     QG8 + "At $1,600 a month you'd qualify for QMB."),
    (ONLY, "QG18", QG18 + "If the plan includes drug coverage, part of its premium goes to that.",
     QG18.replace("don't count", "count")),
    (ONLY, "QG10", QG10 + "The Part B deductible ($283 in 2026; it was $240 in 2024) applies first.",
     QG10 + "The Part B deductible is $240."),
    (ONLY, "QG20", LIPITOR + "Generics are often exempt from the plan deductible (the 2026 maximum "
     "deductible is $615).", LIPITOR + "Harborview Example Advantage has a $615 drug deductible."),
    (ONLY, "QG10", QG10 + "Decide whether to take Part B now (Part A is premium-free for most people).",
     QG10 + "Part B is premium-free for most people."),
]  # fmt: skip


@pytest.mark.parametrize(
    ("scenario", "group", "true", "wrong"), PAIRS, ids=[f"{p[1]}-{n}" for n, p in enumerate(PAIRS)]
)
def test_round_eight_readings_as_minimal_pairs(scenario: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(scenario, group, true, wrong)
