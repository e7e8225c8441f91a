"""A run, in nine steps:

1. load and validate every scenario (all problems reported at once);
2. resolve every model spec, refusing unknown models, missing keys and a judge equal to the target;
3. create the run directory and write the manifest (config, versions, prompt and scenario hashes);
4. plan the trials: scenario x target x epoch, each with a deterministic key and derived seeds;
5. the questioner asks the scripted turns (paraphrased only where a scenario allows it);
6. the target answers, every call recorded verbatim in calls.jsonl;
7. the extractor splits each answer into quoted claims; independent verifiers label them;
8. the adjudicator decides each claim and the scorer scores each question group;
9. each trial is appended whole to results.jsonl and a summary is returned.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medeval.adapters.base import ModelAPI
from medeval.adapters.registry import parse_spec
from medeval.adapters.retry import Sleeper, real_sleep
from medeval.adapters.workers import CallWorkers
from medeval.calls.batching import TrialSlot, unanswered_submissions, unfinished_batches
from medeval.calls.cache import ResponseCache, default_cache_dir
from medeval.calls.cost import CostMeter, load_prices
from medeval.calls.gateway import CallSink, Gateway
from medeval.calls.limits import Limits
from medeval.engine.budget import batch_discounts, check_budget
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator.prepare import (
    NOT_A_MODEL,
    RECORDED_PACKAGES,
    LoadedScenario,
    build_manifest,
    check_roles,
    load_scenarios,
    plan_trials,
    resolve_models,
    select_scenarios,
)
from medeval.engine.progress import QuietProgress, RunProgress
from medeval.engine.runwriter import RunStorageFailed, Tally, Writer
from medeval.engine.trial import run_trial
from medeval.engine.types import TrialPlan
from medeval.errors import ConfigError
from medeval.records.audit import verify_run
from medeval.records.storage import RunStore, StorageError, check_writable, run_lock
from medeval.records.trials import latest_trials, target_failed
from medeval.schemas import TrialRecord

__all__ = [
    "NOT_A_MODEL",
    "RECORDED_PACKAGES",
    "LoadedScenario",
    "RunInterrupted",
    "RunResult",
    "build_gateway",
    "build_manifest",
    "check_intact",
    "check_resumable",
    "check_roles",
    "create_store",
    "execute",
    "load_scenarios",
    "plan_trials",
    "resolve_models",
    "resume_config",
    "run",
    "select_scenarios",
]


@dataclass
class RunResult:
    store: RunStore
    #: The trials this session ran (a resumed run's earlier trials stay in results.jsonl).
    records: list[TrialRecord]
    #: "complete", "max_cost" (stopped launching at the budget; resumable) or "interrupted".
    outcome: str = "complete"
    #: One line per distinct call that failed for good in this session (see callfailures.py).
    failures: list[str] = field(default_factory=list)
    #: Trials of the whole run whose latest record could not be completed (set by the CLI).
    failed_trials: int = 0

    def __repr__(self) -> str:
        # Short on purpose: asyncio formats the run's result on the way out of asyncio.run, and the
        # default repr of thousands of trial records costs more than the run's own bookkeeping.
        return f"RunResult({self.store.run_id!r}, {len(self.records)} records, {self.outcome!r})"


def build_gateway(
    config: RunConfig,
    sink: CallSink | None = None,
    *,
    adapters: dict[str, ModelAPI] | None = None,
    sleep: Sleeper = real_sleep,
) -> Gateway:
    """The gateway a run uses: cache, limits and cost meter from the configuration."""
    return Gateway(
        sink,
        adapters=adapters,
        sleep=sleep,
        seed=config.seed,
        cache=ResponseCache(config.cache_dir or default_cache_dir(), config.cache),
        limits=Limits(
            config.max_concurrency,
            config.provider_concurrency,
            config.model_concurrency,
            config.tpm,
            sleep=sleep,
        ),
        meter=CostMeter(load_prices()),
        batch=config.batch,
        workers=CallWorkers(config.call_workers) if config.call_workers else None,
    )


def resume_config(run_dir: Path, *, action: str = "resume") -> RunConfig:
    """The configuration a run started with, from its manifest (written once, never rewritten)."""
    try:
        manifest = RunStore.open(run_dir).read_manifest()
    except FileNotFoundError as missing:
        raise ConfigError(
            f"cannot {action} {run_dir}: {missing.args[0]} not found; pass a run directory"
        ) from None
    except json.JSONDecodeError as broken:
        raise ConfigError(
            f"cannot {action} {run_dir}: its manifest.json or checkpoint.json is not JSON ({broken.msg}); "
            f"see medeval verify {run_dir}"
        ) from None
    if action == "resume" and manifest.get("ingest"):
        raise ConfigError(
            f"cannot resume {run_dir}: it was ingested from transcripts and has nothing to ask; "
            "run medeval ingest on the files again instead"
        )
    if action == "resume" and manifest.get("source_run"):
        raise ConfigError(
            f"cannot resume {run_dir}: it is a rescore of run {manifest['source_run']['run_id']}; "
            "run medeval rescore on the source run again instead"
        )
    config = RunConfig.model_validate(manifest["config"])
    workdir = Path(manifest.get("working_directory") or ".")
    # Relative scenario paths were relative to where the run started.
    scenarios = [p if p.is_absolute() else workdir / p for p in config.scenarios]
    return config.model_copy(update={"scenarios": scenarios, "out": run_dir.parent})


async def execute(
    config: RunConfig,
    gateway: Gateway | None = None,
    *,
    resume: Path | None = None,
    retry_failed: bool = False,
    progress: RunProgress | None = None,
    on_store: Callable[[Path], object] | None = None,
) -> RunResult:
    scenarios = load_scenarios(config.scenarios, config.scenario_ids, config.scenario_tags)
    check_roles(config)
    gateway = gateway or build_gateway(config)
    if gateway.meter is None:
        gateway.meter = CostMeter(load_prices())
    resolve_models(config, gateway, scenarios)
    cache = gateway.cache
    if cache is not None and any(cache.applies_to(parse_spec(t)[0]) for t in config.targets):
        cache.open_or_explain()
    with ExitStack() as held:
        store: RunStore | None = None
        if resume is not None:
            check_writable(resume, "resume")
            # Taken before the chains are read: a second writer would fork both of them.
            held.enter_context(run_lock(resume, "resume"))
            store = RunStore.open(resume)
            check_resumable(store.read_manifest(), scenarios)
            check_intact(resume)
        return await _execute_locked(
            config, gateway, scenarios, store, held, progress or QuietProgress(), on_store, retry_failed
        )


async def _execute_locked(
    config: RunConfig,
    gateway: Gateway,
    scenarios: list[LoadedScenario],
    store: RunStore | None,
    held: ExitStack,
    progress: RunProgress,
    on_store: Callable[[Path], object] | None,
    retry_failed: bool,
) -> RunResult:
    plans = plan_trials(config, scenarios)
    done_keys: set[str] = set()
    # A resumed run's calls file is read once: its spend, its batch lines and the summary's counts.
    earlier: Tally | None = None
    if store is not None:
        done_keys = {
            str(t.get("trial_key"))
            for t in latest_trials(store.trials())
            if not (retry_failed and target_failed(t))
        }
        earlier = Tally.from_files(store)
    spent = earlier.costs.total if earlier is not None else 0.0
    todo = [(i, p) for i, p in enumerate(plans, start=1) if p.key(config.seed) not in done_keys]
    assert gateway.meter is not None
    check_budget(config, [p for _, p in todo], spent, gateway.meter.prices, batch_discounts(config, gateway))
    if store is None:
        store = create_store(config.out)
        held.enter_context(run_lock(store.directory))
        try:
            store.write_manifest(build_manifest(config, store, scenarios, gateway))
            store.write_checkpoint()
        except StorageError as error:
            raise RunStorageFailed(store.directory, error, written=0) from None
    if on_store is not None:
        on_store(store.directory)
    writer = Writer(store, progress, earlier)
    gateway.set_sink(writer.call)
    if earlier is not None:
        # Batches a killed session left in flight: their requests wait for them, never sent twice.
        events = earlier.batch_lines
        gateway.attach_batches(unfinished_batches(events), unanswered_submissions(events))

    trial_slots = asyncio.Semaphore(open_trials(config.max_concurrency))
    records: list[TrialRecord] = []
    meter = gateway.meter
    stopped: str | None = None

    async def one(index: int, plan: TrialPlan) -> None:
        nonlocal stopped
        # A TrialSlot, not the bare semaphore: a trial waiting on a judge batch gives its slot up.
        async with TrialSlot(trial_slots):
            if writer.failure is not None:
                return
            if config.max_cost is not None and spent + meter.total + meter.pending >= config.max_cost:
                # In-flight trials finish; no new one starts; the run stays resumable.
                stopped = "max_cost"
                return
            record = await run_trial(plan, config, gateway, writer.run_id, f"{writer.run_id}-t{index:05d}")
            if writer.trial(record):
                records.append(record)

    progress.start(len(plans), len(plans) - len(todo))
    outcome = "interrupted"
    try:
        await asyncio.gather(*(one(i, plan) for i, plan in todo))
        outcome = "storage" if writer.failure else stopped or "complete"
    finally:
        progress.stop()
        await gateway.aclose()
        writer.finish(len(plans), outcome)
    if writer.failure is not None:
        raise RunStorageFailed(store.directory, writer.failure, written=store.results.head()["records"])
    records.sort(key=lambda r: r.trial_id)
    return RunResult(store, records, outcome, failures=gateway.failures.lines())


def open_trials(max_concurrency: int) -> int:
    """Trials open at once: twice the calls allowed in flight. A trial spends part of its time
    without a call out (its judging and records, its turn between two calls), and a call slot it
    leaves idle is taken by another open trial (docs/performance.md, "Open trials")."""
    return 2 * max_concurrency


def create_store(parent: Path) -> RunStore:
    try:
        parent.mkdir(parents=True, exist_ok=True)
        return RunStore.create(parent)
    except OSError as error:
        raise ConfigError(
            f"cannot create a run directory in {parent} ({error.strerror or error}); "
            "pass --out with a writable folder"
        ) from None


def check_intact(run_dir: Path) -> None:
    """Resume only a run that `medeval verify` passes: appending to a run with a deleted record or a
    changed prompt would hide the damage behind a fresh checkpoint, or mix two prompts in one run."""
    errors = [f for f in verify_run(run_dir) if f.severity == "error"]
    if errors:
        raise ConfigError(
            f"cannot resume {run_dir}: {errors[0]}"
            + (f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else "")
            + f"; see medeval verify {run_dir}, or start a new run"
        )


def check_resumable(manifest: dict[str, Any], scenarios: list[LoadedScenario]) -> None:
    """A resumed run must ask the same scenarios it started with, byte for byte."""
    recorded = {s["scenario_id"]: s["sha256"] for s in manifest.get("scenarios", [])}
    for item in scenarios:
        if recorded.get(item.scenario.scenario_id) != item.sha256:
            raise ConfigError(
                f"cannot resume: scenario {item.scenario.scenario_id} ({item.path}) changed since the run "
                "started; restore it, or start a new run"
            )


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run: what was written stays, and `run_dir` (if one was made) can be resumed."""

    def __init__(self, run_dir: Path | None) -> None:
        super().__init__(str(run_dir))
        self.run_dir = run_dir


def run(
    config: RunConfig,
    gateway: Gateway | None = None,
    *,
    resume: Path | None = None,
    retry_failed: bool = False,
    progress: RunProgress | None = None,
) -> RunResult:
    directories: list[Path] = []
    try:
        return asyncio.run(
            execute(
                config,
                gateway,
                resume=resume,
                retry_failed=retry_failed,
                progress=progress,
                on_store=directories.append,
            )
        )
    except KeyboardInterrupt as interrupt:
        raise RunInterrupted(directories[0] if directories else None) from interrupt
