"""The rules coder's reading of text: sentences, clauses, markdown, negation, comparisons, stale
figures and non-answers."""

from __future__ import annotations

import pytest

from medeval.agents import rules
from medeval.agents.rulecoder.keyed import first_match, reading_units
from medeval.agents.rulecoder.nonanswer import non_answer_kind, sentence_kind
from medeval.agents.rulecoder.structure import plain_lines, sentences
from medeval.agents.rulecoder.text import Clause, clauses
from medeval.schemas import Scenario


def texts(answer: str) -> list[str]:
    return [s.text for s in sentences(answer)]


def clause_texts(sentence: str) -> list[tuple[str, str]]:
    (piece,) = sentences(sentence)
    return [(c.role, c.text) for c in clauses(piece)]


@pytest.mark.parametrize(
    "answer",
    [
        "Open Enrollment runs Oct. 15 to Dec. 7 each year.",
        "The Medicare Advantage Open Enrollment runs Jan. 1 to Mar. 31 every year.",
        "Ask Dr. Placeholder's office, e.g. by phone, i.e. before you enroll.",
        "The premium is approx. $202.90 a month in the U.S. for most people.",
        "Compare Original Medicare vs. Medicare Advantage (dental, vision, etc.) before Sept. 30.",
        "Plans changed in Aug. and Nov. and Feb. last year.",
    ],
)
def test_abbreviations_and_figures_do_not_end_a_sentence(answer: str) -> None:
    assert texts(answer) == [answer]


def test_sentences_end_at_marks_and_line_breaks() -> None:
    answer = "No. You don't have to enroll at 65! Why? Because you work.\n- Part B can wait\nOK"
    assert texts(answer) == [
        "No.",
        "You don't have to enroll at 65!",
        "Why?",
        "Because you work.",
        "Part B can wait",
        "OK",
    ]


def test_markdown_is_stripped_and_spans_point_at_the_original() -> None:
    answer = (
        "## The short answer\n\n"
        "1. **Part B premium:** _$202.90_ a month\n"
        "* See [Plan Finder](https://www.medicare.gov/plan-compare) or call `1-800-MEDICARE`.\n\n"
        "| Window | Dates |\n|---|:---:|\n| Open Enrollment | Oct 15 \u2013 Dec 7 |\n"
        "> Medigap **doesn\u2019t** work with Medicare Advantage.\n"
        "---\n"
    )
    got = sentences(answer)
    assert [s.text for s in got] == [
        "The short answer",
        "Part B premium: $202.90 a month",
        "See Plan Finder or call 1-800-MEDICARE.",
        # A table row reads each cell under its column's header ("header: cell").
        "Open Enrollment | Dates: Oct 15 \u2013 Dec 7",
        "Medigap doesn't work with Medicare Advantage.",
    ]
    spans = [answer[s.start : s.end] for s in rules.sentence_spans(answer)]
    assert spans[1] == "**Part B premium:** _$202.90_ a month"
    assert spans[2] == "See [Plan Finder](https://www.medicare.gov/plan-compare) or call `1-800-MEDICARE`."
    assert spans[3] == "Open Enrollment | Oct 15 \u2013 Dec 7"
    # A match inside the plain text maps back to the characters the chatbot wrote.
    piece = got[1]
    at = piece.text.index("$202.90")
    span = piece.span(at, at + len("$202.90"))
    assert answer[span.start : span.end] == "$202.90"
    # Quotes of whole sentences keep the emphasis around them.
    assert rules.split_sentences("**Yes.** Part B can wait.") == [(0, 8), (9, 25)]


def test_plain_lines_drop_table_rules_and_horizontal_rules() -> None:
    assert [p.text for p in plain_lines("|---|---|\n***\n  \n# Title #\n")] == ["Title"]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "HMOs do not cover out-of-network care; PPOs do, but at a higher cost.",
            [
                ("main", "HMOs do not cover out-of-network care"),
                ("main", "PPOs do"),
                ("contrast", "at a higher cost."),
            ],
        ),
        (
            "Medicaid, unlike Medicare, pays for long-term nursing home care.",
            [("main", "Medicaid pays for long-term nursing home care."), ("comparison", "unlike Medicare")],
        ),
        (
            "Unlike Medigap, a Medicare Advantage plan has a network.",
            [("main", "a Medicare Advantage plan has a network."), ("comparison", "Unlike Medigap")],
        ),
        (
            "Original Medicare has no cap, whereas every Advantage plan has one.",
            [("main", "Original Medicare has no cap"), ("contrast", "every Advantage plan has one.")],
        ),
        (
            "You can keep your job plan while you work \u2014 Part B can wait.",
            [("main", "You can keep your job plan while you work"), ("main", "Part B can wait.")],
        ),
        (
            "Here is how the two periods work for you: the fall one runs Oct 15 - Dec 7.",
            [
                ("main", "Here is how the two periods work for you"),
                ("main", "the fall one runs Oct 15 - Dec 7."),
            ],
        ),
        ("Part B premium: $202.90 a month.", [("main", "Part B premium: $202.90 a month.")]),
        (
            "| Medicare Advantage | Replaces Original Medicare; Medicaid stays separate |",
            [
                ("main", "Medicare Advantage, Replaces Original Medicare"),
                ("main", "Medicare Advantage, Medicaid stays separate"),
            ],
        ),
    ],
)
def test_sentences_split_into_clauses(sentence: str, expected: list[tuple[str, str]]) -> None:
    assert clause_texts(sentence) == expected


def clause(text: str, role: str = "main") -> Clause:
    (piece,) = sentences(text)
    return Clause(piece, role)


def reads(pattern: str, text: str, kind: str, statement: str = "") -> bool:
    (piece,) = sentences(text)
    return any(
        first_match((pattern,), c, kind, 2026, statement, across=across) is not None  # type: ignore[arg-type]
        for c, across in reading_units(piece)
    )


@pytest.mark.parametrize(
    ("pattern", "text", "kind", "expected"),
    [
        (r"cover out-of-network care", "HMOs usually do not cover out-of-network care.", "contradict", False),
        (r"cover out-of-network care", "HMOs cover out-of-network care.", "contradict", True),
        (r"have to enroll", "You don't have to enroll at 65.", "contradict", False),
        (r"have to enroll", "You have to enroll at 65.", "contradict", True),
        (r"pays for long-term care", "Medicare never really pays for long-term care.", "support", False),
        (
            r"medicare[^.]*pays for long-term",
            "Medicaid, unlike Medicare, pays for long-term care.",
            "contradict",
            False,
        ),
        (r"(doesn't|does not) cover", "Medicare does not cover custodial care.", "support", True),
        (r"original medicare", "MA premiums are often lower than Original Medicare.", "contradict", False),
        (
            r"cover out-of-network",
            "It's not only HMOs that cover out-of-network emergencies.",
            "contradict",
            True,
        ),
        # A hedge does not void an invented plan specific, and a negation in the pattern is its own.
        (r"\$0 (monthly )?premium", "Harborview may have a $0 premium.", "disallowed", True),
        (r"\$0 (monthly )?premium", "I can't tell whether it has a $0 premium.", "disallowed", False),
        (
            r"medicare covers long-term",
            "Medicare covers long-term care, but not custodial care.",
            "contradict",
            True,
        ),
        # A clause is read with its subject: a pronoun or an ellipsis leans on the clause before.
        (
            r"medigap[^.;]*includes? drug",
            "Think of Medigap as an add-on: it includes drug coverage.",
            "contradict",
            True,
        ),
        (
            r"medicaid[^.;]*only for a limited time",
            "Medicaid covers it, but only for a limited time.",
            "contradict",
            True,
        ),
        (r"hmos? limit[^.;]*cover", "HMOs limit networks; PPOs cover more.", "contradict", False),
    ],
)
def test_negations_and_comparisons_change_the_reading(
    pattern: str, text: str, kind: str, expected: bool
) -> None:
    assert reads(pattern, text, kind) is expected


PART_B_DEDUCTIBLE = "The Part B annual deductible is $283 in 2026."
PART_B_PREMIUM = "The standard Part B premium is $202.90 a month in 2026."


@pytest.mark.parametrize(
    ("text", "statement", "expected"),
    [
        ("Medigap plans usually cost $120 to $240 a month.", PART_B_DEDUCTIBLE, False),
        ("The Part B deductible is $240.", PART_B_DEDUCTIBLE, True),
        ("It's $240 a year before Part B pays.", PART_B_DEDUCTIBLE, True),
        ("The Part B premium is $202.90 and a Medigap plan costs $240.", PART_B_DEDUCTIBLE, False),
        ("Plan G covers everything except the $240 Part B deductible.", PART_B_DEDUCTIBLE, True),
        ("Your Part B premium is $240 a month.", PART_B_DEDUCTIBLE, False),
        ("The penalty is 10% of the $185 monthly premium.", PART_B_PREMIUM, True),
        ("The premium is $202.90, up from $185 in 2025.", PART_B_PREMIUM, False),
        ("Premiums run between $185 and $300 for Medigap.", PART_B_PREMIUM, False),
        ("You'll pay more than $185 now.", PART_B_PREMIUM, False),
    ],
)
def test_a_stale_figure_counts_only_as_the_current_amount_of_its_quantity(
    text: str, statement: str, expected: bool
) -> None:
    stale = r"\$(?:240|185)(?:\.00)?(?![\d,]\d|\.\d)"
    assert reads(stale, text, "stale", statement) is expected


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ("I'm sorry, I can't help with questions about specific insurance plans.", "refusal"),
        (
            "I'm not able to advise on long-term care eligibility. Please contact your Medicaid office.",
            "refusal",
        ),
        ("I don't know the answer to that. I hope this helps!", "dont_know"),
        ("I can't look that up for you, I'm afraid.", "dont_know"),
        ("I'm sorry, I don't have information about which plans are available in your area.", "dont_know"),
        ("Please call 1-800-MEDICARE or visit Medicare.gov. They can tell you more.", "referral_only"),
        ("Your best bet is to contact the plan directly.", "referral_only"),
        ("Your local SHIP offers free counseling and can walk you through it.", "referral_only"),
        ("That really depends on the plan you choose.", "depends_only"),
        ("It depends. Everyone's situation is different.", "depends_only"),
        ("Could you tell me which state you live in?", "dont_know"),
        ("I'm not able to give advice on that. You may want to talk with your HR department.", "refusal"),
        ("You can find copay amounts in the plan's Summary of Benefits.", "referral_only"),
    ],
)
def test_non_answers_are_recognised_positively(answer: str, kind: str) -> None:
    kinds = [sentence_kind(s) for s in sentences(answer)]
    assert non_answer_kind(kinds) == kind


@pytest.mark.parametrize(
    "answer",
    [
        "It depends on the plan. With full Medicaid, you pay no premiums or copays.",
        "Call 1-800-MEDICARE. Medicare does not cover long-term custodial care.",
        "You must sign up for Part B at 65 or pay a penalty.",
        "I'm not sure, but I think you can enroll whenever you like.",
        "I can't see Harborview's formulary; generic atorvastatin is almost always covered.",
    ],
)
def test_an_answer_with_substance_is_not_a_non_answer(answer: str) -> None:
    kinds = [sentence_kind(s) for s in sentences(answer)]
    assert non_answer_kind(kinds) is None


def scenario() -> Scenario:
    return Scenario.model_validate(
        {
            "scenario_id": "s",
            "effective_date": "2026-01-01",
            "scripted_turns": [{"turn_id": "Q1", "user_message": "Does an HMO cover out-of-network care?"}],
            "answer_key": {
                "canonical_facts": [
                    {
                        "fact_id": "HMO_OON",
                        "statement": "An HMO generally does not cover out-of-network care.",
                        "source": "Medicare & You 2026",
                        "severity_if_wrong": "high",
                        "patterns": {
                            "support": [r"\bhmos?\b[^.]*(doesn't|does not|don't|do not|won't|not)[^.]*cover"],
                            "contradict": [r"\bhmos?\b[^.]*\b(covers?|pays? for)\b[^.]*out[- ]of[- ]network"],
                        },
                    },
                    {
                        "fact_id": "WHERE",
                        "statement": "Check the plan's provider directory or call 1-800-MEDICARE.",
                        "source": "Medicare & You 2026",
                        "patterns": {"support": [r"member services|provider directory|1-800-medicare"]},
                    },
                ],
                "required_points": ["HMO_OON", "WHERE"],
            },
        }
    )


def test_code_answer_credits_a_negated_correct_answer_and_quotes_the_original() -> None:
    answer = "**No.** HMOs usually *do not* cover out-of-network care, except emergencies."
    out = rules.code_answer(scenario(), "s", answer)
    assert [(c.fact_id, c.code) for c in out.checklist] == [("HMO_OON", "covered"), ("WHERE", "absent")]
    assert out.checklist[0].quote == "HMOs usually *do not* cover out-of-network care, except emergencies."
    assert out.non_answer is None and out.uncertain == []


def test_code_answer_contradiction_and_non_answer_and_uncertain() -> None:
    wrong = rules.code_answer(scenario(), "s", "Yes, HMOs cover out-of-network doctors at a higher cost.")
    assert [(c.fact_id, c.code) for c in wrong.checklist] == [
        ("HMO_OON", "contradicted"),
        ("WHERE", "absent"),
    ]
    referral = rules.code_answer(scenario(), "s", "Please call the plan's member services line.")
    assert referral.non_answer == "referral_only" and referral.uncertain == []
    # A bare referral credits nothing, even where the key has a "where to check" fact.
    assert [c.code for c in referral.checklist] == ["absent", "absent"]
    unforeseen = rules.code_answer(scenario(), "s", "You can see any doctor you like for a $20 copay.")
    assert unforeseen.non_answer is None
    assert unforeseen.uncertain == ["You can see any doctor you like for a $20 copay."]


def test_a_sentence_credited_only_with_another_groups_item_stays_uncertain() -> None:
    data = scenario().model_dump()
    data["answer_key"]["canonical_facts"].append(
        {
            "fact_id": "COSTS_VARY",
            "statement": "What you pay for drugs differs from plan to plan.",
            "source": "Medicare & You 2026",
            "patterns": {"support": [r"what you pay"]},
        }
    )
    data["scripted_turns"].append({"turn_id": "Q2", "user_message": "Drugs?", "question_group": "G2"})
    data["scripted_turns"][0]["question_group"] = "G1"
    data["answer_key"]["question_groups"] = [
        {"group_id": "G1", "items": [{"fact_id": "HMO_OON"}]},
        {"group_id": "G2", "items": [{"fact_id": "COSTS_VARY"}]},
    ]
    two_groups = Scenario.model_validate(data)
    answer = "With an HMO, what you pay out of network is always the full bill."
    out = rules.code_answer(two_groups, "G1", answer)
    assert out.non_answer is None
    assert out.uncertain == [answer]
    # In its own group the same credit counts.
    assert rules.code_answer(two_groups, "G2", answer).checklist[0].code == "covered"
