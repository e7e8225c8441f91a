"""One trial: one scenario asked of one target, judged, adjudicated and scored.

Steps 4 to 6 of a run: the questioner asks and the target answers; judging.py does the rest.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

from medeval.adapters.base import ChatRequest, ChatResponse, Message, Sampling, served_differs
from medeval.agents import questioner
from medeval.calls.gateway import CallContext, CallFailed, Gateway
from medeval.engine.config import EffectiveSettings, PersonaDetail, RunConfig
from medeval.engine.judging import judge_conversation
from medeval.engine.types import Answered, Conversation, TrialPlan, answered_text
from medeval.records.hashing import derive_seed
from medeval.records.storage import utc_now
from medeval.schemas import (
    Scores,
    ScriptedTurn,
    TargetInfo,
    TrialFlags,
    TrialRecord,
    Turn,
    Unscored,
)

OPENING_TURN = "opening"
#: Persona details told up front at each level of `persona_detail`, in this order.
_LOCATION_FIELDS = ("city", "county", "state", "zip")
_FULL_FIELDS = ("income", "coverage", "medications", "primary_care_doctor", "plan_heard_about")


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
    variant = plan.variant
    rewords = scenario.variation_knobs.paraphrase or (variant is not None and variant.rewords())
    if rewords and config.questioner:
        reworded, problem = await questioner.paraphrase(
            gateway,
            config.questioner,
            scenario,
            derive_seed(config.seed, "questioner", key),
            base.model_copy(update={"role": "questioner"}),
            tone=variant.tone if variant else None,
            reading_level=variant.reading_level if variant else None,
        )
        texts.update(reworded)
        if problem:
            unscored.append(Unscored(item="paraphrase", reason=f"{problem}; asked the script verbatim"))

    conversation = await _converse(plan, config, gateway, base, texts, key, unscored)
    record = await judge_conversation(
        plan,
        config,
        gateway,
        base,
        conversation,
        target_info(plan, conversation.responses, config),
        served_mismatch=any(
            served_differs(r.requested_model, r.served_model) for r in conversation.responses
        ),
        unscored=unscored,
        started=started,
    )
    return with_variant(record, plan)


def with_variant(record: TrialRecord, plan: TrialPlan) -> TrialRecord:
    return record.model_copy(update={"variant": plan.variant.name if plan.variant else None})


def target_info(plan: TrialPlan, responses: list[ChatResponse], config: RunConfig) -> TargetInfo:
    # Not parse_spec: the run's targets were checked when it started, and an ingested run's target
    # (`ingested:<product>`) names no provider to call.
    provider, _, model = plan.target.partition(":")
    first = responses[0] if responses else None
    return TargetInfo(
        spec=plan.target,
        provider=provider,
        requested_model=model,
        served_models=sorted({r.served_model for r in responses if r.served_model}),
        fingerprints=sorted({r.fingerprint for r in responses if r.fingerprint}),
        sampling_sent=first.sampling_sent if first else {},
        sampling_dropped=first.sampling_dropped if first else {},
        settings=config.settings_for(plan.target, plan.variant).record(),
    )


def persona_disclosure(persona: dict[str, Any], level: PersonaDetail) -> str | None:
    """What the beneficiary tells up front beyond the script: nothing ("script"), where they live
    ("location"), or also income, coverage, medications, doctor and plan ("full")."""
    if level == "script":
        return None
    fields = _LOCATION_FIELDS + (_FULL_FIELDS if level == "full" else ())
    said = []
    for name in fields:
        value = persona.get(name)
        if value in (None, "", []):
            continue
        shown = "; ".join(map(str, value)) if isinstance(value, list) else str(value)
        said.append(f"{name.replace('_', ' ')}: {shown}")
    return f"Some details about me: {'; '.join(said)}." if said else None


@dataclass
class _Talk:
    """One trial's conversation in progress: what every call to the target shares."""

    plan: TrialPlan
    config: RunConfig
    gateway: Gateway
    base: CallContext
    settings: EffectiveSettings
    seed: int
    convo: Conversation = field(default_factory=Conversation)
    history: list[Message] = field(default_factory=list)

    async def say(
        self, turn_id: str, text: str, group: str | None, reply_to: str | None = None
    ) -> ChatResponse | None:
        """Send one user message with the whole history; None when the target failed (recorded)."""
        self.convo.turns.append(
            Turn(role="user", text=text, turn_id=turn_id, question_group=group, reply_to=reply_to)
        )
        self.history.append(Message(role="user", content=text))
        metadata = {"role": "target", "scenario_id": self.plan.scenario.scenario_id, "turn_id": turn_id}
        if reply_to is not None:
            metadata["reply_to"] = reply_to
        request = ChatRequest(
            system=self.settings.system_prompt,
            messages=list(self.history),
            sampling=Sampling(
                temperature=self.settings.temperature,
                max_output_tokens=self.settings.max_output_tokens,
                reasoning_effort=self.settings.reasoning_effort,
            ),
            seed=self.seed,
            metadata=metadata,
            web_search=self.settings.web_search,
        )
        try:
            response = await self.gateway.complete(
                self.plan.target, request, self.base.model_copy(update={"turn_id": turn_id})
            )
        except CallFailed as failure:
            self.convo.failed_at, self.convo.error = turn_id, str(failure)
            self.convo.turns.append(
                Turn(
                    role="assistant",
                    text="",
                    turn_id=turn_id,
                    question_group=group,
                    error=str(failure),
                    reply_to=reply_to,
                )
            )
            return None
        self.convo.responses.append(response)
        self.convo.turns.append(
            Turn(
                role="assistant",
                text=response.text,
                turn_id=turn_id,
                question_group=group,
                reply_to=reply_to,
                citations=response.citations,
            )
        )
        self.history.append(Message(role="assistant", content=response.text))
        return response


async def _converse(
    plan: TrialPlan,
    config: RunConfig,
    gateway: Gateway,
    base: CallContext,
    texts: dict[str, str],
    key: str,
    unscored: list[Unscored],
) -> Conversation:
    """Ask the opening statement and every scripted turn in order, each with the whole history;
    after a scripted turn, answer the chatbot's questions from the persona (at most N times)."""
    scenario = plan.scenario
    settings = config.settings_for(plan.target, plan.variant)
    talk = _Talk(plan, config, gateway, base, settings, derive_seed(config.seed, "target", key))
    answers: dict[str, str] = {}
    steps: list[tuple[str, str, ScriptedTurn | None]] = []
    disclosure = persona_disclosure(
        scenario.persona, plan.variant.persona_detail if plan.variant else "script"
    )
    opening = " ".join(t for t in (scenario.opening_statement, disclosure) if t)
    if opening:
        steps.append((OPENING_TURN, opening, None))
    steps.extend((t.turn_id, texts[t.turn_id], t) for t in scenario.scripted_turns)
    for turn_id, text, turn in steps:
        if turn is not None and not questioner.should_ask(turn, answers):
            continue
        group = turn.question_group if turn else None
        response = await talk.say(turn_id, text, group)
        if response is None:
            break
        if turn is None:
            # The most natural place to ask "what is your ZIP code?" is in reply to the opening: the
            # persona answers there too, before the first scripted question.
            await _answer_back(talk, turn_id, None, text, response.text, key, unscored)
            answers[turn_id] = response.text
            continue
        exchanges = await _answer_back(talk, turn_id, group, text, response.text, key, unscored)
        answers[turn_id] = answered_text(response.text, exchanges)
        talk.convo.answered.append(Answered(turn, text, answers[turn_id], exchanges))
        if talk.convo.failed_at is not None:
            break
    return talk.convo


async def _answer_back(
    talk: _Talk,
    turn_id: str,
    group: str | None,
    question: str,
    said: str,
    key: str,
    unscored: list[Unscored],
) -> list[tuple[str, str]]:
    """The persona's replies while the chatbot asks the beneficiary something (scripted replies
    first, then the questioner model, then the scenario's default), each a recorded turn."""
    scenario, config = talk.plan.scenario, talk.config
    scripted = scenario.persona_replies
    if scripted is None and not config.questioner:
        if questioner.chatbot_questions(said) and config.persona_replies:
            # One line per scenario and turn (the warnings registry drops repeats), not per trial.
            warnings.warn(
                f"scenario {scenario.scenario_id}, turn {turn_id}: the chatbot asked the beneficiary "
                "a question nobody answered (the scenario has no persona_replies and the run no "
                "--questioner); add persona_replies to the scenario or pass --questioner MODEL",
                stacklevel=2,
            )
        return []
    limit = min(config.persona_replies, scripted.max_exchanges if scripted else config.persona_replies)
    exchanges: list[tuple[str, str]] = []
    for n in range(1, limit + 1):
        asked = questioner.chatbot_questions(said)
        if not asked:
            break
        reply = questioner.scripted_reply(scripted, asked) if scripted else None
        if reply is None and config.questioner:
            reply, problem = await questioner.persona_reply(
                talk.gateway,
                config.questioner,
                scenario,
                question,
                said,
                derive_seed(config.seed, "questioner", key, turn_id, n),
                talk.base.model_copy(update={"role": "questioner", "turn_id": turn_id}),
            )
            if problem:
                unscored.append(Unscored(item=f"turn {turn_id}: persona reply", reason=problem))
        if reply is None and scripted is not None and turn_id != OPENING_TURN:
            # Not after the opening: "What would you like to know?" is answered by the first
            # scripted question, not by the scenario's "I don't know".
            reply = scripted.default
        if reply is None:
            break
        response = await talk.say(f"{turn_id}.r{n}", reply, group, reply_to=turn_id)
        if response is None:
            break
        exchanges.append((reply, response.text))
        said = response.text
    return exchanges


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
        variant=plan.variant.name if plan.variant else None,
        target=target_info(plan, [], config),
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
