"""One trial: one scenario asked of one target, judged, adjudicated and scored.

Steps 4 to 6 of a run: the questioner asks and the target answers; judging.py does the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from medeval.adapters.base import ChatRequest, ChatResponse, Message, Sampling, served_differs
from medeval.adapters.registry import parse_spec
from medeval.agents import questioner
from medeval.config import RunConfig
from medeval.gateway import CallContext, CallFailed, Gateway
from medeval.hashing import derive_seed, short_hash
from medeval.judging import judge_conversation
from medeval.schemas import (
    Scenario,
    Scores,
    ScriptedTurn,
    TargetInfo,
    TrialFlags,
    TrialRecord,
    Turn,
    Unscored,
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

    texts = {t.turn_id: t.user_message for t in scenario.scripted_turns}
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
