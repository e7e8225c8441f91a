"""`medeval calibrate --probes`: each judge's flip rates under the bias probes, printed and written
to probes.csv beside the calibration (engine/probes.py; docs/methodology.md, "Judge bias probes")."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from medeval.records.safe_output import csv_values

if TYPE_CHECKING:  # the engine loads with the command, not with the command line
    from medeval.calibration.reference import ReferenceSet
    from medeval.calls.gateway import CallSink
    from medeval.engine.probes import ProbeResult

PROBES_CSV = "probes.csv"
CATEGORY_ORDER = ("incorrect", "accurate_complete", "substantive_incomplete", "not_substantive")
SHORT = {
    "incorrect": "Incorrect",
    "accurate_complete": "A&C",
    "substantive_incomplete": "SBI",
    "not_substantive": "NS",
}


def probe_judges(
    reference: ReferenceSet,
    specs: list[str],
    *,
    judge_count: int,
    extractor: str | None,
    adjudicator: str | None,
    seed: int,
    answers: int | None,
    sink: CallSink | None,
) -> list[ProbeResult]:
    """The probes for each judge given, alone (a panel of its own verifiers)."""
    from medeval.engine.calibrate import calibration_config
    from medeval.engine.probes import run_probes, sample

    subset = sample(reference, answers, seed)
    results: list[ProbeResult] = []
    for spec in dict.fromkeys(specs):
        config = calibration_config(
            subset, [spec], judge_count=judge_count, extractor=extractor, adjudicator=adjudicator, seed=seed
        )
        results.extend(run_probes(subset, config, sink))
    return results


def _rate(low: float | None, estimate: float | None, high: float | None) -> str:
    if estimate is None:
        return "n/a"
    if low is None or high is None:
        return f"{100 * estimate:.1f}%"
    return f"{100 * estimate:.1f}% ({100 * low:.1f}–{100 * high:.1f})"


HEADER = (
    "Judge",
    "Probe",
    "Answers",
    "Flips",
    "Flip rate (95% CI)",
    *(SHORT[c] for c in CATEGORY_ORDER),
    "Flagged",
)


def rows(results: list[ProbeResult]) -> list[list[str]]:
    return [
        [
            r.judge,
            r.probe,
            str(r.answers),
            str(r.flips),
            _rate(r.rate.low, r.rate.estimate, r.rate.high),
            *(_rate(None, r.by_category[c].estimate, None) for c in CATEGORY_ORDER),
            "FLAGGED" if r.flagged else "",
        ]
        for r in results
    ]


def print_probes(results: list[ProbeResult], console: Console) -> None:
    table = Table(title="Bias probes: share of answers whose category changed", title_justify="left")
    for i, name in enumerate(HEADER):
        table.add_column(name, justify="left" if i < 2 else "right")
    for row in rows(results):
        table.add_row(*row)
    console.print(table)
    flagged = [f"{r.judge} ({r.probe})" for r in results if r.flagged]
    console.print(
        "Flagged (flip rate's 95% lower bound above 5%): " + (", ".join(flagged) if flagged else "none"),
        highlight=False,
        soft_wrap=True,
    )


def write_probes(results: list[ProbeResult], directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / PROBES_CSV
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["judge", "probe", "answers", "flips", "flip_rate", "low", "high", "flagged"])
        for r in results:
            writer.writerow(
                csv_values(
                    [
                        r.judge,
                        r.probe,
                        r.answers,
                        r.flips,
                        r.rate.estimate,
                        r.rate.low,
                        r.rate.high,
                        r.flagged,
                    ]
                )
            )
    return path
