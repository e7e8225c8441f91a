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
import platform
import subprocess
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from medeval import __version__
from medeval.adapters.base import ModelAPI
from medeval.adapters.registry import parse_spec
from medeval.adapters.retry import Sleeper, real_sleep
from medeval.audit import verify_run
from medeval.batching import TrialSlot, unfinished_batches
from medeval.budget import batch_discounts, batch_routes, check_budget
from medeval.cache import ResponseCache, default_cache_dir
from medeval.config import DEFAULT_JUDGE, RunConfig, warn_correlated_verifiers
from medeval.cost import CostMeter, load_prices
from medeval.errors import ConfigError, ScenarioError
from medeval.gateway import CallSink, Gateway
from medeval.limits import Limits
from medeval.progress import QuietProgress, RunProgress
from medeval.prompts import prompt_hashes
from medeval.redact import redact_settings
from medeval.runwriter import RunStorageFailed, Writer, latest_trials, target_failed
from medeval.scenarios import expand_paths, scenario_problems, scenario_sha256
from medeval.schemas import Scenario, TrialRecord
from medeval.storage import RunStore, StorageError, check_writable, run_lock, utc_now
from medeval.trial import TrialPlan, run_trial

RECORDED_PACKAGES = ("pydantic", "openai", "anthropic", "google-genai", "xai-sdk", "httpx2", "grpcio")
NOT_A_MODEL = {DEFAULT_JUDGE}


@dataclass
class LoadedScenario:
    path: Path
    scenario: Scenario
    sha256: str


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


def load_scenarios(
    paths: list[Path], ids: list[str] | None = None, tags: list[str] | None = None
) -> list[LoadedScenario]:
    """Step 1: every problem in every file at once, one line each; then only the scenarios named
    by id or carrying one of the tags, when either is given."""
    files = expand_paths(paths)
    if not files:
        raise ScenarioError(f"no scenario files found in {', '.join(map(str, paths))}")
    loaded: list[LoadedScenario] = []
    problems: list[str] = []
    for path in files:
        scenario, found = scenario_problems(path)
        problems.extend(found)
        if scenario is not None and not found:
            loaded.append(LoadedScenario(path, scenario, scenario_sha256(path)))
    if problems:
        raise ScenarioError(problems[0], lines=problems)
    loaded = select_scenarios(loaded, ids, tags)
    seen: dict[str, Path] = {}
    for item in loaded:
        if item.scenario.scenario_id in seen:
            other = seen[item.scenario.scenario_id]
            raise ScenarioError(
                f"{item.path}: scenario_id {item.scenario.scenario_id!r} is also used by {other}"
            )
        seen[item.scenario.scenario_id] = item.path
    return loaded


def select_scenarios(
    loaded: list[LoadedScenario], ids: list[str] | None, tags: list[str] | None
) -> list[LoadedScenario]:
    if not ids and not tags:
        return loaded
    known = {item.scenario.scenario_id for item in loaded}
    missing = [i for i in ids or [] if i not in known]
    if missing:
        raise ScenarioError(
            f"scenario id {missing[0]!r} is in none of the scenario files; "
            f"known ids: {', '.join(sorted(known))}"
        )
    chosen = [
        item
        for item in loaded
        if item.scenario.scenario_id in (ids or []) or set(item.scenario.tags) & set(tags or [])
    ]
    if not chosen:
        raise ScenarioError(
            f"no scenario carries any of the tags {', '.join(tags or [])}; check --scenario-tag"
        )
    return chosen


def check_roles(config: RunConfig) -> None:
    """Step 2a: strict role separation. A judge model is never the target model. And each target
    once: the same model twice would double its trials under one name in every table."""
    seen: dict[tuple[str, str], str] = {}
    for target in config.targets:
        identity = _model_identity(target)
        if identity in seen:
            same = "" if seen[identity] == target else f" (the same model as {seen[identity]!r})"
            raise ConfigError(
                f"target {target!r} is given twice{same}; pass each target once "
                "(use --epochs N to repeat its trials)"
            )
        seen[identity] = target
    judge_roles = {
        **{f"judge {config.judge_spec(i)}": config.judge_spec(i) for i in range(config.judge_count)},
        "extractor": config.extractor_spec(),
    }
    if config.adjudicator:
        judge_roles["adjudicator"] = config.adjudicator
    for target in config.targets:
        target_id = _model_identity(target)
        for role, spec in judge_roles.items():
            if spec not in NOT_A_MODEL and _model_identity(spec) == target_id:
                raise ConfigError(
                    f"{role.split()[0]} {spec!r} is the same model as target {target!r}: a model may not "
                    "judge its own answers; choose a judge from another model (or --judge rules)"
                )
        if config.questioner and _model_identity(config.questioner) == target_id:
            raise ConfigError(
                f"questioner {config.questioner!r} is the same model as target {target!r}; "
                "choose another questioner"
            )
    warn_correlated_verifiers(config)


def _model_identity(spec: str) -> tuple[str, str]:
    """Aliases and dated snapshots fold to one id (claude-3.5-sonnet = claude-3-5-sonnet-20241022)."""
    from medeval.adapters.catalog import canonical_model_id

    provider, _ = parse_spec(spec)
    return provider, canonical_model_id(spec)[1]


def resolve_models(config: RunConfig, gateway: Gateway, scenarios: list[LoadedScenario]) -> None:
    """Step 2b: build every adapter now, so a missing key or unknown model stops the run before
    any call is made or any file is written."""
    specs = list(dict.fromkeys([*config.targets, config.extractor_spec(), *config.judges]))
    if config.adjudicator:
        specs.append(config.adjudicator)
    needs_questioner = [s.scenario.scenario_id for s in scenarios if s.scenario.variation_knobs.paraphrase]
    if needs_questioner and not config.questioner:
        raise ConfigError(
            f"scenario {needs_questioner[0]} enables paraphrase; pass --questioner provider:model "
            "(or turn variation_knobs.paraphrase off)"
        )
    rewording = [v.name for v in config.variants if v.rewords()]
    if rewording and not config.questioner:
        raise ConfigError(
            f"variant {rewording[0]} rewords the questions (paraphrase, tone or reading level); "
            "pass --questioner provider:model (or drop those settings from the variant)"
        )
    if config.questioner:
        specs.append(config.questioner)
    for spec in specs:
        if spec not in NOT_A_MODEL:
            gateway.adapter(spec)


def build_manifest(
    config: RunConfig,
    store: RunStore,
    scenarios: list[LoadedScenario],
    gateway: Gateway,
    *,
    model_specs: list[str] | None = None,
) -> dict[str, Any]:
    """`model_specs`: the models whose settings to record (default: targets, judges, extractor)."""
    wanted = (
        model_specs if model_specs is not None else [*config.targets, *config.judges, config.extractor_spec()]
    )
    specs = [s for s in set(wanted) if s not in NOT_A_MODEL]
    return {
        "run_id": store.run_id,
        "created_at": utc_now(),
        "medeval_version": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": _package_versions(),
        "git_commit": _git_commit(),
        "working_directory": str(Path.cwd()),
        "seed": config.seed,
        "config": config.model_dump(mode="json"),
        "prompts": prompt_hashes(),
        "scenarios": [
            {
                "path": str(s.path),
                "scenario_id": s.scenario.scenario_id,
                "version": s.scenario.version,
                "effective_date": s.scenario.effective_date.isoformat(),
                "rubric_version": s.scenario.rubric_version,
                "sha256": s.sha256,
            }
            for s in scenarios
        ],
        "models": {spec: redact_settings(gateway.adapter(spec).settings()) for spec in sorted(specs)},
        # What each target is asked with, per variant ("" = no variant); prompts by path and hash.
        "targets": {
            target: {
                (v.name if v else ""): config.settings_for(target, v).record()
                for v in config.variant_levels()
            }
            for target in config.targets
        },
        "variants": [v.name for v in config.variants],
        "study": config.study.model_dump(mode="json") if config.study else None,
        "batching": batch_routes(config, gateway),
    }


def plan_trials(config: RunConfig, scenarios: list[LoadedScenario]) -> list[TrialPlan]:
    return [
        TrialPlan(s.scenario, s.sha256, target, epoch, variant)
        for s in scenarios
        for target in config.targets
        for variant in config.variant_levels()
        for epoch in range(1, config.epochs + 1)
    ]


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
    resumed = store is not None
    done_keys: set[str] = set()
    spent = 0.0
    if store is not None:
        done_keys = {
            str(t.get("trial_key"))
            for t in latest_trials(store.trials())
            if not (retry_failed and target_failed(t))
        }
        spent = sum(float(c.get("cost_usd") or 0.0) for c in store.call_records())
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
    writer = Writer(store, progress)
    gateway.set_sink(writer.call)
    if resumed:
        # Batches a killed session left in flight: their requests wait for them, never sent twice.
        gateway.attach_batches(unfinished_batches(store.call_records()))

    trial_slots = asyncio.Semaphore(config.max_concurrency)
    records: list[TrialRecord] = []
    meter = gateway.meter
    stopped: str | None = None

    async def one(index: int, plan: TrialPlan) -> None:
        nonlocal stopped
        # A TrialSlot, not the bare semaphore: a trial waiting on a judge batch gives its slot up.
        async with TrialSlot(trial_slots):
            if writer.failure is not None:
                return
            if config.max_cost is not None and spent + meter.total >= config.max_cost:
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


def _package_versions() -> dict[str, str]:
    versions = {}
    for name in RECORDED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
            cwd=Path(__file__).parent,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None
