"""Every table the command line prints fits 80 columns with every target and model name whole, and
off a terminal no line ends in padding."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table

from medeval.cli.summary import print_summary
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run
from medeval.reporting.render.terminal import emit, fit
from tests.conftest import medeval
from tests.engine_support import SCENARIO_001

PATH_LINES = ("run directory: ", "compare: ", "report: ")
TARGETS = ["fake:accurate", "fake:incomplete", "fake:outdated", "fake:invented", "fake:refusal"]


def check_80(text: str, names: list[str]) -> None:
    lines = text.splitlines()
    assert lines
    # A path printed on its own line stays whole, so it can be copied: it is not a table.
    too_wide = [line for line in lines if len(line) > 80 and not line.startswith(PATH_LINES)]
    assert not too_wide, too_wide
    assert "…" not in text
    trailing = [line for line in lines if line != line.rstrip()]
    assert not trailing, trailing
    for name in names:
        assert name in text, name


def console_80() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=80, force_terminal=False, color_system=None), buffer


def test_the_run_summary_fits_80_columns_with_each_target_whole(tmp_path: Path) -> None:
    result = run(RunConfig(scenarios=[SCENARIO_001], targets=TARGETS, out=tmp_path / "runs"))
    console, buffer = console_80()
    print_summary(result, console)
    check_80(buffer.getvalue(), TARGETS)
    assert "A&C accurate & complete" in buffer.getvalue()  # the legend of the short headers


def test_a_table_too_wide_for_80_columns_becomes_one_block_per_row() -> None:
    table = Table(title="models")
    for column in ("spec", "api id", "status", "retires", "successors"):
        table.add_column(column)
    long_names = ["openai-compatible:shopper-target-with-a-long-name", "xai:grok-4-1-fast-non-reasoning"]
    for name in long_names:
        table.add_row(
            name, "some-api-id-2025-01-01 (aliases: a, b, c)", "deprecated", "2026-12-11", "x, y, z"
        )
    console, buffer = console_80()
    emit(console, fit(table, console))
    text = buffer.getvalue()
    check_80(text, long_names)
    assert "  successors: x, y, z" in text
    narrow = Table()
    narrow.add_column("target")
    narrow.add_row("fake:invented")
    assert fit(narrow, console) is narrow  # a table that fits stays a table


def test_models_and_compare_fit_80_columns(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    models = medeval("models", cwd=tmp_path)
    assert models.returncode == 0, models.stderr
    check_80(
        models.stdout, ["xai:grok-4-1-fast-non-reasoning", "openai-compatible", "claude-3-5-sonnet-20241022"]
    )

    config = RunConfig(scenarios=[SCENARIO_001], targets=TARGETS[:3], out=tmp_path / "runs")
    a, b = run(config).store.directory, run(config).store.directory
    compared = medeval("compare", str(a), str(b), cwd=tmp_path)
    assert compared.returncode == 0, compared.stderr
    check_80(compared.stdout, TARGETS[:3])


@pytest.mark.parametrize("width", [80, 120, 160])
def test_the_headline_keeps_one_line_per_target_at_80_to_160_columns(tmp_path: Path, width: int) -> None:
    from medeval.reporting.loading.run import Corpus
    from medeval.reporting.render.headline import print_headline
    from medeval.reporting.tables.headline import headline

    scripts = [
        SCENARIO_001.parent / "ship_medicare_only.json",
        SCENARIO_001.parent / "ship_dual_eligible.json",
    ]
    result = run(RunConfig(scenarios=scripts, targets=TARGETS, out=tmp_path / "runs"))
    corpus = Corpus([result.store.directory])
    try:
        head = headline(corpus)
    finally:
        corpus.close()
    buffer = io.StringIO()
    print_headline(head, Console(file=buffer, width=width, force_terminal=False, color_system=None))
    lines = buffer.getvalue().splitlines()
    assert max(len(line.rstrip()) for line in lines) <= width
    # No `header: value` blocks: each target's rates are on one line, with their intervals.
    assert not [line for line in lines if line.startswith("  n: ")]
    for target in TARGETS:
        rows = [line for line in lines if line.startswith(target + " ")]
        assert rows and all("(" in row for row in rows), (target, rows)
    assert len(lines) < 60


@pytest.mark.parametrize("width", [80, 160])
def test_the_progress_bar_keeps_the_trial_count_and_eta_at_80_columns(width: int) -> None:
    from medeval.engine.progress import RichProgress

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None)
    progress = RichProgress(console)
    progress.tally.calls, progress.tally.cache_hits, progress.tally.cost = 123456, 7890, 1234.5678
    progress._bar.update(progress._task, total=10000, completed=4321, stats=progress._stats())
    console.print(progress._bar.make_tasks_table(progress._bar.tasks))
    (line,) = buffer.getvalue().splitlines()
    assert len(line) <= width
    assert "4321/10000" in line and "eta -:--:--" in line
    assert "123456 calls" in line or "calls 123456" in line


def test_run_ends_by_naming_the_report_command(tmp_path: Path) -> None:
    done = medeval(
        "run", "-s", str(SCENARIO_001), "-t", "fake:accurate", "--out", "runs", "--quiet", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert done.stdout.strip().splitlines()[-1] == (
        f"now run `medeval report {Path('runs') / run_dir.name}` for report.md and report.html"
    )
