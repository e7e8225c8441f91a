"""`medeval ingest FILE... --scenario PATH --product NAME`: conversations collected outside the
harness become a run (engine/ingest). The command prints how each conversation matched the script,
then the usual run summary."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast, get_args

import typer
from rich.console import Console

from medeval.cli.notice import RESEARCH_NOTICE
from medeval.cli.options import Adjudicator, Extractor, JudgeCount, JudgeSpecs, Quiet, RunsOut
from medeval.engine.defaults import DEFAULT_JUDGE
from medeval.errors import UserError
from medeval.reporting.render.terminal import stdout_console

if TYPE_CHECKING:  # the schemas (pydantic) and the engine load when the command runs
    from medeval.schemas import Channel, IngestSource

#: For the help text; tests/test_cli_startup.py checks it against medeval.schemas.CHANNELS.
CHANNEL_NAMES = ("app", "web", "phone transcript", "other")

out = stdout_console()
err = Console(stderr=True, soft_wrap=True)


def describe(source: IngestSource, scenario_id: str) -> str:
    """One line per conversation: what matched (by id, by text with the similarity), what was
    skipped, left unanswered or extra."""
    by_text = [f"{m.turn_id} {m.score:.2f}" for m in source.matched if m.by == "text"]
    parts = [
        f"{len(source.matched)} turn(s) matched" + (f" (by text: {', '.join(by_text)})" if by_text else "")
    ]
    if source.skipped:
        parts.append(f"skipped: {', '.join(source.skipped)}")
    if source.unanswered:
        parts.append(f"unanswered: {', '.join(source.unanswered)}")
    extra = sorted({(e.turn_id, e.coded_with) for e in source.extra})
    if extra:
        shown = [f"{t} (coded with {c})" if c else f"{t} (not coded)" for t, c in extra]
        parts.append(f"extra: {', '.join(shown)}")
    return f"{source.conversation_id} -> {scenario_id}: " + "; ".join(parts)


def channel_option(value: str) -> Channel:
    from medeval.schemas import CHANNELS, Channel

    word = " ".join(value.strip().lower().replace("-", " ").replace("_", " ").split())
    for channel in get_args(Channel):
        if word == channel:
            return cast(Channel, channel)
    raise UserError(f"--channel {value!r} is not one of {', '.join(CHANNELS)}")


def ingest_command(
    files: Annotated[
        list[Path], typer.Argument(help="Transcript files: .csv, .jsonl or .md (see examples/)")
    ],
    scenario: Annotated[
        list[Path], typer.Option("--scenario", "-s", help="The scenario file(s) the conversations followed")
    ],
    product: Annotated[
        str, typer.Option(help="The product as people meet it; the run's target is ingested:PRODUCT")
    ],
    product_version: Annotated[
        str | None, typer.Option(help="The version or model the product showed")
    ] = None,
    collected_by: Annotated[str | None, typer.Option(help="Who collected the conversations")] = None,
    collected_at: Annotated[
        str | None, typer.Option(help="When (YYYY-MM-DD); a file's own value wins for its conversation")
    ] = None,
    channel: Annotated[
        str | None,
        typer.Option(
            help=f"How: {', '.join(CHANNEL_NAMES)} (default web; phone transcript with --counselor)"
        ),
    ] = None,
    counselor: Annotated[
        bool,
        typer.Option(
            "--counselor",
            help="The answers are human counselors' (transcribed calls): the SHIP table shows them as "
            "counselors coded by these judges",
        ),
    ] = False,
    attachment: Annotated[
        list[Path] | None, typer.Option(help="A screenshot or audio file for the whole set, recorded by hash")
    ] = None,
    judge: JudgeSpecs = None,
    judges: JudgeCount = 2,
    extractor: Extractor = None,
    adjudicator: Adjudicator = None,
    seed: Annotated[int, typer.Option(help="Run seed; every judge's seed derives from it")] = 42,
    out_dir: RunsOut = Path("runs"),
    quiet: Quiet = False,
) -> None:
    """Judge conversations collected outside the harness (an app, a website, a counselor's call) into a
    run; makes no target calls."""
    from medeval.cli import engine as engine_cli
    from medeval.cli.summary import print_summary
    from medeval.engine.config import RunConfig
    from medeval.engine.ingest import ingest, ingested_target
    from medeval.engine.ingest.plan import attachment as hashed
    from medeval.engine.progress import choose_progress
    from medeval.schemas import Attachment, Provenance

    err.print(RESEARCH_NOTICE, style="dim")
    name = " ".join(product.split())
    if not name or len(name) > 120:
        raise UserError("--product is empty or over 120 characters; name the product as people meet it")
    if collected_at:
        try:
            date.fromisoformat(collected_at)
        except ValueError:
            raise UserError(f"--collected-at {collected_at!r} is not a date (YYYY-MM-DD)") from None
    attachments: list[Attachment] = []
    for path in attachment or []:
        found = hashed(Path.cwd(), str(path))
        if isinstance(found, str):
            raise UserError(f"--attachment: {found}")
        attachments.append(found)
    defaults = Provenance(
        product=name,
        product_version=product_version,
        collected_by=collected_by,
        collected_at=collected_at,
        channel=channel_option(channel or ("phone transcript" if counselor else "web")),
        counselor=counselor,
        attachments=attachments,
    )
    config = RunConfig(
        scenarios=scenario,
        targets=[ingested_target(name)],
        judges=judge or [DEFAULT_JUDGE],
        judge_count=judges,
        extractor=extractor,
        adjudicator=adjudicator,
        seed=seed,
        out=out_dir,
    )
    result, planned = ingest(files, config, defaults, progress=choose_progress(quiet=quiet))
    for item in planned:
        out.print(describe(item.source, item.loaded.scenario.scenario_id), soft_wrap=True, highlight=False)
    whole = engine_cli.whole_run(result)
    print_summary(whole)
    engine_cli.report_outcome(result, out)
    raise typer.Exit(engine_cli.exit_code(whole, resumable=False))
