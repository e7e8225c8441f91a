"""Misses found on the round-5 corpus (issue 22), fixed by general readings and key guards, each as
a minimal pair: the same answer with and without the construct, each coded as the study would.

- a table column of myths ("Myth | Fact") is the myths' column: the row says what its fact says;
- a lead-in phrased as a wh-clause ("What an HMO typically covers out of network:") labels its list;
- a long parenthetical aside between a subject and its verb does not hide the statement's credit;
- a named plan's figure offered as one possibility "depending on the plan" is a person's call;
- a contrast clause is read from where it starts ("Original Medicare doesn't, but many Advantage
  plans do cover long-term care": the first clause's negation is not the second's);
- "No access to plan documents here" answers no question;
- a primary-care copay range without $0 is the study's Incorrect, as a named plan's figure is.
"""

from __future__ import annotations

import pytest

from .rules_support import covered, key, minimal_pair
from .test_rules_reader_embedded import _coder

ONLY = "ship_medicare_only"
DUAL = "ship_dual_eligible"
ROUTES = (
    "You can get drug coverage from a Medicare Advantage plan that covers drugs or from a stand-alone "
    "Part D plan.\n\n"
)
MYTHS = (
    "| {} | {} |\n|---|---|\n"
    '| "Medigap covers my drugs." | Medigap policies sold today don\'t include drugs. |\n'
)
HMO = "Generally, no. An HMO pays only for in-network care, except in emergencies.\n\n"
CHECK = " Check Harborview's Summary of Benefits on Medicare Plan Finder."
PREMIUM = "Plan premiums vary; you also pay the 2026 Part B premium of $202.90."
LTC = "Short answer: Original Medicare and Medigap don't cover long-term care, "
PCP = "Many HMOs charge $0 for in-network primary care visits; copays are set by each plan."

# (scenario, group, true answer, wrong answer)
PAIRS = [
    (ONLY, "QG13", ROUTES + MYTHS.format("Myth", "Fact"), ROUTES + MYTHS.format("Claim", "Fact")),
    (ONLY, "QG16",
     HMO + "**What an HMO typically covers out of network:**\n- Emergency care\n- Urgent care\n",
     HMO + "**An HMO typically covers out of network care too:**\n- Emergency care\n- Urgent care\n"),
    (ONLY, "QG15",
     PREMIUM + " Add whatever Harborview's own premium is (which may be $0, depending on the plan)." + CHECK,
     PREMIUM + " Harborview's own premium is $0." + CHECK),
    (ONLY, "QG12", LTC + "and neither do Medicare Advantage plans.",
     LTC + "but many Medicare Advantage plans do cover long-term care."),
    (ONLY, "QG17", PCP + " Some charge a small copay, often in the $5-$20 range." + CHECK,
     PCP + " For an HMO like Harborview, budget roughly $10-$25 per primary care visit." + CHECK),
]  # fmt: skip


@pytest.mark.parametrize(
    ("scenario", "group", "true", "wrong"), PAIRS, ids=[f"{p[1]}-{n}" for n, p in enumerate(PAIRS)]
)
def test_round_five_readings_as_minimal_pairs(scenario: str, group: str, true: str, wrong: str) -> None:
    minimal_pair(scenario, group, true, wrong)


def test_a_possibility_depending_on_the_plan_goes_to_a_person() -> None:
    answer = PAIRS[2][2]
    assert _coder(ONLY)("QG15", answer) == "needs_review"  # type: ignore[operator]


def test_an_aside_between_subject_and_verb_keeps_the_credit() -> None:
    aside = (
        "None of the Medicare options we talked about (Original Medicare, a regular Medicare Advantage "
        "plan, or the Medicare side of a D-SNP) pays for long-term custodial care."
    )
    plain = "None of the Medicare options pays for long-term custodial care."
    assert "LTC_NOT_COVERED" in covered(key(DUAL), "QG6", plain)
    assert "LTC_NOT_COVERED" in covered(key(DUAL), "QG6", aside)
    # Without the subject the aside held apart from its verb there is nothing to credit.
    bare = "(Original Medicare, a regular plan, or a D-SNP)."
    assert "LTC_NOT_COVERED" not in covered(key(DUAL), "QG6", bare)


@pytest.mark.parametrize(
    ("answer", "credited"),
    [("No access to plan documents here.", False), ("No. An HMO pays only in network.", True)],
)
def test_a_bare_no_answers_only_as_a_reply(answer: str, credited: bool) -> None:
    assert ("HMO_NO_OUT_OF_NETWORK" in covered(key(ONLY), "QG16", answer)) is credited
