"""The rules coder abstains where a pattern cannot settle the study's border (issue 22, round 2):
a mostly non-answer (it declines, hedges or asks back) with one checklist point credited may be
the study's refusal "plus general explanation" (Not Substantive) or a brief Substantive but
Incomplete answer. It goes to a person with the passage, not to either category."""

from __future__ import annotations

import pytest

from medeval.agents import rules
from medeval.scenarios.load import bundled_scenarios_dir, load_scenario
from medeval.schemas import Scenario

from .conftest import rules_benchmark

OEP = "The best time to buy a Medigap policy is your 6-month Medigap open enrollment period."
ASKS_BACK = (
    "I'd need to know a bit more first. What's your ZIP code? Do you use tobacco? "
    "Are you leaning toward Original Medicare or Medicare Advantage? "
)
SUBSTANCE = (
    "Medigap policies are sold by private insurers and work only with Original Medicare. "
    "Every plan letter covers the same basic benefits. Some letters pay the Part A deductible. "
    "Plans K and L cap your yearly out-of-pocket costs. Premiums vary by insurer and age. "
)


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return load_scenario(bundled_scenarios_dir() / "v1" / "ship_medicare_only.json")


def coded(scenario: Scenario, answer: str) -> tuple[str, str]:
    got, why = rules_benchmark().category(scenario, "QG11", rules.code_answer(scenario, "QG11", answer))
    return str(got), str(why)


def test_one_point_in_an_answer_that_asks_back_goes_to_a_person(scenario: Scenario) -> None:
    got, why = coded(scenario, ASKS_BACK + OEP)
    assert got == "needs_review"
    assert "mostly a non-answer" in why


def test_the_same_point_alone_is_substantive_but_incomplete(scenario: Scenario) -> None:
    assert coded(scenario, OEP)[0] == "substantive_incomplete"


def test_a_hedge_beside_one_point_goes_to_a_person(scenario: Scenario) -> None:
    assert coded(scenario, "Honestly, it depends on your situation. " + OEP)[0] == "needs_review"


def test_an_answer_with_substance_keeps_its_credit_beside_questions(scenario: Scenario) -> None:
    # The questions do not take away what the answer says when it says enough.
    got, _ = coded(scenario, ASKS_BACK + SUBSTANCE + OEP)
    assert got in ("substantive_incomplete", "accurate_complete")


# A refusal plus general explanation: the study's Not Substantive, decided, not sent to a person.
DECLINES = (
    "I'm not able to tell you your exact enrollment dates without a few details. Not everyone follows "
    "the same schedule, and the ads don't always tell the whole story. A SHIP counselor can go over it "
    "with you for free."
)


def coded_qg1(scenario: Scenario, answer: str) -> str:
    got, _ = rules_benchmark().category(scenario, "QG1", rules.code_answer(scenario, "QG1", answer))
    return str(got)


def test_a_refusal_with_general_explanation_is_not_substantive(scenario: Scenario) -> None:
    assert coded_qg1(scenario, DECLINES) == "not_substantive"
    assert (
        coded_qg1(scenario, DECLINES + " Plans set their own rules, and they can change.")
        == "not_substantive"
    )


def test_a_rule_beside_the_refusal_is_not_a_general_explanation(scenario: Scenario) -> None:
    # An unforeseen rule may be right or wrong: never Not Substantive by default.
    assert (
        coded_qg1(scenario, DECLINES + " You must enroll by the end of your birthday month.")
        != "not_substantive"
    )
