"""Verifiers see only the answer key as delimited data; verdicts citing unknown ids are invalid."""

from __future__ import annotations

import asyncio
import json
import re

from medeval.agents.rules import extract_claims, label_claims
from medeval.agents.tiebreak import screen_decisions
from medeval.agents.verifier import GroupAnswer, Verification, answer_key_json, verify
from medeval.calls.gateway import CallContext, Gateway
from medeval.scenarios.load import load_scenario
from medeval.schemas import Claim, FinalClaim, Label, Span, TieBreak

from .conftest import SCENARIOS
from .test_extraction import ScriptedModel

SCENARIO = load_scenario(SCENARIOS / "scenario_001.json")
ANSWER = "You still pay the Part B premium with an Advantage plan. Medigap works with Original Medicare."


def verify_with(model: ScriptedModel, claims: list[Claim], max_attempts: int = 3) -> Verification:
    """One model-backed verifier on ANSWER, through the real gateway, replaying `model`'s replies."""
    gateway = Gateway(adapters={"scripted:scripted-1": model})
    ctx = CallContext(run_id="r", trial_id="t", role="verifier", judge_index=0)
    return asyncio.run(
        verify(
            gateway,
            "scripted:scripted-1",
            scenario=SCENARIO,
            answers=[GroupAnswer("Q1", "q", ANSWER)],
            claims=claims,
            checklist=[],
            optional=set(),
            seed=3,
            ctx=ctx,
            max_attempts=max_attempts,
        )
    )


def test_rules_judge_contradiction_outranks_support() -> None:
    claims = extract_claims("You still pay the Part B premium of $185 a month.", "Q1")
    [verdict] = label_claims(claims, SCENARIO)
    assert verdict.label == Label.CONTRADICTED
    assert verdict.evidence == ["F3"]
    assert verdict.severity == "high"


def test_rules_judge_labels_support_and_not_in_key() -> None:
    claims = extract_claims(ANSWER + " The weather is nice.", "Q1")
    labels = [(v.label, v.evidence) for v in label_claims(claims, SCENARIO)]
    assert labels == [(Label.SUPPORTED, ["F3"]), (Label.SUPPORTED, ["F5"]), (Label.NOT_IN_KEY, [])]


def test_model_verifier_discards_verdicts_citing_unknown_ids() -> None:
    claims = extract_claims(ANSWER, "Q1")
    reply = {
        "verdicts": [
            {"claim_id": "Q1.c1", "label": "SUPPORTED", "evidence": ["F3"]},
            {"claim_id": "Q1.c2", "label": "SUPPORTED", "evidence": ["F99"]},
            {"claim_id": "Q1.c9", "label": "NOT_IN_KEY", "evidence": []},
        ]
    }
    model = ScriptedModel([json.dumps(reply)])
    result = verify_with(model, claims)
    assert [v.claim_id for v in result.verdicts] == ["Q1.c1"]
    assert result.invalid == ["Q1.c2: cites unknown id(s) F99", "Q1.c9: no such claim"]
    content = model.requests[0].messages[0].content
    assert re.search(rf"<(answer_key-[0-9a-f]+)>\n{re.escape(answer_key_json(SCENARIO))}\n</\1>", content)
    assert "patterns" not in content  # the rules judge's regexes are not part of the key a model sees
    assert "answer key" in model.requests[0].system.lower()


def test_a_decision_without_evidence_is_a_schema_error() -> None:
    claims = extract_claims(ANSWER, "Q1")
    bad = json.dumps({"verdicts": [{"claim_id": "Q1.c1", "label": "SUPPORTED", "evidence": []}]})
    model = ScriptedModel([bad, bad, bad])
    result = verify_with(model, claims, max_attempts=3)
    assert result.verdicts == []
    assert result.error is not None and "must cite fact ids" in result.error


PART_B = load_scenario(SCENARIOS / "topic_part_b_costs.json")


def label_of(text: str) -> tuple[Label, list[str]]:
    [verdict] = label_claims(extract_claims(text, "Q1"), PART_B)
    return verdict.label, verdict.evidence


def test_a_stale_figure_named_as_the_past_is_not_a_contradiction() -> None:
    # Correct answers often give last year's figure for comparison; that is not an error.
    for text in (
        "In 2026 the standard Part B premium is $202.90 a month, up from $185 in 2025.",
        "The Part B premium was $185.00 in 2025 and is $202.90 in 2026.",
    ):
        assert label_of(text) == (Label.SUPPORTED, ["PARTB_PREMIUM_2026"]), text


def test_a_stale_figure_stated_as_current_is_still_contradicted() -> None:
    for text in (
        "The standard Part B premium is $185 a month.",
        "The Part B premium is $185 a month in 2026.",
        "Expect to pay $185 a month for Part B, up from last year.",
    ):
        assert label_of(text)[0] == Label.CONTRADICTED, text


def test_evidence_must_point_the_right_way_or_the_judge_abstains() -> None:
    claims = extract_claims(ANSWER, "Q1")
    reply = {
        "verdicts": [
            # SUPPORTED may rest on canonical facts only; a disallowed claim supports nothing.
            {"claim_id": "Q1.c1", "label": "SUPPORTED", "evidence": ["D1"]},
            # CONTRADICTED may cite a disallowed claim the answer asserts.
            {"claim_id": "Q1.c2", "label": "CONTRADICTED", "evidence": ["D1"], "severity": "high"},
        ]
    }
    result = verify_with(ScriptedModel([json.dumps(reply)]), claims)
    assert [(v.claim_id, v.label) for v in result.verdicts] == [("Q1.c2", Label.CONTRADICTED)]
    assert result.invalid == ["Q1.c1: SUPPORTED cites disallowed claim(s) D1; it may cite facts only"]


def test_two_labels_for_one_claim_are_no_decision() -> None:
    claims = extract_claims(ANSWER, "Q1")
    reply = {
        "verdicts": [
            {"claim_id": "Q1.c1", "label": "SUPPORTED", "evidence": ["F3"]},
            {"claim_id": "Q1.c1", "label": "CONTRADICTED", "evidence": ["F3"], "severity": "high"},
            {"claim_id": "Q1.c1", "label": "SUPPORTED", "evidence": ["F3"]},
            {"claim_id": "Q1.c2", "label": "SUPPORTED", "evidence": ["F5"]},
            {"claim_id": "Q1.c2", "label": "SUPPORTED", "evidence": ["F5"]},
        ]
    }
    result = verify_with(ScriptedModel([json.dumps(reply)]), claims)
    assert [v.claim_id for v in result.verdicts] == ["Q1.c2"]
    assert result.invalid == [
        "Q1.c1: conflicting labels; the judge abstains on it",
        "Q1.c1: duplicate verdict",
        "Q1.c2: duplicate verdict",
    ]


def test_tie_break_decisions_are_held_to_the_same_evidence_rules() -> None:
    undecided = [
        FinalClaim(claim_id=c, turn_id="Q1", label=None, votes=[], unanimous=False, decided_by="none")
        for c in ("Q1.c1", "Q1.c2", "Q1.c3")
    ]
    decisions = [
        TieBreak(claim_id="Q1.c1", label=Label.SUPPORTED, evidence=["D1"]),
        TieBreak(claim_id="Q1.c2", label=Label.CONTRADICTED, evidence=["F99"]),
        TieBreak(claim_id="Q1.c3", label=Label.CONTRADICTED, evidence=["D1"]),
        TieBreak(claim_id="Q1.c9", label=Label.NOT_IN_KEY),
    ]
    valid, reason = screen_decisions(decisions, undecided, SCENARIO)
    assert [d.claim_id for d in valid] == ["Q1.c3"]
    assert reason == (
        "invalid tie-break decision(s): Q1.c1: SUPPORTED cites disallowed claim(s) D1; it may cite "
        "facts only; Q1.c2: cites unknown id(s) F99; Q1.c9: not a disputed claim"
    )


def test_a_claim_flag_travels_to_the_model_verifier_with_its_quote() -> None:
    """A restatement the harness found unrelated to its quote is marked in the verifier's input, so
    the verifier judges the quote (what the chatbot said), not the extractor's words."""
    from medeval.agents.grounding import UNRELATED
    from medeval.agents.verifier import claims_json

    response = "Part B costs $202.90 a month in 2026."
    flagged = Claim(
        claim_id="t1.c1",
        turn_id="t1",
        text="Part D has no premium.",
        type="factual",
        confidence="high",
        verifiable=True,
        quote_spans=[Span(start=0, end=len(response))],
        flags=[UNRELATED],
    )
    plain = flagged.model_copy(update={"claim_id": "t1.c2", "flags": []})
    shown = json.loads(claims_json([flagged, plain], response))
    assert shown[0]["flags"] == [UNRELATED]
    assert shown[0]["quote"] == response
    assert "flags" not in shown[1]
