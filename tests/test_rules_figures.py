"""The rules coder reads figures against the key's quantities: any other value stated for a
quantity contradicts its fact; the right value, a past value named as past, a rounded value, or a
figure for another quantity does not; a figure named loosely is a doubt that abstains."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from medeval.agents import rules
from medeval.scenarios.load import bundled_scenarios_dir, load_scenario
from medeval.schemas import Quantity, Scenario

from .rules_support import contradicted


def ship(name: str) -> Scenario:
    return load_scenario(bundled_scenarios_dir() / "v1" / f"{name}.json")


@pytest.mark.parametrize(
    ("group", "answer", "fact"),
    [
        ("QG15", "You also pay the Part B premium, which is $195.80 a month in 2026.", "PARTB_PREMIUM_2026"),
        ("QG11", "Buy during your 12-month Medigap Open Enrollment Period.", "MEDIGAP_OEP_6_MONTHS"),
        ("QG1", "Open Enrollment runs from October 15 to December 31 each year.", "CHANGE_PERIOD"),
        ("QG1", "The Medicare Advantage Open Enrollment is Jan 1 - Feb 14.", "CHANGE_PERIOD"),
        ("QG9", "Delaying is only safe if your employer has 100 or more employees.", "EMPLOYER_SIZE_20"),
        # Named: with no part named, 1% a month is the Part D penalty's rate, a doubt, not wrong.
        (
            "QG9",
            "The Part B late enrollment penalty is 1% of the premium for every month.",
            "PARTB_DELAY_PENALTY",
        ),
        ("QG13", "In 2026 your out-of-pocket drug costs are capped at $3,500 a year.", "PARTD_CAP_2026"),
        ("QG18", "For 2026 the highest allowed in-network limit is $10,500.", "MA_MOOP_2026"),
        ("QG12", "Medicare covers skilled nursing for up to 150 days.", "SNF_TIME_LIMITED"),
        ("QG1", "Open Enrollment starts November 1 and you can switch plans then.", "CHANGE_PERIOD"),
    ],
)
def test_a_wrong_value_of_a_key_quantity_contradicts_its_fact(group: str, answer: str, fact: str) -> None:
    assert fact in contradicted(ship("ship_medicare_only"), group, answer)


@pytest.mark.parametrize(
    ("group", "answer"),
    [
        ("QG15", "You also pay the Part B premium, which is $202.90 a month in 2026."),
        ("QG15", "The Part B premium went up to $202.90 this year, from $185 in 2025."),
        ("QG10", "Part B runs roughly $200 a month, and Medigap plans cost $50 to $300 a month."),
        ("QG1", "The Medicare Advantage Open Enrollment Period runs January 1 to March 31."),
        ("QG1", "Your Initial Enrollment Period starts 3 months before your birthday month: 7 in all."),
        ("QG1", "Annual Open Enrollment | Oct 15 - Dec 7 | Switch plans; changes start Jan 1"),
        ("QG9", "Your employer has about 120 employees, so its plan pays first."),
        ("QG9", "The penalty is 10% for each full 12 months, so a two-year gap means 20% more."),
        ("QG18", "In 2026 the in-network limit can be no higher than $9,250 ($13,900 combined for PPOs)."),
        ("QG18", "Part D has its own out-of-pocket cap of $2,100 in 2026."),
    ],
)
def test_right_past_rounded_or_other_figures_do_not(group: str, answer: str) -> None:
    assert contradicted(ship("ship_medicare_only"), group, answer) == set()


def test_a_figure_named_loosely_is_a_doubt_that_sends_the_item_to_a_person() -> None:
    answer = (
        "Your Initial Enrollment Period, which begins 3 months before your birthday month, ends 6 months "
        "after it. You can change plans each fall during Open Enrollment, October 15 to December 7."
    )
    out = rules.code_answer(ship("ship_dual_eligible"), "QG1", answer)
    assert "IEP_AROUND_65" not in {c.fact_id for c in out.checklist}
    assert any("6 months" in u for u in out.uncertain)
    assert not [v for v in out.verdicts if v.label == "CONTRADICTED"]


def test_a_quantity_needs_a_naming_and_a_value() -> None:
    with pytest.raises(ValidationError):
        Quantity(about=[], unit="usd", values=["1"])
    with pytest.raises(ValidationError):
        Quantity(about=["x"], unit="usd", values=[])
