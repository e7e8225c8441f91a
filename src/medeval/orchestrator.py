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
import platform
import subprocess
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from medeval import __version__
from medeval.adapters.registry import parse_spec
from medeval.config import DEFAULT_JUDGE, RunConfig
from medeval.errors import ConfigError, ScenarioError
from medeval.gateway import Gateway
from medeval.prompts import prompt_hashes
from medeval.scenarios import expand_paths, scenario_problems, scenario_sha256
from medeval.schemas import Scenario, TrialRecord
from medeval.storage import RunStore, utc_now
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
    records: list[TrialRecord]


def load_scenarios(paths: list[Path]) -> list[LoadedScenario]:
    """Step 1: every problem in every file at once, one line each."""
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
    seen: dict[str, Path] = {}
    for item in loaded:
        if item.scenario.scenario_id in seen:
            other = seen[item.scenario.scenario_id]
            raise ScenarioError(
                f"{item.path}: scenario_id {item.scenario.scenario_id!r} is also used by {other}"
            )
        seen[item.scenario.scenario_id] = item.path
    return loaded


def check_roles(config: RunConfig) -> None:
    """Step 2a: strict role separation. A judge model is never the target model."""
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


def _model_identity(spec: str) -> tuple[str, str]:
    provider, model = parse_spec(spec)
    return provider, model.lower()


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
    if config.questioner:
        specs.append(config.questioner)
    for spec in specs:
        if spec not in NOT_A_MODEL:
            gateway.adapter(spec)


def build_manifest(
    config: RunConfig, store: RunStore, scenarios: list[LoadedScenario], gateway: Gateway
) -> dict[str, Any]:
    specs = [s for s in {*config.targets, *config.judges, config.extractor_spec()} if s not in NOT_A_MODEL]
    return {
        "run_id": store.run_id,
        "created_at": utc_now(),
        "medeval_version": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": _package_versions(),
        "git_commit": _git_commit(),
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
        "models": {spec: gateway.adapter(spec).settings() for spec in sorted(specs)},
    }


def plan_trials(config: RunConfig, scenarios: list[LoadedScenario]) -> list[TrialPlan]:
    return [
        TrialPlan(s.scenario, s.sha256, target, epoch)
        for s in scenarios
        for target in config.targets
        for epoch in range(1, config.epochs + 1)
    ]


async def execute(config: RunConfig, gateway: Gateway | None = None) -> RunResult:
    scenarios = load_scenarios(config.scenarios)
    check_roles(config)
    store: RunStore | None = None

    def sink(record: dict[str, Any]) -> None:
        assert store is not None
        store.append_call(record)

    gateway = gateway or Gateway(sink, seed=config.seed)
    gateway.set_sink(sink)
    resolve_models(config, gateway, scenarios)
    config.out.mkdir(parents=True, exist_ok=True)
    store = RunStore.create(config.out)
    store.write_manifest(build_manifest(config, store, scenarios, gateway))

    plans = plan_trials(config, scenarios)
    limit = asyncio.Semaphore(config.max_concurrency)
    records: list[TrialRecord] = []

    async def one(index: int, plan: TrialPlan) -> None:
        async with limit:
            assert store is not None
            record = await run_trial(plan, config, gateway, store.run_id, f"{store.run_id}-t{index:05d}")
            store.append_trial(record.model_dump(mode="json"))
            records.append(record)

    try:
        await asyncio.gather(*(one(i, plan) for i, plan in enumerate(plans, start=1)))
    finally:
        await gateway.aclose()
    records.sort(key=lambda r: r.trial_id)
    return RunResult(store, records)


def run(config: RunConfig, gateway: Gateway | None = None) -> RunResult:
    return asyncio.run(execute(config, gateway))


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
