"""Adjudication: a pure function from independent verdicts to one final label per claim.

A claim is decided by a strict majority of the configured panel (an abstaining judge counts
against a majority, so one judge alone never decides). Ties go to an adjudicator model when one is
configured (its decisions are applied by `apply_tie_breaks`), otherwise the claim awaits review.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from medeval.schemas import (
    Claim,
    CodedItem,
    FinalClaim,
    ItemDecision,
    ItemStatus,
    Label,
    NonAnswer,
    Severity,
    TieBreak,
    Verdict,
    Vote,
    worse_severity,
)

MANUAL_REVIEW_THRESHOLD = 0.20


def collect_votes(claim_id: str, panels: Sequence[Mapping[str, Verdict] | None]) -> list[Vote]:
    """One vote per judge; a judge with no usable verdict for the claim abstains (label None)."""
    votes = []
    for index, panel in enumerate(panels):
        verdict = panel.get(claim_id) if panel is not None else None
        if verdict is None:
            votes.append(Vote(judge_index=index, label=None))
        else:
            votes.append(
                Vote(
                    judge_index=index,
                    label=verdict.label,
                    evidence=verdict.evidence,
                    severity=verdict.severity,
                )
            )
    return votes


def decide(claim: Claim, votes: list[Vote]) -> FinalClaim:
    cast = [v for v in votes if v.label is not None]
    counts = Counter(v.label for v in cast)
    unanimous = len(cast) == len(votes) and len(counts) == 1
    if counts:
        label, count = counts.most_common(1)[0]
        if count * 2 > len(votes):
            winners = [v for v in cast if v.label == label]
            severity: Severity = "none"
            for v in winners:
                severity = worse_severity(severity, v.severity)
            evidence = list(dict.fromkeys(e for v in winners for e in v.evidence))
            return FinalClaim(
                claim_id=claim.claim_id,
                turn_id=claim.turn_id,
                label=label,
                evidence=evidence,
                severity=severity if label == Label.CONTRADICTED else "none",
                votes=votes,
                unanimous=unanimous,
                decided_by="majority",
            )
    return FinalClaim(
        claim_id=claim.claim_id,
        turn_id=claim.turn_id,
        label=None,
        votes=votes,
        unanimous=False,
        decided_by="none",
    )


def adjudicate(claims: list[Claim], panels: Sequence[Mapping[str, Verdict] | None]) -> list[FinalClaim]:
    """Final claims by strict majority; `panels[i]` maps claim id to judge i's verdict."""
    return [decide(claim, collect_votes(claim.claim_id, panels)) for claim in claims]


def apply_tie_breaks(final_claims: list[FinalClaim], decisions: list[TieBreak]) -> list[FinalClaim]:
    by_id = {d.claim_id: d for d in decisions}
    out = []
    for fc in final_claims:
        decision = by_id.get(fc.claim_id)
        if fc.label is None and decision is not None:
            severity: Severity = "none"
            if decision.label == Label.CONTRADICTED:
                for v in fc.votes:
                    if v.label == Label.CONTRADICTED:
                        severity = worse_severity(severity, v.severity)
            fc = fc.model_copy(
                update={
                    "label": decision.label,
                    "evidence": decision.evidence,
                    "severity": severity,
                    "decided_by": "adjudicator_model",
                }
            )
        out.append(fc)
    return out


def disagreement_rate(final_claims: list[FinalClaim]) -> float:
    if not final_claims:
        return 0.0
    return sum(not fc.unanimous for fc in final_claims) / len(final_claims)


def needs_manual_review(final_claims: list[FinalClaim]) -> bool:
    """More than 20% of claims without unanimity, or any claim left undecided."""
    return disagreement_rate(final_claims) > MANUAL_REVIEW_THRESHOLD or any(
        fc.label is None for fc in final_claims
    )


def adjudicate_checklist(
    items: Sequence[tuple[str, bool]], panels: Sequence[Sequence[CodedItem] | None]
) -> list[ItemDecision]:
    """One decision per checklist item `(fact_id, optional)` by strict majority of the panel; a
    judge that failed (None) or did not code the item abstains, which counts against a majority."""
    by_judge = [None if panel is None else {c.fact_id: c.code for c in panel} for panel in panels]
    decisions = []
    for fact_id, optional in items:
        votes: list[ItemStatus | None] = [None if codes is None else codes.get(fact_id) for codes in by_judge]
        counts = Counter(v for v in votes if v is not None)
        code: ItemStatus | None = None
        if counts:
            top, count = counts.most_common(1)[0]
            if count * 2 > len(votes):
                code = top
        decisions.append(
            ItemDecision(
                fact_id=fact_id,
                optional=optional,
                code=code,
                votes=votes,
                decided_by="majority" if code is not None else "none",
            )
        )
    return decisions


def majority_non_answer(kinds: Sequence[NonAnswer | None], panel_size: int) -> NonAnswer | None:
    """The non-answer kind a strict majority of the whole panel found, if any."""
    counts = Counter(k for k in kinds if k is not None)
    if not counts:
        return None
    kind, count = counts.most_common(1)[0]
    return kind if count * 2 > panel_size else None


def majority_uncertain(uncertain: Sequence[Sequence[str]], panel_size: int) -> bool:
    """Whether a strict majority of the panel reported substance it could neither credit nor contradict."""
    return sum(bool(u) for u in uncertain) * 2 > panel_size
