"""The judging half of a trial (steps 7 and 8): the extractor splits each answer into claims,
independent verifiers read each question group (claim verdicts and a code per checklist item),
and the pure adjudicator and scorer decide. `medeval rescore` and `judge_answer` reuse it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from medeval.agents import adjudicator, rules, scorer
from medeval.agents.contacts.classify import AnswerText, check_contacts
from medeval.agents.extractor import RULES, Extraction, extract
from medeval.agents.scorer import GroupCoding
from medeval.agents.tiebreak import break_ties
from medeval.agents.verifier import GroupAnswer, Verification, screen_checklist, verify
from medeval.calls.gateway import CallContext, Gateway
from medeval.engine.config import RunConfig
from medeval.engine.limits_judging import limit_answer, limit_claims
from medeval.records.hashing import derive_seed
from medeval.records.storage import utc_now
from medeval.schemas import (
    Claim,
    ContactCheck,
    FinalClaim,
    GroupResult,
    GroupRule,
    JudgeVerdicts,
    Label,
    Scenario,
    ScriptedTurn,
    ShipCategory,
    TargetInfo,
    TrialFlags,
    TrialRecord,
    Unscored,
    Verdict,
)

if TYPE_CHECKING:
    from medeval.engine.types import Answered, Conversation, TrialPlan


@dataclass
class GroupJudging:
    """Everything the panel produced for one question group."""

    group: str
    turns: list[ScriptedTurn]
    answers: list[Answered]
    claims: list[Claim]
    records: list[JudgeVerdicts]
    extraction_errors: list[str]
    dropped: int
    unscorable: list[str]
    notes: dict[str, str]  # turn id -> what a size limit cut


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
    answered = [limit_answer(a, unscored) for a in conversation.answered if a.turn.scored]
    by_group: dict[str, list[Answered]] = {}
    for answer in answered:
        by_group.setdefault(answer.turn.question_group or scenario.scenario_id, []).append(answer)
    all_groups = scenario.groups()
    judged: list[GroupJudging] = await asyncio.gather(
        *(
            _judge_group(group, all_groups[group], answers, plan, config, gateway, base, key)
            for group, answers in by_group.items()
        )
    )
    claims: list[Claim] = [c for g in judged for c in g.claims]
    records: list[JudgeVerdicts] = [r for g in judged for r in g.records]
    for g in judged:
        unscored.extend(Unscored(item=f"group {g.group}: extraction", reason=e) for e in g.extraction_errors)
        unscored.extend(Unscored(item=f"turn {t}: extraction", reason=n) for t, n in g.notes.items())
        unscored.extend(
            Unscored(
                item=f"group {g.group}: verifier {r.judge_index} ({r.judge})", reason=r.reason or "unknown"
            )
            for r in g.records
            if r.status != "ok"
        )
        unscored.extend(
            Unscored(
                item=f"group {g.group}: item {f}", reason="the rules coder has no support patterns for it"
            )
            for f in g.unscorable
        )

    # A judge whose output for a group was unscored simply has no verdicts there: it abstains.
    panels: list[dict[str, Verdict]] = [{} for _ in range(config.judge_count)]
    for record in records:
        if record.status == "ok":
            panels[record.judge_index].update({v.claim_id: v for v in record.verdicts})
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
            responses={a.turn.turn_id: a.response for a in answered},
        )
        final_claims = adjudicator.apply_tie_breaks(final_claims, decisions)
        if problem:
            unscored.append(Unscored(item="tie-break", reason=problem))
    for fc in final_claims:
        if fc.label is None:
            unscored.append(
                Unscored(item=f"claim {fc.claim_id}", reason="no strict majority; awaits manual review")
            )

    refused_turns = {a.turn.turn_id for a in answered if rules.is_refusal(a.response)}
    refused_turns |= {c.turn_id for c in claims if c.type == "refusal"}
    groups = group_results(scenario, conversation, claims, final_claims, judged, refused_turns, config)
    # A group the judges could not judge says nothing about completeness: its points are left out.
    all_points = list(
        dict.fromkeys(
            p
            for g in groups
            if g.scored and g.ship_category != ShipCategory.NOT_SCORED
            for p in g.required_points
        )
    )
    covered = {d.fact_id for g in groups for d in g.checklist if d.code == "covered"}
    final_scores = scorer.score(
        final_claims, claims, scenario, all_points, refusal=bool(refused_turns), covered_points=covered
    )
    if conversation.error:
        unscored.append(Unscored(item=f"turn {conversation.failed_at}: target", reason=conversation.error))

    contacts = contacts_of(conversation)
    flags = TrialFlags(
        refusal=bool(refused_turns),
        hallucinated_specifics=scorer.hallucinated_specifics(final_claims, claims),
        needs_manual_review=adjudicator.needs_manual_review(final_claims)
        or any(g.ship_category == ShipCategory.NEEDS_REVIEW for g in groups),
        served_model_mismatch=served_mismatch,
        dropped_claims=sum(g.dropped for g in judged),
        target_error=conversation.error,
        unsafe_contacts=contacts.unsafe,
    )
    scored_groups = [g for g in groups if g.scored]
    if not scored_groups or all(
        g.ship_category in (ShipCategory.INCOMPLETE_DATA, ShipCategory.NOT_SCORED) for g in scored_groups
    ):
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
        verdicts=records,
        final_claims=final_claims,
        final_scores=final_scores,
        groups=groups,
        disagreement_rate=adjudicator.disagreement_rate(final_claims),
        flags=flags,
        unscored=unscored,
        contacts=contacts,
        status=status,
        started_at=started,
        finished_at=utc_now(),
    )


def contacts_of(conversation: Conversation) -> ContactCheck:
    """The offline contacts check over every answer of the conversation (persona replies' answers
    too), with each turn's citations (search-enabled targets). It reads text only: no SHIP
    category depends on it."""
    return check_contacts(
        AnswerText(turn.turn_id, turn.text, tuple(turn.citations))
        for turn in conversation.turns
        if turn.role == "assistant" and turn.text
    )


def checklist_of(scenario: Scenario, turns: list[ScriptedTurn]) -> tuple[list[str], set[str], GroupRule]:
    """The facts judges code for a group (required, optional, then partial-credit ones), the
    optional ones, and the group's category rule."""
    group = turns[0].question_group if turns else None
    key = scenario.group_key(group) if group else None
    rule = key.rule if key is not None else GroupRule()
    required = scenario.group_required_points([t for t in turns if t.condition is None] or turns)
    optional = scenario.group_optional_points(turns)
    facts = list(dict.fromkeys([*required, *optional, *rule.partial_credit]))
    # An item resting on a value not published yet is not coded at all (Scenario.group_pending).
    pending = scenario.group_pending(turns)
    facts = [f for f in facts if f not in pending]
    return facts, set(optional) | set(rule.partial_credit), rule


async def _judge_group(
    group: str,
    turns: list[ScriptedTurn],
    answered: list[Answered],
    plan: TrialPlan,
    config: RunConfig,
    gateway: Gateway,
    base: CallContext,
    key: str,
) -> GroupJudging:
    scenario = plan.scenario
    ctx = base.model_copy(update={"turn_id": answered[0].turn.turn_id})
    extractions: list[Extraction] = await asyncio.gather(
        *(
            extract(
                gateway,
                config.extractor_spec(),
                question=a.question,
                response=a.response,
                turn_id=a.turn.turn_id,
                seed=derive_seed(config.seed, "extractor", key, a.turn.turn_id),
                ctx=base.model_copy(update={"role": "extractor", "turn_id": a.turn.turn_id}),
                max_attempts=config.judge_max_attempts,
            )
            for a in answered
        )
    )
    extractions = [limit_claims(e) for e in extractions]
    claims = plan.arranged([c for e in extractions for c in e.claims])
    errors = [
        f"turn {a.turn.turn_id}: {e.error}" for a, e in zip(answered, extractions, strict=True) if e.error
    ]
    notes = {a.turn.turn_id: e.note for a, e in zip(answered, extractions, strict=True) if e.note}
    facts, optional, _ = checklist_of(scenario, turns)
    answers = [GroupAnswer(a.turn.turn_id, a.question, a.response) for a in answered]
    specs = [config.judge_spec(i) for i in range(config.judge_count)]
    unscorable: list[str] = []
    by_rules: Verification | None = None
    if RULES in specs and not errors:
        # The rules coder is a pure function of the answer and the key: code once, copy per judge.
        memo: rules.Memo = {}
        async with gateway.limits.cpu:  # one group's reading per loop turn (limits.LoopTurns)
            coded = rules.code_answer(scenario, group, "\n\n".join(a.response for a in answered), memo)
            labelled = rules.label_claims(claims, scenario, memo, group)
        checklist, invalid = screen_checklist(coded.checklist, answers, facts)
        # An item without support patterns is one the coder cannot score: it abstains, and says so.
        unscorable = [f for f in facts if not _has_support_patterns(scenario, f)]
        checklist = [c for c in checklist if c.fact_id not in unscorable]
        by_rules = Verification(
            labelled,
            invalid,
            checklist=checklist,
            non_answer=coded.non_answer,
            uncertain=coded.uncertain,
        )

    async def one(index: int) -> Verification:
        if errors:
            # Claims from a failed extraction are not the answer: nobody judges half of it.
            return Verification([], error="extraction failed")
        spec = specs[index]
        if spec == RULES and by_rules is not None:
            return Verification(
                [v.model_copy() for v in by_rules.verdicts],
                checklist=[c.model_copy() for c in by_rules.checklist],
                non_answer=by_rules.non_answer,
                uncertain=list(by_rules.uncertain),
            )
        return await verify(
            gateway,
            spec,
            scenario=scenario,
            answers=answers,
            claims=claims,
            checklist=facts,
            optional=optional,
            seed=derive_seed(config.seed, "verifier", index, key, group),
            ctx=ctx.model_copy(update={"role": "verifier", "judge_index": index}),
            max_attempts=config.judge_max_attempts,
        )

    verifications: list[Verification] = await asyncio.gather(*(one(i) for i in range(config.judge_count)))
    records = [
        JudgeVerdicts(
            judge_index=i,
            judge=specs[i],
            question_group=group,
            turn_ids=[a.turn_id for a in answers],
            status="unscored" if v.error else "ok",
            verdicts=v.verdicts,
            checklist=v.checklist,
            non_answer=v.non_answer,
            uncertain=v.uncertain,
            invalid_verdicts=v.invalid,
            reason=v.error,
        )
        for i, v in enumerate(verifications)
    ]
    dropped = sum(len(e.dropped) for e in extractions)
    return GroupJudging(group, turns, answered, claims, records, errors, dropped, unscorable, notes)


def _has_support_patterns(scenario: Scenario, fact_id: str) -> bool:
    fact = scenario.fact(fact_id)
    return fact is not None and fact.patterns is not None and bool(fact.patterns.support)


def group_results(
    scenario: Scenario,
    conversation: Conversation,
    claims: list[Claim],
    final_claims: list[FinalClaim],
    judged: list[GroupJudging],
    refused_turns: set[str],
    config: RunConfig,
) -> list[GroupResult]:
    answered = {a.turn.turn_id for a in conversation.answered}
    by_group = {g.group: g for g in judged}
    results = []
    for group, turns in scenario.groups().items():
        asked = [t for t in turns if t.turn_id in answered]
        turn_ids = {t.turn_id for t in asked}
        scored = any(t.scored for t in turns)
        facts, optional, rule = checklist_of(scenario, turns)
        required = [f for f in facts if f not in optional]
        pending = scenario.group_pending(turns)
        # A claim wrong only about a pending value is not held against the answer.
        group_final = [
            fc
            for fc in final_claims
            if fc.turn_id in turn_ids
            and not (fc.label == Label.CONTRADICTED and fc.evidence and set(fc.evidence) <= pending.keys())
        ]
        group_claims = [c for c in claims if c.turn_id in turn_ids]
        # A group is missing data when its first turn was never answered (the target failed, or a
        # collected conversation skipped it).
        missing = conversation.failed_at is not None or conversation.collected
        target_failed = missing and turns[0].turn_id not in answered
        judging = by_group.get(group)
        ok = [r for r in judging.records if r.status == "ok"] if judging else []
        panels = [r.checklist if r.status == "ok" else None for r in judging.records] if judging else []
        checklist = adjudicator.adjudicate_checklist(
            [(f, f in optional) for f in facts], panels or [None] * config.judge_count
        )
        coding = GroupCoding(
            checklist=checklist,
            final_claims=group_final,
            non_answer=adjudicator.majority_non_answer([r.non_answer for r in ok], config.judge_count),
            uncertain=adjudicator.majority_uncertain([r.uncertain for r in ok], config.judge_count),
            judged=bool(ok),
            not_judged_reason=_not_judged_reason(judging),
        )
        category, reason = scorer.group_category(
            coding, scenario, rule, scored=scored, target_failed=target_failed
        )
        if (
            pending
            and not facts
            and category not in (ShipCategory.INCOMPLETE_DATA, ShipCategory.NOT_APPLICABLE)
        ):
            category = ShipCategory.NOT_SCORED
            reason = "every checklist item rests on a value not published yet: " + "; ".join(pending.values())
        covered = {d.fact_id for d in checklist if d.code == "covered"}
        group_key = scenario.group_key(group)
        results.append(
            GroupResult(
                question_group=group,
                turn_ids=[t.turn_id for t in asked],
                scored=scored,
                scores=scorer.score(
                    group_final,
                    group_claims,
                    scenario,
                    required if scored and category != ShipCategory.NOT_SCORED else [],
                    refusal=bool(turn_ids & refused_turns),
                    covered_points=covered,
                ),
                ship_category=category,
                required_points=required,
                optional_points=sorted(set(facts) - set(required)),
                checklist=checklist,
                non_answer=coding.non_answer,
                reason=reason,
                deviations=[d.deviation_id for d in group_key.deviations] if group_key else [],
                pending=[Unscored(item=f, reason=r) for f, r in pending.items()] if scored else [],
            )
        )
    return results


def _not_judged_reason(judging: GroupJudging | None) -> str:
    if judging is None:
        return "no answer to judge"
    if judging.extraction_errors:
        return "extraction failed: " + "; ".join(judging.extraction_errors)
    reasons = sorted({r.reason or "invalid output" for r in judging.records})
    return "no verifier gave valid output: " + "; ".join(reasons)
