"""Grounded claims: quotes are real passages found where they stand, a restatement unrelated to its
quote is flagged, and checkable sentences the extractor skipped are judged anyway."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from medeval.agents.extractor import Extraction, extract
from medeval.agents.grounding import UNCOVERED, UNRELATED, checkable, locate_quote
from medeval.calls.gateway import CallContext, Gateway

from .test_extraction import ScriptedModel

ANSWER = (
    "The standard Part B premium is $202.90 a month in 2026. "
    "You must sign up within 8 months of losing employer coverage or pay a late penalty. "
    "Medigap does not work with Medicare Advantage. "
    "I hope this helps!"
)


def claim(claim_id: str, text: str, quote: str) -> dict[str, Any]:
    return {"claim_id": claim_id, "text": text, "quote": quote}


def extract_with(claims: list[dict[str, Any]], answer: str = ANSWER) -> Extraction:
    model = ScriptedModel([json.dumps({"claims": claims})])
    gateway = Gateway(adapters={"scripted:scripted-1": model})
    ctx = CallContext(run_id="r", trial_id="t", role="extractor", scenario_id="s", turn_id="Q1")
    return asyncio.run(
        extract(gateway, "scripted:scripted-1", question="q", response=answer, turn_id="Q1", seed=1, ctx=ctx)
    )


def passage(result: Extraction, claim_id: str, answer: str = ANSWER) -> str:
    [found] = [c for c in result.claims if c.claim_id == claim_id]
    return " ".join(answer[s.start : s.end] for s in found.quote_spans)


def test_a_quote_of_a_word_or_two_is_not_a_passage_unless_it_is_the_whole_answer() -> None:
    result = extract_with(
        [
            claim("c1", "The premium is $202.90.", "premium"),
            claim("c2", "Medigap does not work with Advantage.", "Medigap does not"),
            claim("c3", "Part B costs $202.90 a month.", "$202.90 a month in 2026"),
        ]
    )
    assert result.dropped == ["c1"]
    assert passage(result, "Q1.c2") == "Medigap does not"
    assert (
        extract_with([claim("c1", "The answer is yes.", "yes.")], answer="Yes.").claims[0].claim_id == "Q1.c1"
    )
    # A whole short sentence is a real passage too: "Generally, no." answers a yes-or-no question.
    short = "Generally, no. HMOs cover out-of-network care only in an emergency."
    kept = extract_with([claim("c1", "HMOs generally do not cover it.", "Generally, no.")], answer=short)
    assert [c.claim_id for c in kept.claims if c.origin == "extractor"] == ["Q1.c1"]
    assert extract_with([claim("c1", "No.", "Generally,")], answer=short).dropped == ["c1"]


def test_a_quote_never_cuts_a_figure_or_a_word() -> None:
    assert locate_quote(ANSWER, "premium is $202.9") is None
    assert locate_quote(ANSWER, "premium is $20") is None
    assert locate_quote(ANSWER, "art B premium") is None
    span = locate_quote(ANSWER, "Part B premium is $202.90")
    assert span is not None and ANSWER[span[0] : span[1]] == "Part B premium is $202.90"


def test_the_exact_occurrence_wins_over_an_earlier_normalised_match() -> None:
    text = "THE PART B PREMIUM went up. The part B premium is $202.90."
    span = locate_quote(text, "The part B premium")
    assert span == (text.index("The part B premium"), text.index("The part B premium") + 18)
    # With no exact occurrence, case and whitespace are ignored.
    assert locate_quote(text, "the  part b premium went") == (0, len("THE PART B PREMIUM went"))


def test_a_restatement_unrelated_to_its_quote_is_flagged() -> None:
    result = extract_with(
        [
            claim("c1", "Medigap is free for everyone.", "The standard Part B premium is $202.90"),
            claim(
                "c2",
                "Part B's standard premium is $202.90 monthly.",
                "The standard Part B premium is $202.90",
            ),
        ]
    )
    flags = {c.claim_id: c.flags for c in result.claims if c.origin == "extractor"}
    assert flags == {"Q1.c1": [UNRELATED], "Q1.c2": []}


def test_checkable_sentences_the_extractor_skipped_become_claims_of_their_own() -> None:
    # The extractor quotes only the premium sentence, and only part of the deadline sentence
    # without its figure: the deadline and the negation are judged verbatim anyway.
    result = extract_with(
        [
            claim("c1", "Part B costs $202.90 a month in 2026.", "Part B premium is $202.90 a month in 2026"),
            claim("c2", "You must sign up.", "You must sign up"),
        ]
    )
    added = [c for c in result.claims if c.origin == UNCOVERED]
    assert [(c.claim_id, c.text) for c in added] == [
        ("Q1.u1", "You must sign up within 8 months of losing employer coverage or pay a late penalty."),
        ("Q1.u2", "Medigap does not work with Medicare Advantage."),
    ]
    for c in added:
        assert passage(result, c.claim_id) == c.text
    # A pleasantry states nothing checkable and is left alone.
    assert not checkable("I hope this helps!")


def test_an_extractor_that_returns_nothing_still_leaves_every_checkable_sentence_judged() -> None:
    result = extract_with([])
    assert [c.text for c in result.claims] == [
        "The standard Part B premium is $202.90 a month in 2026.",
        "You must sign up within 8 months of losing employer coverage or pay a late penalty.",
        "Medigap does not work with Medicare Advantage.",
    ]
