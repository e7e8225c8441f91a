"""`medeval calibrate --probes`: print the judges' flip rates and write probes.json, probes.md and
probes.csv beside the calibration (probes.json is what `medeval report --probes` reads)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from medeval.errors import UserError

if TYPE_CHECKING:  # statsmodels loads with the probes, not with the command line
    from medeval.calibration.probes.flips import ProbeReport
    from medeval.calibration.reference import ReferenceSet
    from medeval.calls.gateway import CallSink

PROBES_JSON = "probes.json"
PROBES_MD = "probes.md"
PROBES_CSV = "probes.csv"
CSV_HEADER = (
    "judge",
    "probe",
    "arm_a",
    "arm_b",
    "compared",
    "flips",
    "flip_rate",
    "low",
    "high",
    "toward_b_better",
    "toward_b_worse",
    "left_out",
    "over_threshold",
)


def parse_probes(names: list[str] | None) -> tuple[str, ...]:
    from medeval.calibration.probes.flips import PROBES

    if not names:
        return PROBES
    unknown = [n for n in names if n not in PROBES]
    if unknown:
        raise UserError(
            f"unknown probe {unknown[0]!r}; use one of {', '.join(PROBES)} (or leave --probe out for all)"
        )
    return tuple(p for p in PROBES if p in names)


def print_probes(report: ProbeReport, console: Console) -> None:
    from rich.table import Table

    from medeval.calibration.probes.render import HEADER, intro, notes, rows, title, verdict

    console.print(intro(report), highlight=False, soft_wrap=True)
    for judge in report.judges:
        table = Table(title=title(judge), title_justify="left")
        for i, name in enumerate(HEADER):
            table.add_column(name, justify="left" if i < 2 else "right")
        for row in rows(judge):
            table.add_row(*row)
        console.print(table)
        for line in notes(judge):
            console.print(line, highlight=False, soft_wrap=True)
        console.print(verdict(judge), highlight=False, soft_wrap=True)


def write_probes(report: ProbeReport, directory: Path) -> tuple[Path, Path, Path]:
    """probes.json (what `medeval report --probes` reads), probes.md and probes.csv (a row per judge
    and probe)."""
    from medeval.calibration.probes.render import markdown
    from medeval.records.safe_output import csv_values

    paths = (directory / PROBES_JSON, directory / PROBES_MD, directory / PROBES_CSV)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        paths[0].write_text(report.model_dump_json(indent=1) + "\n", encoding="utf-8")
        paths[1].write_text(markdown(report), encoding="utf-8")
        with paths[2].open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(CSV_HEADER)
            for judge in report.judges:
                for p in judge.probes:
                    r = p.rate
                    counts = (p.toward_b_better, p.toward_b_worse, p.left_out, p.exceeded)
                    row = (judge.judge, p.probe, *p.arms, p.compared, p.flips, r.estimate, r.low, r.high)
                    writer.writerow(csv_values([*row, *counts]))
    except OSError as error:
        raise UserError(f"{directory}: cannot write the probes ({error.strerror}); pass --out") from None
    return paths


def run_probes(
    reference: ReferenceSet,
    judges: list[str],
    probes: tuple[str, ...],
    directory: Path,
    console: Console,
    *,
    judge_count: int,
    extractor: str | None,
    adjudicator: str | None,
    seed: int,
    answers: int | None = None,
    sink: CallSink | None = None,
) -> None:
    """Probe the rules coder and each judge, print the tables, write the files."""
    from medeval.engine.probes import probe_judges

    def progress(spec: str) -> None:
        console.print(f"probing {spec} ...", highlight=False, soft_wrap=True)

    report = probe_judges(
        reference,
        judges,
        judge_count=judge_count,
        extractor=extractor,
        adjudicator=adjudicator,
        seed=seed,
        probes=probes,
        answers=answers,
        sink=sink,
        progress=progress,
    )
    print_probes(report, console)
    for path in write_probes(report, directory):
        console.print(f"probes: {path}", highlight=False, soft_wrap=True)
