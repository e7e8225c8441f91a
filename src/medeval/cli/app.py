"""The `medeval` command line. A user mistake prints one line naming the problem and the fix and
exits non-zero; it never prints a traceback."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from medeval.cli.calibrate import calibrate_command
from medeval.cli.data import export_command, query_command
from medeval.cli.ingest import ingest_command
from medeval.cli.keys import keys_app
from medeval.cli.models import models_command
from medeval.cli.notice import RESEARCH_NOTICE
from medeval.cli.options import Adjudicator, Extractor, JudgeCount, JudgeSpecs, Quiet, RunsOut
from medeval.cli.plan import plan_command
from medeval.cli.report import compare_command, report_command
from medeval.cli.review import review_app
from medeval.cli.validate import validate_command
from medeval.engine.defaults import DEFAULT_JUDGE
from medeval.errors import EXIT_INTERRUPTED, UserError
from medeval.records.redact import redact
from medeval.reporting.render.terminal import error_line, stdout_console

# Every command imports what it uses inside its function: the engine, pydantic models, scipy,
# statsmodels, duckdb and matplotlib load only for the command that needs them, so `--help` and
# `version` start fast (tests/test_cli_startup.py).

DEMO_TARGETS = ("fake:accurate", "fake:incomplete", "fake:outdated", "fake:invented", "fake:refusal")

app = typer.Typer(
    name="medeval",
    help=f"Mystery-shopper evaluations of AI chatbots on Medicare questions. {RESEARCH_NOTICE}",
    no_args_is_help=True,
    # Plain help: rich-formatted help loads markdown, pygments and tracebacks (a tenth of a second).
    rich_markup_mode=None,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = stdout_console()
err = Console(stderr=True, soft_wrap=True)


@app.command("run")
def run_command(
    ctx: typer.Context,
    scenario: Annotated[
        list[Path] | None, typer.Option("--scenario", "-s", help="Scenario file or directory")
    ] = None,
    target: Annotated[
        list[str] | None, typer.Option("--target", "-t", help="provider:model to evaluate")
    ] = None,
    judge: JudgeSpecs = None,
    judges: JudgeCount = 2,
    extractor: Extractor = None,
    adjudicator: Adjudicator = None,
    questioner: Annotated[
        str | None, typer.Option(help="Model that paraphrases, where a scenario allows")
    ] = None,
    seed: Annotated[int, typer.Option(help="Run seed; every role's seed derives from it")] = 42,
    epochs: Annotated[int, typer.Option(min=1, help="Repetitions of each scenario and target")] = 1,
    out_dir: RunsOut = Path("runs"),
    max_concurrency: Annotated[
        int, typer.Option(min=1, help="Calls in flight at once; twice as many trials are open")
    ] = 32,
    call_workers: Annotated[
        int,
        typer.Option(
            min=0,
            help="Processes that make the provider calls, beside the engine (0: all in this one); "
            "1 or more speeds up large runs on a machine with cores to spare",
        ),
    ] = 0,
    provider_concurrency: Annotated[
        list[str] | None,
        typer.Option(help="PROVIDER=N: ceiling on one provider's calls in flight (repeatable)"),
    ] = None,
    model_concurrency: Annotated[
        list[str] | None,
        typer.Option(help="PROVIDER:MODEL=N: ceiling on one model's calls in flight (repeatable)"),
    ] = None,
    tpm: Annotated[
        list[str] | None,
        typer.Option(help="PROVIDER:MODEL=N: tokens-per-minute budget for one model (repeatable)"),
    ] = None,
    temperature: Annotated[
        float | None, typer.Option(help="Target temperature, where the model accepts one")
    ] = 0.0,
    resume: Annotated[
        Path | None, typer.Option(help="Continue this run directory: run only its missing trials")
    ] = None,
    retry_failed: Annotated[
        bool,
        typer.Option("--retry-failed", help="With --resume: run again the trials whose target failed"),
    ] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the cache")] = False,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Call again and overwrite cached answers")
    ] = False,
    cache_dir: Annotated[
        Path | None,
        typer.Option(help="Response cache directory (default $MEDEVAL_CACHE_DIR or ~/.cache/medeval)"),
    ] = None,
    max_cost: Annotated[
        float | None, typer.Option(min=0, help="Budget in USD: refuse over it, stop launching at it")
    ] = None,
    quiet: Quiet = False,
    study: Annotated[
        Path | None, typer.Option(help="A study file (TOML) declaring the whole run; see docs/studies.md")
    ] = None,
    scenario_id: Annotated[
        list[str] | None, typer.Option(help="Keep only this scenario id (repeatable)")
    ] = None,
    scenario_tag: Annotated[
        list[str] | None, typer.Option(help="Keep scenarios carrying this tag (repeatable)")
    ] = None,
    max_output_tokens: Annotated[
        list[str] | None,
        typer.Option(help="N for every target, or TARGET=N for one (repeatable; default 1024)"),
    ] = None,
    system_prompt: Annotated[
        list[str] | None,
        typer.Option(help="FILE: the targets' system prompt, or TARGET=FILE for one (default: none)"),
    ] = None,
    reasoning_effort: Annotated[
        list[str] | None,
        typer.Option(help="none|minimal|low|medium|high|xhigh, or TARGET=LEVEL; sent where the model has it"),
    ] = None,
    target_temperature: Annotated[
        list[str] | None, typer.Option(help="TARGET=T: one target's temperature (repeatable)")
    ] = None,
    web_search: Annotated[
        list[str] | None,
        typer.Option(
            help="TARGET: turn on that target's own provider search tool (opt-in, repeatable); "
            "its citations are stored and every report flags it"
        ),
    ] = None,
    variant: Annotated[
        list[str] | None,
        typer.Option(
            help="NAME[:system_prompt=FILE,persona_detail=script|location|full,paraphrase=true,"
            "tone=...,reading_level=...]: one level of the variation matrix (repeatable)"
        ),
    ] = None,
    persona_replies: Annotated[
        int, typer.Option(min=0, help="Persona replies per scripted turn when the chatbot asks back")
    ] = 2,
    study_name: Annotated[str | None, typer.Option(help="Name of the study this run belongs to")] = None,
    study_tag: Annotated[list[str] | None, typer.Option(help="Tag of the study (repeatable)")] = None,
    batch: Annotated[
        bool, typer.Option("--batch", help="Judges through provider batch APIs (cheaper, slower)")
    ] = False,
    batch_size: Annotated[int | None, typer.Option(min=1, help="With --batch: most requests a batch")] = None,
    batch_idle: Annotated[
        float | None, typer.Option(min=0, help="With --batch: send once no request came for SECONDS")
    ] = None,
    batch_poll: Annotated[
        float | None, typer.Option(min=0.001, help="With --batch: SECONDS between status reads")
    ] = None,
) -> None:
    """Run an evaluation and write an auditable run directory (or --resume one)."""
    from medeval.cli import engine as engine_cli
    from medeval.cli import settings as target_cli
    from medeval.cli.summary import print_summary
    from medeval.engine.config import RunConfig, StudyRef
    from medeval.engine.orchestrator import RunInterrupted, run
    from medeval.engine.progress import choose_progress

    mode = engine_cli.cache_mode(no_cache=no_cache, refresh=refresh)
    if retry_failed and resume is None:
        raise UserError("--retry-failed needs --resume RUN_DIR: it re-runs that run's failed trials")
    if resume is not None:
        if scenario or target or judge or study:
            raise UserError(
                "--resume takes scenarios, targets and judges from the run's manifest; "
                "drop --scenario/--target/--judge/--study (or start a new run without --resume)"
            )
        config = engine_cli.resumed_config(
            resume, max_cost=max_cost, cache=mode if no_cache or refresh else None
        )
    elif study is not None:
        config = engine_cli.study_config(study, ctx, mode)
    else:
        if not scenario or not target:
            raise UserError("pass --scenario and --target (or --study FILE, or --resume RUN_DIR)")
        run_wide, per_target = target_cli.target_settings(
            target,
            max_output_tokens=max_output_tokens,
            system_prompt=system_prompt,
            reasoning_effort=reasoning_effort,
            target_temperature=target_temperature,
            web_search=web_search,
        )
        config = RunConfig(
            **run_wide,
            target_settings=per_target,
            variants=target_cli.variants(variant),
            scenario_ids=scenario_id or [],
            scenario_tags=scenario_tag or [],
            persona_replies=persona_replies,
            study=StudyRef(name=study_name, tags=study_tag or []) if study_name else None,
            scenarios=scenario,
            targets=target,
            judges=judge or [DEFAULT_JUDGE],
            judge_count=judges,
            extractor=extractor,
            adjudicator=adjudicator,
            questioner=questioner,
            seed=seed,
            epochs=epochs,
            out=out_dir,
            max_concurrency=max_concurrency,
            provider_concurrency=engine_cli.provider_limits(provider_concurrency),
            model_concurrency=engine_cli.model_numbers(
                model_concurrency, "--model-concurrency", "openai:gpt-5=16"
            ),
            tpm=engine_cli.model_numbers(tpm, "--tpm", "openai:gpt-5=200000"),
            temperature=temperature,
            cache=mode,
            cache_dir=cache_dir,
            max_cost=max_cost,
        )
    config = engine_cli.with_batch(
        config, batch, resumed=resume is not None, max_items=batch_size, idle=batch_idle, poll=batch_poll
    )
    # This machine's choice, not the study's: it applies to a resumed or study run too.
    config = config.model_copy(update={"call_workers": call_workers})
    err.print(RESEARCH_NOTICE, style="dim")
    try:
        result = run(config, resume=resume, retry_failed=retry_failed, progress=choose_progress(quiet=quiet))
    except RunInterrupted as stop:
        engine_cli.report_interrupted(stop)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    whole = engine_cli.whole_run(result)
    print_summary(whole)
    engine_cli.report_outcome(result, out)
    raise typer.Exit(engine_cli.exit_code(whole))


@app.command()
def verify(run_dir: Annotated[Path, typer.Argument(help="A run directory")]) -> None:
    """Check a run's hash chains, truncation, manifest, prompt and scenario hashes; non-zero on failure."""
    from medeval.cli import engine as engine_cli

    raise typer.Exit(engine_cli.verify_command(run_dir))


@app.command()
def rescore(
    run_dir: Annotated[Path, typer.Argument(help="The run whose transcripts to judge again")],
    judge: Annotated[
        list[str] | None, typer.Option("--judge", "-j", help="Judge spec (default: the run's)")
    ] = None,
    judges: Annotated[
        int | None, typer.Option("--judges", min=2, help="Verifiers per turn [default: 2]")
    ] = None,
    extractor: Extractor = None,
    adjudicator: Adjudicator = None,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Parent directory of the new run (default: beside the source)"),
    ] = None,
    quiet: Quiet = False,
    batch: Annotated[
        bool, typer.Option("--batch", help="Judges through provider batch APIs (cheaper, slower)")
    ] = False,
    keys: Annotated[list[Path] | None, typer.Option(help="Judge with these keys (a later season's)")] = None,
) -> None:
    """Judge a run's stored transcripts again into a new run; makes no target calls."""
    from medeval.calls.batching import BatchSettings
    from medeval.cli import engine as engine_cli
    from medeval.cli.summary import print_summary
    from medeval.engine.progress import choose_progress
    from medeval.engine.rescore import rescore as rescore_run

    err.print(RESEARCH_NOTICE, style="dim")
    result = rescore_run(
        run_dir,
        judge or [],
        out=out_dir,
        keys=keys,
        judge_count=judges if judges is not None else (2 if judge else None),
        extractor=extractor,
        adjudicator=adjudicator,
        batch=BatchSettings(enabled=True) if batch else None,
        progress=choose_progress(quiet=quiet),
    )
    whole = engine_cli.whole_run(result)
    print_summary(whole)
    engine_cli.report_outcome(result, out)
    raise typer.Exit(engine_cli.exit_code(whole, resumable=False))


@app.command()
def demo(
    out_dir: RunsOut = Path("runs"),
    seed: Annotated[int, typer.Option(help="Run seed")] = 42,
    season: Annotated[str, typer.Option(help="Plan year of the bundled keys: 2026 or 2027")] = "2026",
) -> None:
    """Run the bundled scenarios against the offline fake targets with the rules judges."""
    from medeval.cli.calibrate import print_demo_validity
    from medeval.cli.report import report_after_demo
    from medeval.cli.summary import print_summary
    from medeval.engine.config import RunConfig
    from medeval.engine.orchestrator import run
    from medeval.scenarios.load import season_dir

    config = RunConfig(
        scenarios=[season_dir(season)],
        targets=list(DEMO_TARGETS),
        judges=[DEFAULT_JUDGE],
        judge_count=2,
        seed=seed,
        out=out_dir,
    )
    err.print(RESEARCH_NOTICE, style="dim")
    result = run(config)
    print_summary(result)
    report_after_demo(result.store.directory, out)
    print_demo_validity(out, seed)


app.command("ingest")(ingest_command)
app.command("report")(report_command)
app.command("compare")(compare_command)
app.command("models")(models_command)
app.add_typer(review_app, name="review")
app.add_typer(keys_app, name="keys")
app.command("calibrate")(calibrate_command)
app.command("export")(export_command)
app.command("query")(query_command)


app.command("validate")(validate_command)
app.command("plan")(plan_command)


@app.command()
def version() -> None:
    """Print the medeval version."""
    from medeval import __version__

    out.print(__version__)


def _one_line_warning(message: Warning | str, category: type[Warning], *_: object, **__: object) -> str:
    # A deprecation notice or a torn-line notice is for the user, not a developer: no source line.
    return f"warning: {redact(str(message))}\n"


def _load_env_file(path: Path) -> None:
    if not path.exists():  # most commands run without one: skip loading the parser
        return
    from dotenv import load_dotenv

    try:
        load_dotenv(path, override=False)
    except (OSError, UnicodeDecodeError) as error:
        raise UserError(f"{path}: cannot read it as UTF-8 text ({error}); fix or remove the file") from None


def main() -> None:
    warnings.formatwarning = _one_line_warning
    try:
        _load_env_file(Path.cwd() / ".env")
        code = app(standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except UserError as error:
        for line in error.lines:
            error_line(line)
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted: every trial already written stays in its run directory")
        sys.exit(EXIT_INTERRUPTED)
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except typer.Abort:
        sys.exit(1)
    except typer.TyperException as error:  # usage errors: unknown option, missing value...
        show = getattr(error, "show", None)
        if callable(show):
            show()
        else:
            error_line(error.format_message())
        sys.exit(error.exit_code)
