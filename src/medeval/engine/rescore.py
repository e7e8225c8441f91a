"""`medeval rescore RUN_DIR --judge ...`: judge a finished run's stored transcripts again, with other
judges, into a new run whose manifest names the source run. No target is called: the answers are
the ones the source run recorded, so two judge panels can be compared on identical transcripts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from medeval.calls.batching import TrialSlot
from medeval.calls.gateway import Gateway
from medeval.engine.config import RunConfig
from medeval.engine.judging import judge_conversation
from medeval.engine.orchestrator import (
    LoadedScenario,
    RunResult,
    build_manifest,
    check_roles,
    create_store,
    load_scenarios,
    resume_config,
)
from medeval.engine.panel import checked_gateway, judge_each, open_writer, panel_specs
from medeval.engine.progress import QuietProgress, RunProgress
from medeval.engine.runwriter import RunStorageFailed, Writer
from medeval.engine.trial import OPENING_TURN, failed_trial, trial_context, with_variant
from medeval.engine.types import Answered, Conversation, TrialPlan, answered_text
from medeval.errors import ConfigError
from medeval.records.storage import RunStore, run_lock, utc_now, without_chain
from medeval.records.trials import latest_trials
from medeval.schemas import Scenario, TargetInfo, TrialRecord, Turn, Unscored


def stored_conversation(record: TrialRecord, scenario: Scenario) -> Conversation:
    """The conversation as the source run recorded it: each scripted turn's question and answer."""
    scripted = {t.turn_id: t for t in scenario.scripted_turns}
    conversation = Conversation(turns=list(record.conversation), collected=record.ingest is not None)
    questions: dict[str, str] = {}
    first: dict[str, str] = {}
    exchanges: dict[str, list[tuple[str, str]]] = {}
    for turn in record.conversation:
        if turn.role == "user":
            questions[turn.turn_id] = turn.text
        elif turn.error:
            conversation.failed_at, conversation.error = turn.turn_id, turn.error
        elif turn.reply_to in first:
            # The chatbot's answer after a persona reply belongs to the scripted question's group.
            exchanges[turn.reply_to].append((questions.get(turn.turn_id, ""), turn.text))
        elif turn.turn_id in scripted and turn.turn_id != OPENING_TURN:
            first[turn.turn_id] = turn.text
            exchanges[turn.turn_id] = []
    for turn_id, text in first.items():
        conversation.answered.append(
            Answered(
                scripted[turn_id],
                questions.get(turn_id, ""),
                answered_text(text, exchanges[turn_id]),
                exchanges[turn_id],
            )
        )
    if not record.conversation:
        # The source trial never reached the target: it stays without data.
        reason = "; ".join(u.reason for u in record.unscored) or "no conversation recorded"
        conversation.failed_at, conversation.error = "trial", f"source trial has no transcript: {reason}"
    return conversation


def rescore_config(source: RunConfig, judges: list[str], **overrides: Any) -> RunConfig:
    """The source run's configuration with the new judging panel."""
    update: dict[str, Any] = {"judges": judges, **{k: v for k, v in overrides.items() if v is not None}}
    update.setdefault("extractor", None)
    return source.model_copy(update=update)


async def execute_rescore(
    source_dir: Path, config: RunConfig, *, progress: RunProgress | None = None, new_keys: bool = False
) -> RunResult:
    """Judge the source run's transcripts again. With `new_keys`, `config.scenarios` are other keys
    of the same scenarios (a later season's): the answers are judged with them, and a trial whose
    scenario they lack is left out."""
    progress = progress or QuietProgress()
    # The source's lock only while it is read: a rescore of a run still being written would judge
    # half of it.
    with run_lock(source_dir, "rescore"):
        source = RunStore.open(source_dir)
        source_records = [
            TrialRecord.model_validate(without_chain(t)) for t in latest_trials(source.trials())
        ]
        source_head = source.results.head()
        source_manifest = source.read_manifest()
    scenarios = {s.scenario.scenario_id: s for s in load_scenarios(config.scenarios)}
    if new_keys:
        source_records = [r for r in source_records if r.scenario_id in scenarios]
        if not source_records:
            raise ConfigError(f"cannot rescore {source_dir}: the new keys share no scenario id with it")
    for record in source_records:
        loaded = scenarios.get(record.scenario_id)
        if loaded is None or (not new_keys and loaded.sha256 != record.scenario_sha256):
            raise ConfigError(
                f"cannot rescore: scenario {record.scenario_id} is missing or changed since run "
                f"{source.run_id}; restore the file the source run used"
            )
    check_roles(config)
    judges = panel_specs(config)
    gateway = checked_gateway(config, judges)
    store = create_store(config.out)
    with run_lock(store.directory):
        manifest = build_manifest(config, store, list(scenarios.values()), gateway, model_specs=judges)
        manifest["source_run"] = {
            "run_id": source.run_id,
            "path": str(source_dir.resolve()),
            "results": source_head,
        }
        if source_manifest.get("ingest"):
            # Conversations collected elsewhere keep their provenance in every rescore of them.
            manifest["ingest"] = source_manifest["ingest"]
        writer = open_writer(store, manifest, gateway, progress, resumable=True)
        records = await _judge_all(config, gateway, scenarios, source_records, writer)
        if writer.failure is not None:
            raise RunStorageFailed(
                store.directory, writer.failure, written=store.results.head()["records"], resumable=False
            )
    records.sort(key=lambda r: r.trial_id)
    return RunResult(store, records, "complete", failures=gateway.failures.lines())


async def _judge_all(
    config: RunConfig,
    gateway: Gateway,
    scenarios: dict[str, LoadedScenario],
    source_records: list[TrialRecord],
    writer: Writer,
) -> list[TrialRecord]:
    slots = asyncio.Semaphore(config.max_concurrency)
    records: list[TrialRecord] = []
    store = writer.store

    async def one(index: int, old: TrialRecord) -> None:
        loaded = scenarios[old.scenario_id]
        variant = next((v for v in config.variants if v.name == old.variant), None)
        plan = TrialPlan(loaded.scenario, loaded.sha256, old.target.spec, old.epoch, variant)
        trial_id = f"{store.run_id}-t{index:05d}"
        started = utc_now()
        # A TrialSlot: a rescore waiting on a judge batch (--batch) lets the others in.
        async with TrialSlot(slots):
            if writer.failure is not None:
                return
            try:
                judged = await judge_conversation(
                    plan,
                    config,
                    gateway,
                    trial_context(plan, store.run_id, trial_id),
                    stored_conversation(old, loaded.scenario),
                    old.target,
                    served_mismatch=old.flags.served_model_mismatch,
                    unscored=[
                        Unscored(item=u.item, reason=u.reason) for u in old.unscored if u.item == "paraphrase"
                    ],
                    started=started,
                )
                record = with_variant(judged, plan).model_copy(update={"ingest": old.ingest})
            except Exception as error:  # one trial's failure never stops the others
                record = failed_trial(
                    plan, config, store.run_id, trial_id, f"{type(error).__name__}: {error}", started
                )
            if writer.trial(record):
                records.append(record)

    trials = [one(i, r) for i, r in enumerate(source_records, start=1)]
    await judge_each(writer, gateway, trials, extra={"source_run": store.read_manifest()["source_run"]})
    return records


def rescore(
    source_dir: Path,
    judges: list[str],
    *,
    out: Path | None = None,
    progress: RunProgress | None = None,
    keys: list[Path] | None = None,
    **overrides: Any,
) -> RunResult:
    """Judge a run's transcripts again: with other judges, or (`keys`: scenario files or folders
    holding other keys of its scenarios) with a later key. With no judges, the source's panel."""
    source_config = resume_config(source_dir, action="rescore")
    if not judges:
        judges = list(source_config.judges)
        overrides.setdefault("extractor", source_config.extractor)
        overrides.setdefault("judge_count", source_config.judge_count)
        overrides.setdefault("adjudicator", source_config.adjudicator)
    if keys:
        overrides["scenarios"] = keys
    config = rescore_config(source_config, judges, out=out, **overrides)
    return asyncio.run(execute_rescore(source_dir, config, progress=progress, new_keys=bool(keys)))


async def judge_answer(
    scenario: Scenario,
    group: str,
    answer: str,
    config: RunConfig,
    gateway: Gateway,
    *,
    item_id: str = "answer",
    question: str | None = None,
    claim_order: int | None = None,
) -> TrialRecord:
    """Judge one answer to one question group with the configured panel and no target call (what
    `medeval calibrate` and the corpus benchmark use). The answer stands as the reply to the group's
    first turn; the group's result is the record's group `group`. `claim_order` shuffles the claims
    the verifiers see (the bias probes' order probe)."""
    turns = scenario.groups().get(group)
    if not turns:
        raise ConfigError(f"scenario {scenario.scenario_id} has no question group {group!r}")
    first = next((t for t in turns if t.condition is None), turns[0])
    asked = question or first.user_message
    plan = TrialPlan(scenario, "", "reference:answer", 0, claim_order=claim_order)
    conversation = Conversation(
        turns=[
            Turn(role="user", text=asked, turn_id=first.turn_id, question_group=group),
            Turn(role="assistant", text=answer, turn_id=first.turn_id, question_group=group),
        ],
        answered=[Answered(first, asked, answer)],
    )
    ctx = trial_context(plan, "calibration", item_id)
    return await judge_conversation(
        plan,
        config,
        gateway,
        ctx,
        conversation,
        TargetInfo(spec="reference:answer", provider="reference", requested_model="answer"),
        served_mismatch=False,
        unscored=[],
        started=utc_now(),
    )
