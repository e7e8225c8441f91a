"""What the `run`, `verify` and `rescore` commands do, kept out of cli.py so that file stays a thin
list of commands."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console

from medeval.adapters.registry import parse_spec, providers, suggestion
from medeval.calls.cache import CacheMode
from medeval.calls.cost import prompt_cache_text
from medeval.cli.notice import RESEARCH_NOTICE as RESEARCH_NOTICE
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import RunInterrupted, RunResult, resume_config
from medeval.errors import EXIT_COMPLETE, EXIT_FAILED_TRIALS, EXIT_MAX_COST, UserError
from medeval.records.audit import verify_run
from medeval.records.storage import SUMMARY, without_chain
from medeval.records.trials import latest_trials, target_failed
from medeval.reporting.render.terminal import error_line
from medeval.schemas import ShipCategory, TrialRecord


def cache_mode(*, no_cache: bool, refresh: bool) -> CacheMode:
    if no_cache and refresh:
        raise UserError("--no-cache and --refresh contradict each other; pass one of them")
    return CacheMode.OFF if no_cache else CacheMode.REFRESH if refresh else CacheMode.USE


def resumed_config(run_dir: Path, *, max_cost: float | None, cache: CacheMode | None) -> RunConfig:
    """The run's own configuration; only the budget and the cache mode may change on resume."""
    config = resume_config(run_dir)
    update: dict[str, object] = {}
    if max_cost is not None:
        update["max_cost"] = max_cost
    if cache is not None:
        update["cache"] = cache
    return config.model_copy(update=update)


def with_batch(
    config: RunConfig,
    batch: bool,
    *,
    resumed: bool,
    max_items: int | None,
    idle: float | None,
    poll: float | None,
) -> RunConfig:
    """--batch and its knobs over the configuration (a study file's [batch] table, or the defaults).
    A resumed run keeps the way it started: its batches in flight are re-attached either way."""
    knobs = {
        k: v
        for k, v in {"max_items": max_items, "idle_seconds": idle, "poll_seconds": poll}.items()
        if v is not None
    }
    if resumed:
        if batch or knobs:
            raise UserError("--resume keeps the run's own --batch setting; drop --batch and its options")
        return config
    if knobs and not (batch or config.batch.enabled):
        option = {"max_items": "--batch-size", "idle_seconds": "--batch-idle", "poll_seconds": "--batch-poll"}
        raise UserError(f"{option[next(iter(knobs))]} only applies with --batch; add --batch or drop it")
    update: dict[str, object] = dict(knobs)
    if batch:
        update["enabled"] = True
    return config.model_copy(update={"batch": config.batch.model_copy(update=update)}) if update else config


def provider_limits(values: list[str] | None) -> dict[str, int]:
    """`--provider-concurrency openai=16` (repeatable) -> {"openai": 16}."""
    limits: dict[str, int] = {}
    for value in values or []:
        name, sep, number = value.partition("=")
        if not sep or not name or not number.isdigit() or int(number) < 1:
            raise UserError(
                f"--provider-concurrency {value!r} is not PROVIDER=N with N >= 1; example: openai=16"
            )
        if name not in providers():
            raise UserError(
                f"--provider-concurrency {value!r}: unknown provider {name!r}"
                f"{suggestion(name, providers())}; known providers: {', '.join(providers())}"
            )
        limits[name] = int(number)
    return limits


def model_numbers(values: list[str] | None, option: str, example: str) -> dict[str, int]:
    """`--tpm openai:gpt-5=200000` (repeatable) -> {"openai:gpt-5": 200000}."""
    numbers: dict[str, int] = {}
    for value in values or []:
        spec, sep, number = value.rpartition("=")
        if not sep or not number.isdigit() or int(number) < 1:
            raise UserError(f"{option} {value!r} is not PROVIDER:MODEL=N with N >= 1; example: {example}")
        try:
            parse_spec(spec)
        except UserError as error:
            raise UserError(f"{option} {value!r}: {error}") from None
        numbers[spec] = int(number)
    return numbers


def whole_run(result: RunResult) -> RunResult:
    """Every trial in the run directory, not only this session's (a resumed run has both); a
    retried trial counts once, as its latest record."""
    latest = latest_trials(result.store.trials())
    records = [TrialRecord.model_validate(without_chain(t)) for t in latest]
    return RunResult(
        result.store,
        sorted(records, key=lambda r: r.trial_id),
        result.outcome,
        failures=result.failures,
        failed_trials=sum(target_failed(t) for t in latest),
    )


def exit_code(result: RunResult, *, resumable: bool = True) -> int:
    """Print each distinct call failure and what to do, one line each; return the exit code."""
    for line in result.failures:
        error_line(line)
    if result.outcome == "max_cost":
        return EXIT_MAX_COST
    if result.failed_trials:
        total = len(result.records)
        if resumable:
            then = f"medeval run --resume {result.store.directory} --retry-failed"
        else:
            # A rescore judges stored answers: the failed targets are retried in the source run.
            source = (result.store.read_manifest().get("source_run") or {}).get("path", "SOURCE_RUN")
            then = f"medeval run --resume {source} --retry-failed, and rescore that run again"
        error_line(
            f"{result.failed_trials} of {total} trial(s) could not be completed (the target failed); "
            f"fix the cause above, then: {then}"
        )
        return EXIT_FAILED_TRIALS
    unjudged, judged = judge_failures(result.records)
    if unjudged:
        error_line(
            f"{unjudged} of {judged} question group(s) were not scored because the judges failed "
            f"(not counted against any chatbot); see calls.jsonl, then judge the stored answers "
            f"again: medeval rescore {result.store.directory} --judge SPEC"
        )
        if unjudged == judged:
            return EXIT_FAILED_TRIALS  # nothing was measured: a script must not take this for a result
    return EXIT_FAILED_TRIALS if result.failures else EXIT_COMPLETE


def judge_failures(records: list[TrialRecord]) -> tuple[int, int]:
    """(groups not scored because judging failed, groups the judges were asked to score)."""
    judged = [
        group.ship_category
        for record in records
        for group in record.groups
        if group.ship_category not in (ShipCategory.NOT_APPLICABLE, ShipCategory.INCOMPLETE_DATA)
    ]
    return judged.count(ShipCategory.NOT_SCORED), len(judged)


def report_outcome(result: RunResult, console: Console) -> None:
    summary = result.store.read_json(SUMMARY) or {}
    cost = summary.get("cost", {})
    calls = summary.get("calls", {})
    console.print(
        f"calls: {calls.get('records', 0)} recorded, {calls.get('cache_hits', 0)} from cache, "
        f"{calls.get('errors', 0)} errors; cost ${cost.get('total_usd', 0.0):.4f}"
        + (f" (unpriced: {', '.join(cost['unpriced_models'])})" if cost.get("unpriced_models") else ""),
        soft_wrap=True,
    )
    cached = prompt_cache_text(cost.get("tokens") or {})
    if cached:
        console.print(f"prompt cache: {cached}", soft_wrap=True)
    heads = summary.get("chains", {})
    if heads:
        console.print(
            f"chain heads: results {heads['results']['head'][:16]} ({heads['results']['records']}), "
            f"calls {heads['calls']['head'][:16]} ({heads['calls']['records']})",
            soft_wrap=True,
        )
    if result.outcome == "max_cost":
        console.print(
            f"stopped at --max-cost: in-flight trials finished, no new ones started; "
            f"continue with: medeval run --resume {result.store.directory}",
            soft_wrap=True,
        )
    if result.records or summary.get("trials"):
        console.print(
            f"now run `medeval report {result.store.directory}` for report.md and report.html",
            highlight=False,
            soft_wrap=True,
        )


def report_interrupted(stop: RunInterrupted) -> None:
    if stop.run_dir is None:
        print("interrupted before the run directory was made; nothing was written", file=sys.stderr)
        return
    print(
        f"interrupted: every trial already written stays in {stop.run_dir}; "
        f"continue with: medeval run --resume {stop.run_dir}",
        file=sys.stderr,
        flush=True,
    )


def verify_command(run_dir: Path) -> int:
    """Print every finding, one per line; 0 when nothing is wrong, 1 otherwise."""
    if not run_dir.is_dir() or not any(run_dir.iterdir()):
        raise UserError(f"{run_dir} is not a run directory; pass a directory made by medeval run")
    findings = verify_run(run_dir)
    for finding in findings:
        stream = sys.stdout if finding.severity == "ok" else sys.stderr
        print(str(finding), file=stream, flush=True)
    return 1 if any(f.severity == "error" for f in findings) else 0


def study_config(study: Path, ctx: typer.Context, mode: CacheMode) -> RunConfig:
    """`run --study FILE` with options: those the file decides are refused (one line), the rest
    override it, each recorded in the manifest (study.overrides) and said on stderr."""
    from medeval.study import load_study
    from medeval.study.overrides import OVERRIDES, refuse_conflicts, with_overrides

    given = [
        (p.name, p.opts[0])
        for p in ctx.command.params
        if p.name and str(getattr(ctx.get_parameter_source(p.name), "name", "")) == "COMMANDLINE"
    ]
    refuse_conflicts(study, given)
    values = ctx.params
    config = load_study(study)
    overrides = {OVERRIDES[name]: values[name] for name, _ in given if name in OVERRIDES}
    for name, flag in given:
        if name in OVERRIDES:
            before = getattr(config, OVERRIDES[name])
            print(f"{flag} {values[name]} overrides the study file's {before}", file=sys.stderr)
    config = with_overrides(config, overrides)
    pacing = {
        "provider_concurrency": provider_limits(values.get("provider_concurrency")),
        "model_concurrency": model_numbers(
            values.get("model_concurrency"), "--model-concurrency", "openai:gpt-5=16"
        ),
        "tpm": model_numbers(values.get("tpm"), "--tpm", "openai:gpt-5=200000"),
    }
    return config.model_copy(
        update={
            "cache": mode,
            "cache_dir": values.get("cache_dir"),
            # The account's limits, not the study's content: the command line adds to the file.
            **{name: {**getattr(config, name), **given} for name, given in pacing.items()},
        }
    )
