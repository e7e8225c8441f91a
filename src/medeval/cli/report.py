"""The `report` and `compare` commands, kept out of cli.py so that file stays a thin list of commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from medeval.errors import UserError
from medeval.records.redact import redact
from medeval.reporting import DEFAULT_HTML_TRIALS
from medeval.reporting.render.terminal import stdout_console

# duckdb, scipy, statsmodels and matplotlib load inside the commands that need them, so every
# other command starts fast.

out = stdout_console()


def report_command(
    run_dirs: Annotated[list[Path], typer.Argument(help="One or more run directories")],
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Report directory (default: RUN_DIR/report of the first run)")
    ] = None,
    html_trials: Annotated[
        int, typer.Option(min=0, help="Transcripts to include in report.html (every trial is in trials.csv)")
    ] = DEFAULT_HTML_TRIALS,
    probes: Annotated[
        list[Path] | None,
        typer.Option(
            "--probes",
            help="probes.json of `medeval calibrate --probes` (repeatable): judges over a bias "
            "threshold are named in the judge-validity section (a run directory's probes.json is read too)",
        ),
    ] = None,
) -> None:
    """Write trials.csv, per_scenario.csv, ship_table.csv, charts, report.md and report.html."""
    from medeval.reporting.build import build_report

    paths = build_report(run_dirs, out_dir, html_trials, probes=probes)
    warn_integrity(paths.integrity)
    print_report_paths(paths.markdown, paths.html, out)


def warn_integrity(problems: list[str]) -> None:
    for problem in problems:
        print(
            f"warning: failed medeval verify: {redact(problem)}; the report carries this warning",
            file=sys.stderr,
            flush=True,
        )


def print_report_paths(markdown: Path, html: Path, console: Console) -> None:
    console.print(f"report: {markdown}", highlight=False, soft_wrap=True)
    console.print(f"report: {html}", highlight=False, soft_wrap=True)


def compare_command(
    run_a: Annotated[Path, typer.Argument(help="The earlier (or reference) run directory")],
    run_b: Annotated[Path, typer.Argument(help="The later (or other model's) run directory")],
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Where compare.md and compare.csv go (default: RUN_B/compare)"),
    ] = None,
    allow_damaged: Annotated[
        bool, typer.Option(help="Compare a run that fails medeval verify (with a warning)")
    ] = False,
    pair: Annotated[
        list[str] | None,
        typer.Option(
            "--pair",
            help="A_TARGET=B_TARGET: compare this target of A with that one of B (repeatable; "
            "default: the same spec in both runs)",
        ),
    ] = None,
    drift: Annotated[
        bool,
        typer.Option(
            "--drift",
            help="B used other keys (a later season's): judge A's transcripts again with B's keys (no "
            "target calls) and split each target's change into the key's and the model's (drift.md)",
        ),
    ] = False,
) -> None:
    """Change per question group between two runs, with 95% CIs; what changed and what is significant."""
    from medeval.records.integrity import check_runs
    from medeval.reporting.compare.runs import compare_runs, parse_pairs
    from medeval.reporting.compare.show import print_comparison, write_comparison

    pairs = parse_pairs(pair)
    check_runs([run_a, run_b], allow_damaged=allow_damaged)
    comparison = compare_runs(run_a, run_b, pairs)
    print_comparison(comparison, out)
    target = out_dir or run_b / "compare"
    try:
        markdown, csv_path = write_comparison(comparison, target)
    except OSError as error:
        raise UserError(
            f"{target}: cannot write compare.md and compare.csv there ({error.strerror or error}); "
            "pass --out with a writable folder"
        ) from None
    out.print(f"compare: {markdown}", highlight=False, soft_wrap=True)
    out.print(f"compare: {csv_path}", highlight=False, soft_wrap=True)
    keys_changed = any(line.startswith("Scenario hash of") for line in comparison.snapshot_changes)
    if drift:
        key_and_model(run_a, run_b, [Path(s.path) for s in comparison.run_b.scenarios], target)
    elif keys_changed:
        out.print(
            "The keys changed between A and B: add --drift to split the change into the key's and the "
            "model's.",
            highlight=False,
            soft_wrap=True,
        )


def key_and_model(run_a: Path, run_b: Path, keys: list[Path], target: Path) -> None:
    """Rescore A with B's keys into TARGET/rescored, then write drift.md and drift.csv there."""
    from medeval.engine.progress import QuietProgress
    from medeval.engine.rescore import rescore
    from medeval.reporting.compare.drift import drift, pooled_lines, write_drift

    missing = [str(p) for p in keys if not p.is_file()]
    if missing or not keys:
        raise UserError(
            "cannot split key and model change: run B's scenario files are gone "
            f"({', '.join(missing) or 'none recorded'}); restore them"
        )
    result = rescore(run_a, [], out=target / "rescored", keys=keys, progress=QuietProgress())
    rescored = result.store.directory
    found = drift(run_a, rescored, run_b)
    markdown, csv_path = write_drift(found, target)
    for line in pooled_lines(found):
        out.print(line, highlight=False, soft_wrap=True, markup=False)
    out.print(f"drift: {markdown}", highlight=False, soft_wrap=True)
    out.print(f"drift: {csv_path}", highlight=False, soft_wrap=True)


def print_headline_of(run_dir: Path, console: Console) -> None:
    """The run's headline (targets beside the counselors on the study's groups), read back from disk
    so a resumed run's earlier trials count too."""
    import warnings

    from medeval.records.storage import RESULTS
    from medeval.reporting.loading.run import Corpus
    from medeval.reporting.render.headline import print_headline
    from medeval.reporting.tables.headline import headline

    if not (run_dir / RESULTS).is_file():
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torn lines are reported by `medeval report` and `verify`
        corpus = Corpus([run_dir])
    try:
        if corpus.trial_count():
            print_headline(headline(corpus), console)
    finally:
        corpus.close()


def report_after_demo(run_dir: Path, console: Console) -> None:
    """The demo ends with the report of its own run."""
    from medeval.reporting.build import build_report

    paths = build_report([run_dir])
    warn_integrity(paths.integrity)
    print_report_paths(paths.markdown, paths.html, console)
