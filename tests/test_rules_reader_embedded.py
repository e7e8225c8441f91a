"""General readings that keep a correct answer from being coded Incorrect (issue 22, round 2), each
as a minimal pair: an embedded question asserts nothing, a "No" under a yes/no column answers its
header in the negative, a figure whose clause names no subject takes its sentence's (a hospice
respite stay is no skilled-nursing limit), and a labelled example plan is not the persona's plan."""

from __future__ import annotations

import pytest

from medeval.agents import rules
from medeval.agents.rulecoder.reading import embedded_questions
from medeval.scenarios.load import bundled_scenarios_dir, load_scenario
from medeval.schemas import Scenario

from .conftest import rules_benchmark
from .test_rules_reader import QG13, QG14


def _coder(name: str) -> object:
    scenario: Scenario = load_scenario(bundled_scenarios_dir() / "v1" / f"{name}.json")
    category = rules_benchmark().category

    def coded(group: str, answer: str) -> str:
        got, _ = category(scenario, group, rules.code_answer(scenario, group, answer))
        return str(got)

    return coded


@pytest.fixture(scope="module")
def code() -> object:
    return _coder("ship_medicare_only")


@pytest.fixture(scope="module")
def code_dual() -> object:
    return _coder("ship_dual_eligible")


QG18 = (
    "Yes. Every Medicare Advantage plan has a yearly out-of-pocket limit; for 2026 it can be no more "
    "than $9,250 in network. Check the plan's Summary of Benefits.\n\n"
    "| Cost | Counts toward the limit? |\n|---|---|\n| Copays | Yes |\n"
)
LTC = "Medicare doesn't cover long-term custodial care, such as help with bathing in a nursing home."

# (group, answer with the construct, its category, answer without it, its category)
PAIRS = [
    # 1. An embedded question ("decides whether") asserts nothing, even for a pattern that reads
    # negation itself.
    ("QG14", QG14 + " With an HMO, the network decides whether you can keep your doctor.",
     "accurate_complete", QG14 + " With an HMO, you can keep your doctor.", "incorrect"),
    # 2. A "No" under a yes/no column answers its header in the negative.
    ("QG18", QG18 + "| Monthly plan premium | ❌ No |", "accurate_complete",
     QG18 + "| Monthly plan premium | ✅ Yes |", "incorrect"),
    # 3. A figure in a clause naming no subject is its sentence's subject's: a hospice respite stay.
    ("QG12", LTC + " Hospice includes respite care — a short inpatient stay (up to five days at a time).",
     "accurate_complete",
     LTC + " Skilled nursing care is covered — a short inpatient stay (up to five days at a time).",
     "incorrect"),
    # 4. A labelled example plan is not the persona's plan; the same words about "your plan" are.
    ("QG13", QG13 + "\n\nSay two plans both cover atorvastatin:\n\n- **Plan A:** $0 premium, and "
     "atorvastatin on Tier 2\n- **Plan B:** a modest premium, and atorvastatin on Tier 1",
     "substantive_incomplete",
     QG13 + "\n\nSay two plans both cover atorvastatin:\n\n- **Your plan:** $0 premium, and "
     "atorvastatin on Tier 2\n- **Plan B:** a modest premium, and atorvastatin on Tier 1", "incorrect"),
]  # fmt: skip


@pytest.mark.parametrize(("group", "with_it", "with_code", "without", "without_code"), PAIRS)
def test_each_reading_as_a_minimal_pair(
    code: object, group: str, with_it: str, with_code: str, without: str, without_code: str
) -> None:
    coded = code  # type: ignore[assignment]
    assert coded(group, with_it) == with_code  # type: ignore[operator]
    assert coded(group, without) == without_code  # type: ignore[operator]


def test_not_knowing_whether_you_qualify_is_no_denial(code_dual: object) -> None:
    scenario = load_scenario(bundled_scenarios_dir() / "v1" / "ship_dual_eligible.json")

    def contradicted(answer: str) -> bool:
        out = rules.code_answer(scenario, "QG8", answer)
        return any(v.label.value == "CONTRADICTED" and "MAY_QUALIFY_1600" in v.evidence for v in out.verdicts)

    assert not contradicted("I don't know whether you'd qualify for help at $1,600 a month.")
    assert contradicted("You don't qualify for help at $1,600 a month.")


def test_if_alone_is_a_condition_not_an_embedded_question() -> None:
    assert embedded_questions("If you qualify, Medicaid pays your premium.") == []
    text = "Call to check if the plan covers it, or ask."
    assert [text[a:b] for a, b in embedded_questions(text)] == ["check if the plan covers it"]
    text = "I'm not sure whether you qualify at $1,600 a month."
    assert [text[a:b] for a, b in embedded_questions(text)] == ["whether you qualify at $1,600 a month."]
