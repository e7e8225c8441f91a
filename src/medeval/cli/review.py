"""`medeval review export|import`: human coding of a run (the work is in medeval.review)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from medeval.reporting.render.terminal import stdout_console

out = stdout_console()

review_app = typer.Typer(
    help="Human coding: export groups for people to code, import their codes into the run.",
    no_args_is_help=True,
    # Plain help: rich-formatted help loads markdown, pygments and tracebacks (a tenth of a second).
    rich_markup_mode=None,
)


@review_app.command("export")
def export_command(
    run_dir: Annotated[Path, typer.Argument(help="A run directory")],
    sample: Annotated[
        str | None,
        typer.Option(
            help="Audit sample of the groups the judges decided: a fraction (0.2) or a number (30), "
            "stratified by target and question group; groups in review are always included"
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the audit sample")] = 42,
    blind: Annotated[bool, typer.Option("--blind", help="Hide the judges' codes from the coder")] = False,
    out_path: Annotated[
        Path | None,
        typer.Option("--out", help="The HTML file (or a directory for it); the CSV goes beside it"),
    ] = None,
    allow_damaged: Annotated[
        bool, typer.Option(help="Export from a run that fails medeval verify (with a warning)")
    ] = False,
) -> None:
    """Write an offline HTML coding page and a CSV of the groups a person should code."""
    from medeval.records.integrity import check_runs
    from medeval.review.export import make_export, write_export
    from medeval.review.sample import parse_sample

    check_runs([run_dir], allow_damaged=allow_damaged)
    export = make_export(run_dir, parse_sample(sample), seed, blind=blind)
    paths = write_export(export, out_path or run_dir / "review")
    undecided, audit = export.counts()
    detail = (
        f"{len(export.items)} group(s)"
        if export.blind
        else f"{undecided} the judges left undecided + {audit} audit sample"
    )
    out.print(f"review export {export.export_id}: {detail}", highlight=False, soft_wrap=True)
    out.print(f"coding page: {paths.html}", highlight=False, soft_wrap=True)
    out.print(f"spreadsheet: {paths.csv}", highlight=False, soft_wrap=True)


@review_app.command("import")
def import_command(
    run_dir: Annotated[Path, typer.Argument(help="The run the codes belong to")],
    codes_file: Annotated[
        Path, typer.Argument(help="Codes downloaded from the coding page, or the filled CSV")
    ],
    coder: Annotated[str, typer.Option("--coder", help="Who coded them (recorded with each decision)")],
) -> None:
    """Check a coder's file against the run, then append it to the run's reviews.jsonl."""
    from medeval.review.importing import import_codes

    result = import_codes(run_dir, codes_file, coder)
    for flag in result.flags:
        print(f"warning: {codes_file}: {flag}", file=sys.stderr, flush=True)
    corrected = (
        f" ({result.previously_coded} replace this coder's earlier codes)" if result.previously_coded else ""
    )
    out.print(
        f"imported {result.items_coded} code(s) by {result.record.coder} into {run_dir}/reviews.jsonl"
        f"{corrected}; `medeval report {run_dir}` now counts them",
        highlight=False,
        soft_wrap=True,
    )
