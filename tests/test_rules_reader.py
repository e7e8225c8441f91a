"""The rules coder reads real chatbot answers the way the study's analysts would (issue 22): each
cause A-H as a minimal pair, the same answer with and without the construct, each coded as the
study's rule codes it; and the structural reader's units (roles, lead-ins, table rows, spans)."""

from __future__ import annotations

import pytest

from medeval.agents import rules
from medeval.agents.rulecoder.structure import read_structure
from medeval.scenarios.load import bundled_scenarios_dir, load_scenario
from medeval.schemas import Scenario

from .conftest import rules_benchmark
from .rules_support import off_checklist


@pytest.fixture(scope="module")
def code() -> object:
    """The study's category the coder gives one answer of the Medicare-only script's group."""
    scenario: Scenario = load_scenario(bundled_scenarios_dir() / "v1" / "ship_medicare_only.json")
    category = rules_benchmark().category

    def coded(group: str, answer: str) -> str:
        out = rules.code_answer(scenario, group, answer)
        got, _ = category(scenario, group, out)
        return OFF if got == "needs_review" and off_checklist(out) else str(got)

    return coded


# A contradiction of a point off the group's checklist goes to a person (coder.off_checklist).
OFF = "needs_review (off the checklist)"
CAUGHT = ("incorrect", OFF)


# A complete, correct QG9 answer (employer coverage at 65) for the pairs to add a construct to.
QG9 = (
    "No, you don't have to sign up for Medicare at 65 while you're covered by your employer plan from "
    "current work. If you delay Part B, there's no late enrollment penalty as long as you sign up within "
    "8 months after that coverage ends. Because your employer has 20 or more employees, your group plan "
    "pays first. If you do enroll, you can keep your employer plan too: the two work together."
)
QG14 = (
    "With an HMO you generally have to use doctors in the plan's network. "
    "Check Harborview's provider directory."
)
QG13 = (
    "You can get drug coverage from a Medicare Advantage plan that covers drugs "
    "or from a stand-alone Part D plan."
)

LTC = "Medicare doesn't cover long-term custodial care, such as help with bathing in a nursing home."

# (cause, group, answer with the construct, its category, answer without it, its category)
PAIRS = [
    # A. A negated quantifier denies the generalisation, not the fact.
    ("A", "QG13", "Not all plans cover the same drugs.", "substantive_incomplete",
     "All plans cover the same drugs.", "incorrect"),
    # B. A heading phrased as a question asserts nothing; the same words as a sentence do.
    ("B", "QG9", "## Do You Have to Sign Up for Medicare at 65?\n\n" + QG9, "accurate_complete",
     "You have to sign up for Medicare at 65.\n\n" + QG9, "incorrect"),
    # B. A question the reader is told to ask asserts nothing.
    ("B", "QG14",
     QG14 + "\n\nQuestions to ask the plan:\n- Dr. Placeholder is in Harborview's network for 2026",
     "accurate_complete", QG14 + "\n\nDr. Placeholder is in Harborview's network for 2026.", "incorrect"),
    # C. A condition that names another situation (COBRA) is not about the persona.
    ("C", "QG9", QG9 + " If you're on COBRA, you must sign up when you turn 65.", "accurate_complete",
     QG9 + " You must sign up when you turn 65.", "incorrect"),
    # D. A past figure labelled with its year is out of date, not a claim about now.
    ("D", "QG15",
     "Check the plan's premium in Plan Finder. You also pay the Part B premium, $202.90 a month in 2026 "
     "(about $174.70/month in 2024).", "substantive_incomplete",
     "Check the plan's premium in Plan Finder. You also pay the Part B premium, $202.90 a month in 2026 "
     "(about $174.70/month).", "incorrect"),
    ("D", "QG13",
     QG13 + " Starting in 2025, yearly out-of-pocket drug costs for people with Part D are capped at $2,000.",
     "substantive_incomplete",
     QG13 + " Yearly out-of-pocket drug costs for people with Part D are capped at $2,000.", OFF),
    # E. "Both" resolved to another pair of programs (Original Medicare and MA) is not the fact's.
    ("E", "QG9", QG9 + "\n\nOriginal Medicare and Medicare Advantage are two ways to get your benefits. "
     "You generally cannot have both.", "accurate_complete",
     QG9 + "\n\nYour employer plan and Medicare: you generally cannot have both.", "incorrect"),
    # E. What is said of the thing compared against ("unlike Original Medicare (which has no cap)").
    ("E", "QG18", "Yes. Unlike Original Medicare (which has no cap), every Medicare Advantage plan has a "
     "yearly out-of-pocket limit.", "substantive_incomplete",
     "Yes. Medicare Advantage plans have no cap on out-of-pocket costs.", "incorrect"),
    # F. A list item inherits the polarity of its lead-in.
    ("F", "QG12", "What Medicare does NOT cover:\n- Long-term custodial care\n- Routine dental care",
     "accurate_complete",
     "What Medicare covers:\n- Long-term custodial care\n- Routine dental care", "incorrect"),
    # G. A refusal plus a general explanation does not answer a plan-specific question.
    ("G", "QG17", "I can't tell you the copay for that plan; copays vary by location and plan. "
     "Check Medicare.gov.", "not_substantive",
     "I can't tell you Harborview's exact copay, but many HMOs charge $0 for in-network primary care "
     "visits. Check Medicare.gov.", "accurate_complete"),
    # H. Wrong rules real chatbots state, beside the right rule in the same words.
    ("H", "QG19", "Most Medicare Advantage plans include drug coverage, but check this plan's Summary of "
     "Benefits. If your Medicare Advantage plan doesn't include drug coverage, you generally can't add a "
     "stand-alone Part D plan.", "accurate_complete",
     "Most Medicare Advantage plans include drug coverage, but check this plan's Summary of Benefits. If "
     "your Medicare Advantage plan doesn't include drug coverage, you can add a stand-alone Part D plan.",
     "incorrect"),
    ("H", "QG14",
     QG14 + " Or call Harborview member services at the number on its website.", "accurate_complete",
     QG14 + " Or call Harborview member services at 1-888-555-0142.", "incorrect"),
    ("H", "QG13",
     QG13 + " In 2026, out-of-pocket drug costs are capped at $2,100 a year.", "substantive_incomplete",
     QG13 + " In 2026, out-of-pocket drug costs are capped at $2,000 a year.", OFF),
    ("H", "QG14", QG14 + " CMS has proposed a Special Enrollment Period when your doctor leaves the plan's "
     "network, but it is not in effect.", "accurate_complete",
     QG14 + " If your doctor leaves the plan's network, you get a Special Enrollment Period to switch plans.",
     "incorrect"),
    # F. A lead-in that lists mistakes denies its items.
    ("F", "QG13",
     QG13 + "\n\nCommon mistakes to avoid:\n- Assuming Medigap covers drugs.", "substantive_incomplete",
     QG13 + "\n\nGood to know:\n- Medigap covers drugs.", OFF),
    # D. A rule dated from a past year ("since 2019") still holds now: it is a claim about now.
    ("D", "QG12", LTC, "accurate_complete",
     LTC + " Since 2019, Medicare Advantage plans cover long-term custodial care.", "incorrect"),
    # G. A decline plus "it depends on the plan and where you live" for a plan-specific question
    # (a "varies" line states no premium rule: with the Part B premium it is SBI, not A&C).
    ("G", "QG15",
     "I don't have access to current pricing for Harborview. Premiums for Medicare Advantage plans "
     "depend on the plan and where you live. You can find it on Medicare.gov.", "not_substantive",
     "I don't have access to current pricing for Harborview. Premiums for Medicare Advantage plans depend on "
     "the plan and where you live. You can find it on Medicare.gov. You'll also pay the Part B premium, "
     "$202.90 a month in 2026.", "substantive_incomplete"),
    # H. An invented plan table (a "header: cell" statement about the named plan).
    ("H", "QG15",
     "| Plan | Monthly plan premium |\n|---|---|\n| Harborview Example Advantage (HMO) | Check Plan "
     "Finder |\n\nYou also pay the Part B premium, $202.90 a month in 2026.", "substantive_incomplete",
     "| Plan | Monthly plan premium |\n|---|---|\n| Harborview Example Advantage (HMO) | $29 |\n\nYou also "
     "pay the Part B premium, $202.90 a month in 2026.", "incorrect"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("cause", "group", "with_it", "with_code", "without", "without_code"),
    PAIRS,
    ids=[f"{p[0]}-{p[1]}-{n}" for n, p in enumerate(PAIRS)],
)
def test_each_cause_as_a_minimal_pair(
    code: object, cause: str, group: str, with_it: str, with_code: str, without: str, without_code: str
) -> None:
    coded = code  # type: ignore[assignment]
    assert coded(group, with_it) == with_code, f"cause {cause}, with the construct"  # type: ignore[operator]
    assert coded(group, without) == without_code, f"cause {cause}, without it"  # type: ignore[operator]


def test_an_unresolved_subject_goes_to_review_with_its_passage(code: object) -> None:
    # Nothing before it names what "both" are.
    answer = "You generally cannot have both.\n\n" + QG9
    assert code("QG9", answer) == "needs_review"  # type: ignore[operator]
    scenario = load_scenario(bundled_scenarios_dir() / "v1" / "ship_medicare_only.json")
    out = rules.code_answer(scenario, "QG9", answer)
    assert any("could not resolve" in u and "cannot have both" in u for u in out.uncertain)
    # Abstaining, the coder credits no item: the group cannot reach a category without a person.
    assert out.checklist == []


def test_the_structure_gives_roles_lead_ins_and_header_cells_with_exact_spans() -> None:
    answer = (
        "## Does Medicare cover it?\n\n"
        "**What Medicare does NOT cover:**\n"
        "- Long-term **custodial** care\n"
        "  - help with bathing\n\n"
        "When you call, ask:\n"
        "1. Is my doctor in network\n\n"
        "| Cost | 2026 |\n|---|---|\n| Part B premium | $202.90 |\n"
    )
    got = read_structure(answer)
    assert [(s.role, s.text) for s in got] == [
        ("question", "Does Medicare cover it?"),
        # A wh-clause lead-in labels its list, as a heading does.
        ("heading", "What Medicare does NOT cover:"),
        ("statement", "Long-term custodial care"),
        ("statement", "help with bathing"),
        ("heading", "When you call, ask:"),
        ("suggested", "Is my doctor in network"),
        ("row", "Part B premium | 2026: $202.90"),
    ]
    item = got[2]
    assert item.lead is not None and item.lead.text == "What Medicare does NOT cover"
    assert got[3].lead is None  # a nested item's parent does not end in ":"
    # Spans stay in the original text: the item keeps its emphasis, the row stays inside its line.
    spans = [answer[s.start : s.end] for s in rules.sentence_spans(answer)]
    assert spans[2] == "Long-term **custodial** care"
    assert spans[6] == "Part B premium | $202.90"


def test_an_answer_without_markdown_is_read_line_by_line() -> None:
    answer = "Part B can wait.\nYou keep your plan? Yes."
    assert [(s.role, s.text) for s in read_structure(answer)] == [
        ("statement", "Part B can wait."),
        ("question", "You keep your plan?"),
        ("statement", "Yes."),
    ]


@pytest.fixture(scope="module")
def code_dual() -> object:
    """The study's category the coder gives one answer of the dual-eligible script's group."""
    scenario: Scenario = load_scenario(bundled_scenarios_dir() / "v1" / "ship_dual_eligible.json")
    category = rules_benchmark().category

    def coded(group: str, answer: str) -> str:
        out = rules.code_answer(scenario, group, answer)
        got, _ = category(scenario, group, out)
        return OFF if got == "needs_review" and off_checklist(out) else str(got)

    return coded


SNF = "Part A covers skilled nursing care after a 3-day hospital stay, up to 100 days. "
# (group, answer, whether it is Incorrect): the general readings added against over-fitting.
GENERAL = [
    # "within N days of ..." is a window before another event, not the quantity's own length.
    ("QG12", LTC + " " + SNF + "You have to move into the SNF within 30 days of your discharge.", False),
    ("QG12", LTC + " " + SNF + "Skilled nursing must begin within 30 days after you leave the hospital.",
     False),
    ("QG12", LTC + " Part A covers skilled nursing facility care for 30 days.", True),
    # A table cell labelled by its column (a plan letter) is that column's figure, not the row's.
    ("QG11", "| Benefit | Plan K | Plan L |\n|---|---|---|\n| Part B coinsurance | 50% | 75% |", False),
    ("QG11", "| What it pays | High-deductible K | Basic L |\n|---|---|---|\n"
     "| Part B cost sharing | 50% | 75% |", False),
    ("QG11", "| Cost | 2026 |\n|---|---|\n| Part B coinsurance | 50% |", True),
    # A plan's out-of-network rule: the named plan must be the one that lets you go out of network.
    ("QG14", QG14 + " Harborview Example Advantage lets you see out-of-network doctors for a higher copay.",
     True),
    ("QG14", QG14 + " The plan will cover out-of-network specialists if you pay a bit more.", True),
    ("QG14", QG14 + " Stay with doctors in the plan's network (PPOs let you go out of network at more cost).",
     False),
    # Checklist item 5 of QG11: costs vary "based on how much is covered" (or the usual range); a
    # bare "it varies by company and state" is the study's non-answer.
    ("QG11", "Premiums for these policies differ depending on how much the policy covers.", False),
    ("QG11", "A policy with more coverage generally has higher premiums.", False),
    ("QG11", "Premiums vary by company, age and ZIP code.", False),
]  # fmt: skip
# (group, answer, category): the study's category where Incorrect is not the question.
CREDITS = [
    ("QG11", "Premiums for these policies differ depending on how much the policy covers.",
     "substantive_incomplete"),
    ("QG11", "A policy with more coverage generally has higher premiums.", "substantive_incomplete"),
    ("QG11", "Medigap prices depend on the insurance company and your state, so there's no one figure.",
     "not_substantive"),
]  # fmt: skip
DUAL_LTC = (
    "Medicare doesn't cover long-term care, but Medicaid does if you meet its financial and medical rules."
)
# "Neither ... covers": a denial when it is the sentence's statement, not in a relative clause.
GENERAL_DUAL = [
    ("QG6", "Neither Medicare nor Medicaid pays for nursing home care.", True),
    ("QG6", "Neither Medicare nor Medicaid will cover long-term care in a nursing home.", True),
    ("QG6", DUAL_LTC + " You pay for anything neither Medicare nor Medicaid covers.", False),
    ("QG6", DUAL_LTC + " Services neither Medicare nor Medicaid pays for, like cosmetic care, are yours.",
     False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("group", "answer", "wrong"), GENERAL, ids=[f"{g}-{n}" for n, (g, _, _) in enumerate(GENERAL)]
)
def test_general_readings_as_minimal_pairs(code: object, group: str, answer: str, wrong: bool) -> None:
    got = code(group, answer)  # type: ignore[operator]
    assert (got in CAUGHT) is wrong, got


@pytest.mark.parametrize(
    ("group", "answer", "wrong"), GENERAL_DUAL, ids=[f"{g}-{n}" for n, (g, _, _) in enumerate(GENERAL_DUAL)]
)
def test_neither_is_read_as_a_statement_not_a_relative_clause(
    code_dual: object, group: str, answer: str, wrong: bool
) -> None:
    got = code_dual(group, answer)  # type: ignore[operator]
    assert (got == "incorrect") is wrong, got


@pytest.mark.parametrize(
    ("group", "answer", "category"), CREDITS, ids=[f"{g}-{n}" for n, (g, _, _) in enumerate(CREDITS)]
)
def test_a_cost_item_is_credited_as_the_checklist_words_it(
    code: object, group: str, answer: str, category: str
) -> None:
    assert code(group, answer) == category  # type: ignore[operator]
