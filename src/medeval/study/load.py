"""Reading a study file: TOML (the standard library's tomllib), checked by the `StudyFile` model and
then against the world (files, scenario ids, models, role separation), one line per problem."""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from medeval.engine.config import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    RunConfig,
    StudyRef,
    SystemPrompt,
    TargetSettings,
    Variant,
)
from medeval.errors import ConfigError, UserError
from medeval.records.hashing import sha256_file
from medeval.records.user_files import STUDY_MAX_BYTES, read_user_text
from medeval.scenarios.load import expand_paths, load_scenario, season_dir
from medeval.study.model import PromptChoice, StudyFile


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "top level"


def read_study(path: Path) -> tuple[StudyFile | None, list[str]]:
    """The parsed study and its schema problems (unknown keys, wrong types), one line each."""
    try:
        data = tomllib.loads(read_user_text(path, limit=STUDY_MAX_BYTES, what="study (TOML)"))
    except UserError as error:
        return None, [str(error)]
    except tomllib.TOMLDecodeError as error:
        return None, [f"{path}: invalid TOML ({error}); fix the syntax"]
    except RecursionError:
        return None, [f"{path}: nested too deeply to be a study file; check it is the file you meant"]
    try:
        return StudyFile.model_validate(data), []
    except ValidationError as error:
        return None, [_schema_line(path, e) for e in error.errors()]


def _schema_line(path: Path, error: Any) -> str:
    where = _where(tuple(error["loc"]))
    if error["type"] == "extra_forbidden":
        return f"{path}: {where}: unknown key; see the example study (medeval validate --study) for the keys"
    return f"{path}: {where}: {error['msg']}"


def inside(base: Path, path: Path) -> bool:
    """Whether `path`, with every link and `..` resolved, is `base` or under it."""
    try:
        return path.resolve().is_relative_to(base.resolve())
    except (OSError, RuntimeError):  # a link loop
        return False


def _prompt(base: Path, choice: PromptChoice) -> SystemPrompt | None:
    if choice.system_prompt_text is not None:
        return SystemPrompt.of(choice.system_prompt_text)
    if choice.system_prompt is not None:
        if not inside(base, base / choice.system_prompt):
            raise ConfigError(
                f"system_prompt {choice.system_prompt} is outside the study file's folder {base}; "
                "copy the prompt there, or pass it with --system-prompt"
            )
        return SystemPrompt.read(base / choice.system_prompt)
    return None


def scenario_paths(study: StudyFile, base: Path) -> list[Path]:
    paths = [base / p for p in study.scenarios.paths]
    if study.scenarios.bundled:
        paths.append(season_dir(study.scenarios.season))
    return paths


def to_config(study: StudyFile, path: Path) -> RunConfig:
    """The run configuration the study declares; the same one the equivalent command line builds."""
    base = path.parent
    defaults = study.defaults
    providers: dict[str, int] = {}
    settings: dict[str, TargetSettings] = {}
    for target in study.targets:
        if target.concurrency is not None:
            provider = target.spec.partition(":")[0]
            providers[provider] = min(providers.get(provider, target.concurrency), target.concurrency)
        settings[target.spec] = TargetSettings(
            system_prompt=_prompt(base, target),
            max_output_tokens=target.max_output_tokens,
            temperature=target.temperature,
            reasoning_effort=target.reasoning_effort,
            web_search=target.web_search,
        )
    judging = study.judging
    return RunConfig(
        scenarios=scenario_paths(study, base),
        scenario_ids=study.scenarios.ids,
        scenario_tags=study.scenarios.tags,
        targets=[t.spec for t in study.targets],
        target_settings={spec: s for spec, s in settings.items() if s != TargetSettings()},
        system_prompt=_prompt(base, defaults),
        max_output_tokens=defaults.max_output_tokens or DEFAULT_MAX_OUTPUT_TOKENS,
        temperature=defaults.temperature if defaults.temperature is not None else 0.0,
        reasoning_effort=defaults.reasoning_effort,
        judges=judging.judges,
        judge_count=judging.count,
        extractor=judging.extractor,
        adjudicator=judging.adjudicator,
        questioner=judging.questioner,
        seed=study.seed,
        epochs=study.epochs,
        out=Path(study.out),
        max_cost=study.max_cost,
        max_concurrency=study.max_concurrency,
        provider_concurrency=providers,
        model_concurrency=study.model_concurrency,
        tpm=study.tpm,
        persona_replies=study.persona_replies,
        batch=study.batch,
        variants=[
            Variant(
                name=v.name,
                system_prompt=_prompt(base, v),
                persona_detail=v.persona_detail,
                paraphrase=v.paraphrase,
                tone=v.tone,
                reading_level=v.reading_level,
            )
            for v in study.variants
        ],
        study=StudyRef(path=str(path), sha256=sha256_file(path), name=study.name, tags=study.tags),
    )


def load_study(path: Path) -> RunConfig:
    """The study's run configuration, or a UserError listing every problem, one line each."""
    study, problems = study_problems(path)
    if problems or study is None:
        raise ConfigError(problems[0], lines=problems)
    return to_config(study, path)


def study_problems(path: Path) -> tuple[StudyFile | None, list[str]]:
    """Everything wrong with a study file: schema, files, scenario ids, models, role separation."""
    study, problems = read_study(path)
    if study is None:
        return None, problems
    problems.extend(_file_problems(study, path))
    problems.extend(_model_problems(study, path))
    if not problems:
        try:
            config = to_config(study, path)
            from medeval.engine.orchestrator import check_roles
            from medeval.engine.orchestrator.prepare import check_questioner, load_scenarios

            check_roles(config)
            # The checks `run` makes before its first call, so validate refuses what run refuses.
            scenarios = load_scenarios(config.scenarios, config.scenario_ids, config.scenario_tags)
            check_questioner(config, scenarios)
            _budget_problem(config, scenarios)
        except UserError as error:
            problems.extend(f"{path}: {line}" for line in error.lines)
    return study, problems


def _budget_problem(config: RunConfig, scenarios: list[Any]) -> None:
    """`max_cost` as run holds it: a model without a price, or (without batching, whose discounts
    only the providers' adapters know) an estimate over the budget."""
    if config.max_cost is None:
        return
    from medeval.calls.cost import load_prices
    from medeval.engine.budget import check_budget
    from medeval.engine.orchestrator.prepare import plan_trials

    plans = plan_trials(config, scenarios)
    budget = config if not config.batch.enabled else config.model_copy(update={"max_cost": float("inf")})
    check_budget(budget, plans, 0.0, load_prices())


def _file_problems(study: StudyFile, path: Path) -> list[str]:
    base = path.parent
    problems: list[str] = []
    if not study.scenarios.bundled and not study.scenarios.paths:
        problems.append(f"{path}: scenarios: give paths = [...] or bundled = true")
    for i, rel in enumerate(study.scenarios.paths):
        if not (base / rel).exists():
            problems.append(
                f"{path}: scenarios.paths[{i}]: {rel} does not exist (paths are relative to the study file)"
            )
    choices: list[tuple[str, PromptChoice]] = [("defaults", study.defaults)]
    choices += [(f"targets[{i}]", t) for i, t in enumerate(study.targets)]
    choices += [(f"variants[{i}]", v) for i, v in enumerate(study.variants)]
    for where, choice in choices:
        if choice.system_prompt is None:
            continue
        if not inside(base, base / choice.system_prompt):
            # A study file is often someone else's: it may not send /etc/passwd to a target.
            problems.append(
                f"{path}: {where}.system_prompt: {choice.system_prompt} is outside the study file's "
                f"folder {base}; copy the prompt there, or pass it with --system-prompt"
            )
        elif not (base / choice.system_prompt).is_file():
            problems.append(
                f"{path}: {where}.system_prompt: {choice.system_prompt} is not a file "
                "(relative to the study file)"
            )
    for label, names in (
        ("targets", [t.spec for t in study.targets]),
        ("variants", [v.name for v in study.variants]),
    ):
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            problems.append(f"{path}: {label}: {', '.join(dupes)} listed twice; list each once")
    if problems:
        return problems
    known: dict[str, list[str]] = {}
    for file in expand_paths(scenario_paths(study, base)):
        try:
            scenario = load_scenario(file)
        except UserError:
            continue  # medeval validate on the scenario files says what is wrong with them
        known[scenario.scenario_id] = scenario.tags
    for i, scenario_id in enumerate(study.scenarios.ids):
        if scenario_id not in known:
            problems.append(f"{path}: scenarios.ids[{i}]: no scenario {scenario_id!r} in the scenario paths")
    for i, tag in enumerate(study.scenarios.tags):
        if not any(tag in tags for tags in known.values()):
            problems.append(f"{path}: scenarios.tags[{i}]: no scenario carries the tag {tag!r}")
    return problems


def _model_problems(study: StudyFile, path: Path) -> list[str]:
    problems: list[str] = []
    judging = study.judging
    specs = [(f"targets[{i}].spec", t.spec) for i, t in enumerate(study.targets)]
    specs += [(f"judging.judges[{i}]", j) for i, j in enumerate(judging.judges)]
    specs += [
        (f"judging.{role}", spec)
        for role, spec in (
            ("extractor", judging.extractor),
            ("adjudicator", judging.adjudicator),
            ("questioner", judging.questioner),
        )
        if spec is not None
    ]
    specs += [(f"model_concurrency.{spec!r}", spec) for spec in study.model_concurrency]
    specs += [(f"tpm.{spec!r}", spec) for spec in study.tpm]
    for where, spec in specs:
        problem = model_problem(spec)
        if problem:
            problems.append(f"{path}: {where}: {problem}")
    return problems


def model_problem(spec: str) -> str | None:
    """Why a spec names no usable model (unknown provider or fake profile, retired model); None
    when it does. Needs no key: a missing key is the run's business."""
    from medeval.adapters.catalog import check_lifecycle
    from medeval.adapters.registry import parse_spec
    from medeval.fakes.provider import JUDGE_MODELS, available_profiles

    if spec == "rules":
        return None
    try:
        provider, model = parse_spec(spec)
        if provider == "fake":
            if model not in (*available_profiles(), *JUDGE_MODELS):
                known = ", ".join([*available_profiles(), *JUDGE_MODELS])
                return f"unknown fake model {model!r} in {spec!r}; available: {known}"
            return None
        if provider != "openai-compatible":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # deprecated still works; the run warns
                check_lifecycle(provider, model)
    except UserError as error:
        return str(error)
    return None
