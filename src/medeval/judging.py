"""The judging half of a trial (steps 7 and 8): the extractor splits each answer into claims,
independent verifiers label them, and the pure adjudicator and scorer decide. `medeval rescore`
reuses it on stored transcripts."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from medeval.agents import adjudicator, rules, scorer
from medeval.agents.extractor import RULES, extract
from medeval.agents.tiebreak import break_ties
from medeval.agents.verifier import Verification, verify
from medeval.config import RunConfig
from medeval.gateway import CallContext, Gateway
from medeval.hashing import derive_seed
from medeval.limits_judging import limit_answer, limit_claims
from medeval.schemas import (
    Claim,
    FinalClaim,
    GroupResult,
    JudgeVerdicts,
    Scenario,
    ShipCategory,
    TargetInfo,
    TrialFlags,
    TrialRecord,
    Unscored,
    Verdict,
)
from medeval.storage import utc_now

if TYPE_CHECKING:
    from medeval.trial import Answered, Conversation, TrialPlan


async def judge_conversation(
    plan: TrialPlan,
    config: RunConfig,
    gateway: Gateway,
    base: CallContext,
    conversation: Conversation,
    target: TargetInfo,
    *,
    served_mismatch: bool,
    unscored: list[Unscored],
    started: str,
) -> TrialRecord:
    """The judging half of a trial (steps 7 and 8): also what `medeval rescore` reuses."""
    scenario = plan.scenario
    key = plan.key(config.seed)
    claims: list[Claim] = []
    judge_records: list[JudgeVerdicts] = []
    dropped = 0
    scored_answers = [limit_answer(a, unscored) for a in conversation.answered if a.turn.scored]
    judged = await asyncio.gather(
        *(_judge_turn(answer, plan, config, gateway, base, key) for answer in scored_answers)
    )
    # A judge whose output for a turn was unscored simply has no verdicts there: it abstains.
    panels: list[dict[str, Verdict]] = [{} for _ in range(config.judge_count)]
    for answer, (turn_claims, records, extraction_error, n_dropped) in zip(
        scored_answers, judged, strict=True
    ):
        claims.extend(turn_claims)
        dropped += n_dropped
        judge_records.extend(records)
        if extraction_error:
            unscored.append(Unscored(item=f"turn {answer.turn.turn_id}: extraction", reason=extraction_error))
        for record in records:
            if record.status == "ok":
                panels[record.judge_index].update({v.claim_id: v for v in record.verdicts})
            else:
                unscored.append(
                    Unscored(
                        item=f"turn {', '.join(record.turn_ids)}: "
                        f"verifier {record.judge_index} ({record.judge})",
                        reason=record.reason or "unknown",
                    )
                )

    final_claims = adjudicator.adjudicate(claims, panels)
    undecided = [fc for fc in final_claims if fc.label is None]
    if undecided and config.adjudicator:
        decisions, problem = await break_ties(
            gateway,
            config.adjudicator,
            scenario=scenario,
            claims=claims,
            undecided=undecided,
            seed=derive_seed(config.seed, "adjudicator", key),
            ctx=base.model_copy(update={"role": "adjudicator"}),
        )
        final_claims = adjudicator.apply_tie_breaks(final_claims, decisions)
        if problem:
            unscored.append(Unscored(item="tie-break", reason=problem))
    for fc in final_claims:
        if fc.label is None:
            unscored.append(
                Unscored(item=f"claim {fc.claim_id}", reason="no strict majority; awaits manual review")
            )

    refused_turns = {a.turn.turn_id for a in scored_answers if rules.is_refusal(a.response)}
    refused_turns |= {c.turn_id for c in claims if c.type == "refusal"}
    groups = _group_results(scenario, conversation, claims, final_claims, refused_turns)
    all_points = list(dict.fromkeys(p for g in groups if g.scored for p in g.required_points))
    final_scores = scorer.score(final_claims, claims, scenario, all_points, refusal=bool(refused_turns))
    if conversation.error:
        unscored.append(Unscored(item=f"turn {conversation.failed_at}: target", reason=conversation.error))

    flags = TrialFlags(
        refusal=bool(refused_turns),
        hallucinated_specifics=scorer.hallucinated_specifics(final_claims, claims),
        needs_manual_review=adjudicator.needs_manual_review(final_claims),
        served_model_mismatch=served_mismatch,
        dropped_claims=dropped,
        target_error=conversation.error,
    )
    scored_groups = [g for g in groups if g.scored]
    if not scored_groups or all(g.ship_category == ShipCategory.INCOMPLETE_DATA for g in scored_groups):
        status = "unscored"
    else:
        status = "partial" if unscored else "scored"
    return TrialRecord(
        trial_id=base.trial_id,
        trial_key=key,
        run_id=base.run_id,
        scenario_id=scenario.scenario_id,
        scenario_version=scenario.version,
        scenario_sha256=plan.scenario_sha256,
        rubric_version=scenario.rubric_version,
        epoch=plan.epoch,
        seed=config.seed,
        target=target,
        judges=[config.judge_spec(i) for i in range(config.judge_count)],
        extractor=config.extractor_spec(),
        conversation=conversation.turns,
        claims=claims,
        verdicts=judge_records,
        final_claims=final_claims,
        final_scores=final_scores,
        groups=groups,
        disagreement_rate=adjudicator.disagreement_rate(final_claims),
        flags=flags,
        unscored=unscored,
        status=status,
        started_at=started,
        finished_at=utc_now(),
    )


async def _judge_turn(
    answer: Answered, plan: TrialPlan, config: RunConfig, gateway: Gateway, base: CallContext, key: str
) -> tuple[list[Claim], list[JudgeVerdicts], str | None, int]:
    turn_id = answer.turn.turn_id
    ctx = base.model_copy(update={"turn_id": turn_id})
    extraction = await extract(
        gateway,
        config.extractor_spec(),
        question=answer.question,
        response=answer.response,
        turn_id=turn_id,
        seed=derive_seed(config.seed, "extractor", key, turn_id),
        ctx=ctx.model_copy(update={"role": "extractor"}),
        max_attempts=config.judge_max_attempts,
    )
    extraction = limit_claims(extraction)
    # The rules judge is a pure function of the claims and the key: when several verifiers are
    # `rules`, label once and give each its own copy of the verdicts.
    specs = [config.judge_spec(i) for i in range(config.judge_count)]
    by_rules = rules.label_claims(extraction.claims, plan.scenario) if RULES in specs else []

    async def one(index: int) -> Verification:
        spec = specs[index]
        if spec == RULES:
            return Verification([v.model_copy() for v in by_rules])
        return await verify(
            gateway,
            spec,
            scenario=plan.scenario,
            question=answer.question,
            response=answer.response,
            claims=extraction.claims,
            seed=derive_seed(config.seed, "verifier", index, key, turn_id),
            ctx=ctx.model_copy(update={"role": "verifier", "judge_index": index}),
            max_attempts=config.judge_max_attempts,
        )

    verifications: list[Verification] = await asyncio.gather(*(one(i) for i in range(config.judge_count)))
    records = [
        JudgeVerdicts(
            judge_index=i,
            judge=config.judge_spec(i),
            question_group=answer.turn.question_group,
            turn_ids=[turn_id],
            status="unscored" if v.error else "ok",
            verdicts=v.verdicts,
            invalid_verdicts=v.invalid,
            reason=v.error,
        )
        for i, v in enumerate(verifications)
    ]
    return extraction.claims, records, extraction.error, len(extraction.dropped)


def _group_results(
    scenario: Scenario,
    conversation: Conversation,
    claims: list[Claim],
    final_claims: list[FinalClaim],
    refused_turns: set[str],
) -> list[GroupResult]:
    answered = {a.turn.turn_id for a in conversation.answered}
    results = []
    for group, turns in scenario.groups().items():
        asked = [t for t in turns if t.turn_id in answered]
        turn_ids = {t.turn_id for t in asked}
        scored = any(t.scored for t in turns)
        points = scenario.group_required_points([t for t in turns if t.condition is None] or turns)
        group_final = [fc for fc in final_claims if fc.turn_id in turn_ids]
        group_claims = [c for c in claims if c.turn_id in turn_ids]
        # A group is missing data when its first turn was never answered (the target failed).
        target_failed = conversation.failed_at is not None and turns[0].turn_id not in answered
        refusal = bool(turn_ids & refused_turns)
        results.append(
            GroupResult(
                question_group=group,
                turn_ids=[t.turn_id for t in asked],
                scored=scored,
                scores=scorer.score(
                    group_final, group_claims, scenario, points if scored else [], refusal=refusal
                ),
                ship_category=scorer.ship_category(
                    group_final, scenario, points, scored=scored, target_failed=target_failed
                ),
                required_points=points,
            )
        )
    return results
