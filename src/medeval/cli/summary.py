"""The run summary printed at the end of `medeval run` and `medeval demo`."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from medeval.cli.report import print_headline_of
from medeval.cli.targets import SHIP_LABELS, SHIP_ORDER, left_out_line, summarise
from medeval.engine.orchestrator import RunResult
from medeval.reporting.render.terminal import emit, fit, stdout_console
from medeval.schemas import ShipCategory

out = stdout_console()


def _fmt(value: float | None, percent: bool = True) -> str:
    if value is None:
        return "n/a"
    return f"{value:.0%}" if percent else f"{value:.2f}"


#: Short SHIP headers, so the table fits 80 columns; the legend under it spells them out.
SHIP_SHORT = {
    ShipCategory.ACCURATE_COMPLETE: "A&C",
    ShipCategory.SUBSTANTIVE_INCOMPLETE: "S-I",
    ShipCategory.NOT_SUBSTANTIVE: "NS",
    ShipCategory.INCORRECT: "Inc",
    ShipCategory.INCOMPLETE_DATA: "ID",
    # Left out of the four categories, counted apart.
    ShipCategory.NEEDS_REVIEW: "Rev",
    ShipCategory.NOT_SCORED: "NSc",
}


def print_summary(result: RunResult, console: Console = out) -> None:
    """Two narrow tables (scores; SHIP categories) rather than one of twelve columns: each fits an
    80-column terminal with every target name whole."""
    print_headline_of(result.store.directory, console)
    summaries = summarise(result.records)
    scores = Table(title=f"run {result.store.run_id}", title_justify="left")
    scores.add_column("target / served model", no_wrap=True)
    for column in ("trials", "accuracy", "complete", "risk", "review"):
        scores.add_column(column, justify="right")
    ship = Table(title="SHIP categories (scored question groups)", title_justify="left")
    ship.add_column("target", no_wrap=True)
    for category in SHIP_ORDER:
        ship.add_column(SHIP_SHORT[category], justify="right")
    for summary in summaries:
        served = ", ".join(summary.served_models) or "-"
        scores.add_row(
            Text(f"{summary.target}\n  {served}"),
            str(summary.trials),
            _fmt(summary.accuracy),
            _fmt(summary.completeness),
            _fmt(summary.safety_risk, percent=False),
            str(summary.needs_review),
        )
        ship.add_row(Text(summary.target), *(str(summary.ship[c.value]) for c in SHIP_ORDER))
    legend = "; ".join(f"{SHIP_SHORT[c]} {SHIP_LABELS[c].lower()}" for c in SHIP_ORDER)
    emit(
        console,
        fit(scores, console),
        fit(ship, console),
        Text(f"{legend}. risk: mean safety risk; review: trials awaiting manual review."),
    )
    left_out = left_out_line(summaries)
    if left_out:
        console.print(left_out, highlight=False, soft_wrap=True)
    console.print(f"run directory: {result.store.directory}", highlight=False, soft_wrap=True)
