"""`medeval calibrate`: the judges' validity on a human-coded reference set (no target calls)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from medeval.engine.defaults import DEFAULT_JUDGE
from medeval.reporting.render.terminal import stdout_console

if TYPE_CHECKING:  # statsmodels and scipy load with the calibration, not with the command line
    from medeval.engine.calibrate import Calibration

out = stdout_console()


def calibrate_command(
    reference: Annotated[
        Path | None,
        typer.Argument(help="Reference set, one JSON answer per line (default: the bundled SHIP set)"),
    ] = None,
    judge: Annotated[
        list[str] | None,
        typer.Option("--judge", "-j", help=f"Judge spec, repeatable (default {DEFAULT_JUDGE})"),
    ] = None,
    judges: Annotated[int, typer.Option("--judges", min=2, help="Independent verifiers per answer")] = 2,
    extractor: Annotated[str | None, typer.Option(help="Extractor spec (default: first judge)")] = None,
    adjudicator: Annotated[str | None, typer.Option(help="Model that breaks verifier ties")] = None,
    scenario: Annotated[
        list[Path] | None,
        typer.Option(
            "--scenario", "-s", help="Scenario file or directory the set names (beyond the bundled)"
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed every judge's seed derives from")] = 42,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out", help="Where validity.md/.json and answers.csv go (default runs/calibration/<id>)"
        ),
    ] = None,
    probes: Annotated[
        bool,
        typer.Option(
            "--probes",
            help="Also run the bias probes on the rules coder and each judge: flip rates under "
            "reordering, padding, reformatting and a wrong statement's position (probes.json/.md)",
        ),
    ] = False,
    probe: Annotated[
        list[str] | None,
        typer.Option("--probe", help="Only this bias probe (repeatable; implies --probes; default all)"),
    ] = None,
    probe_answers: Annotated[
        int | None,
        typer.Option(min=1, help="With --probes: a seeded sample of this many answers (default all)"),
    ] = None,
) -> None:
    """Run the judge panel on a human-coded reference set and report agreement, kappa, Incorrect recall."""
    from medeval.calibration.reference import default_reference, load_reference, load_scenarios
    from medeval.cli.calibration_files import write_calibration
    from medeval.cli.probes import parse_probes, run_probes
    from medeval.engine.calibrate import calibrate, calibration_config
    from medeval.records.storage import ChainedJsonl, new_run_id

    chosen = parse_probes(probe) if probes or probe else ()
    # Under runs/ (ignored by git), so the documented commands leave a clone clean.
    directory = out_dir or Path("runs") / "calibration" / new_run_id()
    calls = ChainedJsonl(directory / "calls.jsonl") if directory.is_dir() else None

    def sink(record: dict[str, object]) -> None:
        nonlocal calls
        if calls is None:
            directory.mkdir(parents=True, exist_ok=True)
            calls = ChainedJsonl(directory / "calls.jsonl")
        calls.append(dict(record))

    reference_set = load_reference(reference or default_reference(), load_scenarios(scenario or []))
    config = calibration_config(
        reference_set,
        judge or [DEFAULT_JUDGE],
        judge_count=judges,
        extractor=extractor,
        adjudicator=adjudicator,
        seed=seed,
    )
    cal = calibrate(reference_set, config, sink=sink)
    print_calibration(cal, out)
    paths = write_calibration(cal, directory)
    out.print(f"calibration: {paths.markdown}", highlight=False, soft_wrap=True)
    out.print(f"calibration: {paths.answers}", highlight=False, soft_wrap=True)
    if chosen:
        run_probes(
            reference_set,
            judge or [DEFAULT_JUDGE],
            chosen,
            directory,
            out,
            judge_count=judges,
            extractor=extractor,
            adjudicator=adjudicator,
            seed=seed,
            answers=probe_answers,
            sink=sink,
        )


def print_calibration(cal: Calibration, console: Console) -> None:
    from rich.table import Table

    from medeval.calibration.render import (
        CATEGORY_HEADER,
        MATRIX_HEADER,
        category_rows,
        headline,
        matrix_rows,
    )
    from medeval.cli.calibration_files import summary_line

    console.print(summary_line(cal), highlight=False, soft_wrap=True)
    v = cal.validity
    # Kappa, AC1 and PABAK with their intervals (the summary line has room for estimates only).
    console.print(headline(v)[1], highlight=False, soft_wrap=True)
    matrix = Table(title="Confusion matrix (rows: people; columns: judges)", title_justify="left")
    for i, name in enumerate(MATRIX_HEADER):
        matrix.add_column(name, justify="left" if i == 0 else "right")
    for row in matrix_rows(v):
        matrix.add_row(*row)
    console.print(matrix)
    per = Table(
        title="Per category (Incorrect first), on the groups the judges decided", title_justify="left"
    )
    for i, name in enumerate(CATEGORY_HEADER):
        per.add_column(name, justify="left" if i == 0 else "right")
    for row in category_rows(v):
        per.add_row(*row)
    console.print(per)


def print_demo_validity(console: Console, seed: int = 42) -> None:
    """The demo's last line: how the offline rules judges agree with people on the shipped set."""
    from medeval.calibration.reference import default_reference, load_reference, load_scenarios
    from medeval.cli.calibration_files import summary_line
    from medeval.engine.calibrate import calibrate, calibration_config

    reference = load_reference(default_reference(), load_scenarios([]))
    cal = calibrate(reference, calibration_config(reference, [DEFAULT_JUDGE], seed=seed))
    console.print(f"judge validity: {summary_line(cal)}", highlight=False, soft_wrap=True)
