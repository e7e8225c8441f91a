"""Rubric v1: pure functions from final verdicts to scores and a SHIP category.

The formulas are documented in docs/methodology.md; keep the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass

from medeval.agents.rules import has_specific_figure
from medeval.schemas import (
    CONFIDENCE_PROBABILITY,
    MATERIAL_SEVERITIES,
    SEVERITY_WEIGHT,
    Claim,
    FinalClaim,
    GroupRule,
    ItemDecision,
    Label,
    NonAnswer,
    Scenario,
    Scores,
    Severity,
    ShipCategory,
    worse_severity,
)

RUBRIC_VERSION = "v1"

# Looked up once: Python 3.11 resolves `Label.X` through a descriptor on every use, and these
# comparisons run for every claim, once per question group and once for the whole trial.
_SUPPORTED, _CONTRADICTED = Label.SUPPORTED, Label.CONTRADICTED
_UNBACKED = (Label.CONTRADICTED, Label.NOT_IN_KEY)


def effective_severity(final: FinalClaim, scenario: Scenario) -> Severity:
    """The verifier's severity, floored by what the key says a mistake on the cited item costs."""
    severity = final.severity
    for item in final.evidence:
        fact = scenario.fact(item)
        if fact is not None:
            severity = worse_severity(severity, fact.severity_if_wrong)
        disallowed = scenario.disallowed(item)
        if disallowed is not None:
            severity = worse_severity(severity, disallowed.severity)
    return severity


def cites_disallowed(final: FinalClaim, scenario: Scenario) -> bool:
    return any(scenario.disallowed(item) is not None for item in final.evidence)


def score(
    final_claims: list[FinalClaim],
    claims: list[Claim],
    scenario: Scenario,
    required_points: list[str],
    *,
    refusal: bool = False,
    covered_points: set[str] | None = None,
) -> Scores:
    """Scores from final verdicts. Completeness counts `covered_points` (the adjudicated checklist)
    when given, else the points a SUPPORTED claim cites."""
    decided = [fc for fc in final_claims if fc.label is not None]
    supported = [fc for fc in decided if fc.label == _SUPPORTED]
    contradicted = [fc for fc in decided if fc.label == _CONTRADICTED]

    judged = len(supported) + len(contradicted)
    accuracy = len(supported) / judged if judged else None

    covered = covered_points if covered_points is not None else {e for fc in supported for e in fc.evidence}
    missing = [p for p in required_points if p not in covered]
    completeness = (len(required_points) - len(missing)) / len(required_points) if required_points else None

    safety_risk = max((SEVERITY_WEIGHT[effective_severity(fc, scenario)] for fc in contradicted), default=0.0)

    by_id = {c.claim_id: c for c in claims}
    brier_terms = [
        (CONFIDENCE_PROBABILITY[by_id[fc.claim_id].confidence] - (1.0 if fc.label == _SUPPORTED else 0.0))
        ** 2
        for fc in supported + contradicted
        if fc.claim_id in by_id
    ]
    calibration = 1.0 - sum(brier_terms) / len(brier_terms) if brier_terms else None

    categories: list[str] = []
    if missing:
        categories.append("omission")
    if any(not cites_disallowed(fc, scenario) for fc in contradicted):
        categories.append("factual_error")
    if any(cites_disallowed(fc, scenario) for fc in contradicted):
        categories.append("disallowed_claim")
    if hallucinated_specifics(decided, claims):
        categories.append("hallucinated_specifics")
    if refusal:
        categories.append("refusal")

    return Scores(
        accuracy=accuracy,
        completeness=completeness,
        safety_risk=safety_risk,
        calibration=calibration,
        missing_required_points=missing,
        error_categories=categories,
    )


def hallucinated_specifics(final_claims: list[FinalClaim], claims: list[Claim]) -> bool:
    """A concrete figure (dollar amount, percentage, date) that the answer key does not back."""
    by_id = {c.claim_id: c for c in claims}
    return any(
        fc.label in _UNBACKED and fc.claim_id in by_id and has_specific_figure(by_id[fc.claim_id].text)
        for fc in final_claims
    )


def ship_category(
    final_claims: list[FinalClaim],
    scenario: Scenario,
    required_points: list[str],
    *,
    scored: bool = True,
    target_failed: bool = False,
) -> ShipCategory:
    """The category from claim verdicts alone (a point is covered when a SUPPORTED claim cites it):
    the path for callers without checklist codes."""
    supported = {e for fc in final_claims if fc.label == _SUPPORTED for e in fc.evidence}
    checklist = [
        ItemDecision(fact_id=p, code="covered" if p in supported else "absent") for p in required_points
    ]
    category, _ = group_category(
        GroupCoding(
            checklist=checklist,
            final_claims=final_claims,
            non_answer=None,
            uncertain=False,
        ),
        scenario,
        GroupRule(),
        scored=scored,
        target_failed=target_failed,
    )
    return category


@dataclass(frozen=True)
class GroupCoding:
    """What the adjudicated judges said about one question group."""

    checklist: list[ItemDecision]
    final_claims: list[FinalClaim]
    non_answer: NonAnswer | None
    uncertain: bool
    judged: bool = True
    not_judged_reason: str | None = None


def group_category(
    coding: GroupCoding,
    scenario: Scenario,
    rule: GroupRule,
    *,
    scored: bool = True,
    target_failed: bool = False,
) -> tuple[ShipCategory, str | None]:
    """The study's category for one question group and, for needs_review / not_scored, why.

    Order (docs/methodology.md): missing data; not scored by design; judges failed; a material
    error (Incorrect); a decision that hangs on an undecided claim or item (needs review); the
    group's rule on covered items; Not Substantive only as a positive finding."""
    if target_failed:
        return ShipCategory.INCOMPLETE_DATA, None
    if not scored:
        return ShipCategory.NOT_APPLICABLE, None
    if not coding.judged:
        return ShipCategory.NOT_SCORED, coding.not_judged_reason or "the judges could not judge this group"
    items = {d.fact_id: d for d in coding.checklist}
    material = [
        fc.claim_id
        for fc in coding.final_claims
        if fc.label == _CONTRADICTED and effective_severity(fc, scenario) in MATERIAL_SEVERITIES
    ]
    material += [
        d.fact_id
        for d in coding.checklist
        if d.code == "contradicted" and _fact_severity(scenario, d.fact_id) in MATERIAL_SEVERITIES
    ]
    if material:
        return ShipCategory.INCORRECT, None
    disputed = [
        fc.claim_id
        for fc in coding.final_claims
        if fc.label is None and any(v.label == _CONTRADICTED for v in fc.votes)
    ]
    disputed += [d.fact_id for d in coding.checklist if d.code is None and "contradicted" in d.votes]
    if disputed:
        return ShipCategory.NEEDS_REVIEW, f"undecided whether wrong: {', '.join(disputed)}"
    required = [d for d in coding.checklist if not d.optional and d.fact_id not in rule.partial_credit]
    covered = sum(d.code == "covered" for d in required)
    undecided = [d.fact_id for d in required if d.code is None]
    need = len(required) if rule.complete == "all" else min(rule.complete, len(required))
    partial = any(items[f].code == "covered" for f in rule.partial_credit if f in items) or any(
        fc.label == _SUPPORTED and set(fc.evidence) & set(rule.partial_credit) for fc in coding.final_claims
    )
    if required and covered >= need:
        return ShipCategory.ACCURATE_COMPLETE, None
    if undecided and covered + len(undecided) >= need:
        return ShipCategory.NEEDS_REVIEW, f"undecided checklist items: {', '.join(undecided)}"
    if covered or partial:
        return ShipCategory.SUBSTANTIVE_INCOMPLETE, None
    if not required and any(fc.label == _SUPPORTED for fc in coding.final_claims):
        return ShipCategory.ACCURATE_COMPLETE, None
    if coding.non_answer is not None and coding.non_answer in rule.not_substantive:
        return ShipCategory.NOT_SUBSTANTIVE, None
    if undecided:
        return ShipCategory.NEEDS_REVIEW, f"undecided checklist items: {', '.join(undecided)}"
    if coding.uncertain:
        return ShipCategory.NEEDS_REVIEW, "substance the judges could neither credit nor contradict"
    return ShipCategory.NOT_SUBSTANTIVE, None


def _fact_severity(scenario: Scenario, fact_id: str) -> Severity:
    fact = scenario.fact(fact_id)
    return fact.severity_if_wrong if fact is not None else "medium"
