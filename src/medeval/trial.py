"""One trial: one scenario asked of one target, judged, adjudicated and scored.

Steps 4 to 8 of a run: the questioner asks, the target answers, the extractor splits each answer
into claims, independent verifiers label them, and the pure adjudicator and scorer decide.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from medeval.adapters.base import ChatRequest, ChatResponse, Message, Sampling, served_differs
from medeval.adapters.registry import parse_spec
from medeval.agents import adjudicator, questioner, rules, scorer
from medeval.agents.extractor import extract
from medeval.agents.tiebreak import break_ties
from medeval.agents.verifier import Verification, verify
from medeval.config import RunConfig
from medeval.gateway import CallContext, CallFailed, Gateway
from medeval.hashing import derive_seed, short_hash
from medeval.schemas import (
    Claim,
    FinalClaim,
    GroupResult,
    JudgeVerdicts,
    Scenario,
    Scores,
    ScriptedTurn,
    ShipCategory,
    TargetInfo,
    TrialFlags,
    TrialRecord,
    Turn,
    Unscored,
    Verdict,
)
from medeval.storage import utc_now

OPENING_TURN = "opening"


@dataclass(frozen=True)
class TrialPlan:
    scenario: Scenario
    scenario_sha256: str
    target: str
    epoch: int

    def key(self, seed: int) -> str:
        """Deterministic identity of a trial: what --resume matches on."""
        return short_hash(
            [self.scenario.scenario_id, self.scenario_sha256, self.target, self.epoch, seed], 24
        )


@dataclass
class Answered:
    turn: ScriptedTurn
    question: str
    response: str


@dataclass
class Conversation:
    turns: list[Turn] = field(default_factory=list)
    answered: list[Answered] = field(default_factory=list)
    responses: list[ChatResponse] = field(default_factory=list)
    failed_at: str | None = None
    error: str | None = None


def trial_context(plan: TrialPlan, run_id: str, trial_id: str) -> CallContext:
    return CallContext(
        run_id=run_id,
        trial_id=trial_id,
        role="target",
        scenario_id=plan.scenario.scenario_id,
        target=plan.target,
        epoch=plan.epoch,
    )


async def run_trial(
    plan: TrialPlan, config: RunConfig, gateway: Gateway, run_id: str, trial_id: str
) -> TrialRecord:
    """One whole trial. An unexpected exception becomes an unscored trial with its reason: one
    trial's failure never stops the others."""
    started = utc_now()
    try:
        return await _run_trial(plan, config, gateway, run_id, trial_id, started)
    except Exception as error:  # recorded, never swallowed: the trial says what went wrong
        return failed_trial(plan, config, run_id, trial_id, f"{type(error).__name__}: {error}", started)


async def _run_trial(
    plan: TrialPlan, config: RunConfig, gateway: Gateway, run_id: str, trial_id: str, started: str
) -> TrialRecord:
    scenario = plan.scenario
    key = plan.key(config.seed)
    base = trial_context(plan, run_id, trial_id)
    unscored: list[Unscored] = []

    texts = {t.turn_id: t.text for t in scenario.scripted_turns}
    if scenario.variation_knobs.paraphrase and config.questioner:
        reworded, problem = await questioner.paraphrase(
            gateway,
            config.questioner,
            scenario,
            derive_seed(config.seed, "questioner", key),
            base.model_copy(update={"role": "questioner"}),
        )
        texts.update(reworded)
        if problem:
            unscored.append(Unscored(item="paraphrase", reason=f"{problem}; asked the script verbatim"))

    conversation = await _converse(plan, config, gateway, base, texts, key)
    return await judge_conversation(
        plan,
        config,
        gateway,
        base,
        conversation,
        target_info(plan, conversation.responses),
        served_mismatch=any(
            served_differs(r.requested_model, r.served_model) for r in conversation.responses
        ),
        unscored=unscored,
        started=started,
    )


def target_info(plan: TrialPlan, responses: list[ChatResponse]) -> TargetInfo:
    provider, model = parse_spec(plan.target)
    first = responses[0] if responses else None
    return TargetInfo(
        spec=plan.target,
        provider=provider,
        requested_model=model,
        served_models=sorted({r.served_model for r in responses if r.served_model}),
        fingerprints=sorted({r.fingerprint for r in responses if r.fingerprint}),
        sampling_sent=first.sampling_sent if first else {},
        sampling_dropped=first.sampling_dropped if first else {},
    )


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
    scored_answers = [a for a in conversation.answered if a.turn.scored]
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
                        item=f"turn {record.turn_id}: verifier {record.judge_index} ({record.judge})",
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


async def _converse(
    plan: TrialPlan,
    config: RunConfig,
    gateway: Gateway,
    base: CallContext,
    texts: dict[str, str],
    key: str,
) -> Conversation:
    """Ask the opening statement and every scripted turn in order, each with the whole history."""
    scenario = plan.scenario
    convo = Conversation()
    history: list[Message] = []
    answers: dict[str, str] = {}
    steps: list[tuple[str, str, ScriptedTurn | None]] = []
    if scenario.opening_statement:
        steps.append((OPENING_TURN, scenario.opening_statement, None))
    steps.extend((t.turn_id, texts[t.turn_id], t) for t in scenario.scripted_turns)
    seed = derive_seed(config.seed, "target", key)
    for turn_id, text, turn in steps:
        if turn is not None and not questioner.should_ask(turn, answers):
            continue
        group = turn.question_group if turn else None
        convo.turns.append(Turn(role="user", text=text, turn_id=turn_id, question_group=group))
        history.append(Message(role="user", content=text))
        request = ChatRequest(
            system="",
            messages=list(history),
            sampling=Sampling(temperature=config.temperature, max_output_tokens=config.max_output_tokens),
            seed=seed,
            metadata={"role": "target", "scenario_id": scenario.scenario_id, "turn_id": turn_id},
        )
        try:
            response = await gateway.complete(
                plan.target, request, base.model_copy(update={"turn_id": turn_id})
            )
        except CallFailed as failure:
            convo.failed_at, convo.error = turn_id, str(failure)
            convo.turns.append(
                Turn(role="assistant", text="", turn_id=turn_id, question_group=group, error=str(failure))
            )
            break
        convo.responses.append(response)
        convo.turns.append(Turn(role="assistant", text=response.text, turn_id=turn_id, question_group=group))
        history.append(Message(role="assistant", content=response.text))
        answers[turn_id] = response.text
        if turn is not None:
            convo.answered.append(Answered(turn, text, response.text))
    return convo


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
    verifications: list[Verification] = await asyncio.gather(
        *(
            verify(
                gateway,
                config.judge_spec(i),
                scenario=plan.scenario,
                question=answer.question,
                response=answer.response,
                claims=extraction.claims,
                seed=derive_seed(config.seed, "verifier", i, key, turn_id),
                ctx=ctx.model_copy(update={"role": "verifier", "judge_index": i}),
                max_attempts=config.judge_max_attempts,
            )
            for i in range(config.judge_count)
        )
    )
    records = [
        JudgeVerdicts(
            judge_index=i,
            judge=config.judge_spec(i),
            turn_id=turn_id,
            status="unscored" if v.error else "ok",
            verdicts=v.verdicts,
            invalid_verdicts=v.invalid,
            reason=v.error,
        )
        for i, v in enumerate(verifications)
    ]
    return extraction.claims, records, extraction.error, len(extraction.dropped)


def failed_trial(
    plan: TrialPlan, config: RunConfig, run_id: str, trial_id: str, reason: str, started: str
) -> TrialRecord:
    """An unscored trial that records why it could not run to the end."""
    return TrialRecord(
        trial_id=trial_id,
        trial_key=plan.key(config.seed),
        run_id=run_id,
        scenario_id=plan.scenario.scenario_id,
        scenario_version=plan.scenario.version,
        scenario_sha256=plan.scenario_sha256,
        rubric_version=plan.scenario.rubric_version,
        epoch=plan.epoch,
        seed=config.seed,
        target=target_info(plan, []),
        judges=[config.judge_spec(i) for i in range(config.judge_count)],
        extractor=config.extractor_spec(),
        conversation=[],
        claims=[],
        verdicts=[],
        final_claims=[],
        final_scores=Scores(),
        groups=[],
        disagreement_rate=0.0,
        flags=TrialFlags(),
        unscored=[Unscored(item="trial", reason=reason)],
        status="unscored",
        started_at=started,
        finished_at=utc_now(),
    )


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
