"""Adjudication: strict majority of the panel, ties, abstentions and the 20% review threshold."""

from __future__ import annotations

from medeval.agents.adjudicator import (
    adjudicate,
    apply_tie_breaks,
    disagreement_rate,
    needs_manual_review,
)
from medeval.schemas import Claim, Label, TieBreak, Verdict

S, C, N = Label.SUPPORTED, Label.CONTRADICTED, Label.NOT_IN_KEY


def claim(claim_id: str) -> Claim:
    return Claim(
        claim_id=claim_id,
        turn_id="Q1",
        text=claim_id,
        type="factual",
        confidence="high",
        verifiable=True,
        quote_spans=[(0, 1)],
    )


def verdict(claim_id: str, label: Label, *evidence: str, severity: str = "none") -> Verdict:
    return Verdict(claim_id=claim_id, label=label, evidence=list(evidence), severity=severity)  # type: ignore[arg-type]


def test_unanimous_panel_decides_and_merges_evidence() -> None:
    panels = [{"c1": verdict("c1", S, "F1")}, {"c1": verdict("c1", S, "F1", "F2")}]
    [final] = adjudicate([claim("c1")], panels)
    assert final.label == S
    assert final.evidence == ["F1", "F2"]
    assert final.unanimous is True
    assert final.decided_by == "majority"


def test_two_of_three_is_a_strict_majority_but_not_unanimous() -> None:
    panels = [
        {"c1": verdict("c1", C, "F1", severity="low")},
        {"c1": verdict("c1", C, "F1", severity="high")},
        {"c1": verdict("c1", S, "F2")},
    ]
    [final] = adjudicate([claim("c1")], panels)
    assert final.label == C
    assert final.severity == "high"  # the worst severity among the majority
    assert final.evidence == ["F1"]  # the minority's evidence is not merged in
    assert final.unanimous is False


def test_tie_between_two_judges_is_left_for_review() -> None:
    panels = [{"c1": verdict("c1", S, "F1")}, {"c1": verdict("c1", N)}]
    [final] = adjudicate([claim("c1")], panels)
    assert final.label is None
    assert final.decided_by == "none"
    assert needs_manual_review([final]) is True


def test_an_abstaining_judge_counts_against_a_majority() -> None:
    # One judge alone never decides: with two configured, one vote is not a strict majority.
    panels = [{"c1": verdict("c1", S, "F1")}, None]
    [final] = adjudicate([claim("c1")], panels)
    assert final.label is None
    assert [v.label for v in final.votes] == [S, None]

    # With three configured and one abstaining, two agreeing votes still decide.
    panels3 = [{"c1": verdict("c1", S, "F1")}, {}, {"c1": verdict("c1", S, "F1")}]
    [final3] = adjudicate([claim("c1")], panels3)
    assert final3.label == S
    assert final3.unanimous is False


def test_tie_break_decisions_apply_only_to_undecided_claims() -> None:
    panels = [
        {"c1": verdict("c1", S, "F1"), "c2": verdict("c2", S, "F1")},
        {"c1": verdict("c1", C, "F1", severity="medium"), "c2": verdict("c2", S, "F1")},
    ]
    finals = adjudicate([claim("c1"), claim("c2")], panels)
    decisions = [
        TieBreak(claim_id="c1", label=C, evidence=["F1"]),
        TieBreak(claim_id="c2", label=N),  # c2 already has a majority: ignored
    ]
    c1, c2 = apply_tie_breaks(finals, decisions)
    assert (c1.label, c1.decided_by, c1.severity) == (C, "adjudicator_model", "medium")
    assert (c2.label, c2.decided_by) == (S, "majority")


def test_review_threshold_is_strictly_more_than_twenty_percent() -> None:
    claims = [claim(f"c{i}") for i in range(5)]
    agree = {f"c{i}": verdict(f"c{i}", S, "F1") for i in range(5)}
    one_split = dict(agree, c0=verdict("c0", N))
    # 3 judges so a split still has a majority: 1 of 5 claims (20%) not unanimous -> no review.
    finals = adjudicate(claims, [agree, agree, one_split])
    assert disagreement_rate(finals) == 0.2
    assert needs_manual_review(finals) is False
    two_split = dict(one_split, c1=verdict("c1", N))
    finals = adjudicate(claims, [agree, agree, two_split])
    assert disagreement_rate(finals) == 0.4
    assert needs_manual_review(finals) is True


def test_no_claims_means_no_disagreement() -> None:
    assert disagreement_rate([]) == 0.0
    assert needs_manual_review([]) is False
