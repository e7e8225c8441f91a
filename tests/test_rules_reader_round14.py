"""Misreadings found on the round-14 corpus (issue 22), its held-out reading by the coder after
round 13's fixes, fixed afterwards by general readings, each as a minimal pair:

- a clause whose subject is negated ("No Medicare option covers long-term custodial care"), also
  as a list item under a lead-in, denies what follows;
- a misconception quoted after its label ('A common misconception is "once I have Medicare, I lose
  Medicaid."') is reported, not asserted;
- a list item joined to its lead-in keeps the lead-in's colon ("What I'd suggest: Contact Social
  Security" is not the phrase "suggest Contact Social");
- a mention of rehab, skilled nursing or home health with nothing about coverage ("read each plan's
  Summary of Benefits for anything labelled skilled nursing") is not the limited coverage point.
"""

from __future__ import annotations

import pytest

from medeval.agents.rulecoder.index import key_index
from medeval.agents.rulecoder.keyed import read_answer

from .rules_support import key, minimal_pair

ONLY = "ship_medicare_only"
DUAL = "ship_dual_eligible"
QG3 = (
    "With Medicare and Medicaid you have Part A and Part B. With Original Medicare your Medicaid "
    "benefits continue separately and pay your Medicare costs.\n\n"
)
QG6 = (
    "Medicare covers only short-term skilled nursing care after a hospital stay. Medicaid can cover "
    "nursing home care if you meet its financial and medical rules.\n\n"
)
REFUSAL = (
    "I can't tell you your enrollment dates; they depend on details I can't see.\n\n"
    "What I'd suggest:\n"
    "- Call your **state Medicaid agency**.\n"
)

# (scenario, group, true answer, wrong answer)
PAIRS = [
    (DUAL, "QG6",
     QG6 + "**Key takeaways:**\n- No Medicare option covers long-term custodial care.\n",
     QG6 + "**Key takeaways:**\n- Every Medicare option covers long-term custodial care.\n"),
    (DUAL, "QG6",
     QG6 + "No Medicare option covers long-term custodial care.",
     QG6 + "Your Medicare option covers long-term custodial care."),
    (DUAL, "QG3",
     QG3 + 'A common misconception is "once I have Medicare, I lose Medicaid." You keep it.',
     QG3 + "Once you have Original Medicare, you lose Medicaid."),
    (DUAL, "QG1",
     REFUSAL + "- Contact **Social Security** (ssa.gov or by phone) about enrolling in Medicare.\n",
     REFUSAL + "- Go with Buckeye Dual Complete (HMO D-SNP), the best fit for you.\n"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "group", "true", "wrong"), PAIRS, ids=[f"{p[1]}-{n}" for n, p in enumerate(PAIRS)]
)
def test_round_fourteen_readings_as_minimal_pairs(name: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(name, group, true, wrong)


def test_a_mention_of_rehab_without_coverage_is_not_the_limited_coverage_point() -> None:
    scenario = key(ONLY)
    index = key_index(scenario)
    mention = (
        "It depends on what kind of care you mean: a few weeks of rehab after a fall, or a move into a "
        "nursing home. When you compare plans, read each plan's Summary of Benefits for anything "
        "labelled skilled nursing or home health, and ask a SHIP counselor."
    )
    coverage = mention + " Medicare covers short-term rehab in a skilled nursing facility, up to a limit."

    def credited(answer: str) -> set[str]:
        readings = read_answer(answer, index.keyed, index.quantities, scenario.group_year("QG12"))
        return {item for reading in readings for item in reading.covered}

    assert "SNF_TIME_LIMITED" not in credited(mention)
    assert "SNF_TIME_LIMITED" in credited(coverage)
