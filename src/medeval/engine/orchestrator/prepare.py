"""Steps 1 to 4 of a run, before any call: load and validate the scenarios, check role separation
and resolve every model, build the manifest, and plan the trials."""

from __future__ import annotations

import platform
import subprocess
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from medeval import __version__
from medeval.adapters.registry import parse_spec
from medeval.calls.gateway import Gateway
from medeval.engine.budget import batch_routes
from medeval.engine.config import DEFAULT_JUDGE, RunConfig, warn_correlated_verifiers
from medeval.engine.types import TrialPlan
from medeval.errors import ConfigError, ScenarioError
from medeval.prompts import prompt_hashes
from medeval.records.redact import redact_settings
from medeval.records.storage import RunStore, utc_now
from medeval.scenarios.load import expand_paths, scenario_problems, scenario_sha256
from medeval.schemas import INGESTED, Scenario

RECORDED_PACKAGES = ("pydantic", "openai", "anthropic", "google-genai", "xai-sdk", "httpx2", "grpcio")
NOT_A_MODEL = {DEFAULT_JUDGE}


@dataclass
class LoadedScenario:
    path: Path
    scenario: Scenario
    sha256: str


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

    if spec.startswith(f"{INGESTED}:"):
        return INGESTED, spec.partition(":")[2]  # conversations collected elsewhere: no model here
    provider, _ = parse_spec(spec)
    return provider, canonical_model_id(spec)[1]


def resolve_models(config: RunConfig, gateway: Gateway, scenarios: list[LoadedScenario]) -> None:
    """Step 2b: build every adapter now, so a missing key or unknown model stops the run before
    any call is made or any file is written."""
    specs = list(dict.fromkeys([*config.targets, config.extractor_spec(), *config.judges]))
    if config.adjudicator:
        specs.append(config.adjudicator)
    check_questioner(config, scenarios)
    if config.questioner:
        specs.append(config.questioner)
    for spec in specs:
        if spec not in NOT_A_MODEL:
            gateway.adapter(spec)
    for target in config.targets:
        if config.settings_for(target).web_search and not gateway.adapter(target).web_search:
            raise ConfigError(
                f"--web-search {target}: this provider has no search tool medeval can send "
                "(openai, anthropic, google, xai and fake do); drop --web-search for it"
            )


def check_questioner(config: RunConfig, scenarios: list[LoadedScenario]) -> None:
    """Rewording (a scenario's paraphrase, a variant's tone or reading level) needs a questioner."""
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
