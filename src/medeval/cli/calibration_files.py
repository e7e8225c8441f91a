"""What `medeval calibrate` writes: validity.md (the figures as a report section), validity.json (the
same numbers for a program), answers.csv (each reference answer: the person's and the judges'
category, with the person's rationale), and calls.jsonl when a model judge was called."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from pydantic import BaseModel

from medeval.calibration.render import validity_markdown
from medeval.engine.calibrate import Calibration
from medeval.errors import UserError
from medeval.records.safe_output import csv_values
from medeval.review.categories import CATEGORY_SHORT


class CalibrationPaths(BaseModel):
    markdown: Path
    json_path: Path
    answers: Path


def summary_line(cal: Calibration) -> str:
    panel = ", ".join(cal.judges)
    return f"judges {panel} on {cal.reference.name} ({len(cal.answers)} answers): {cal.validity.one_line()}"


def markdown(cal: Calibration) -> str:
    lines = [
        "# Judge validity on a reference set",
        "",
        f"Reference set `{cal.reference.name}` (sha256 `{cal.reference_sha256[:12]}`), "
        f"{len(cal.answers)} human-coded answers; judges {', '.join(cal.judges)}, extractor "
        f"{cal.extractor}. No target was called. docs/methodology.md explains each figure.",
        "",
        *validity_markdown(cal.validity),
    ]
    missed = [a for a in cal.answers if a.human == "incorrect" and a.judges != "incorrect"]
    if missed:
        lines += ["## Incorrect answers the judges did not call Incorrect", ""]
        lines += [
            f"- `{a.id}` ({a.scenario_id} {a.question_group}): judges "
            f"{CATEGORY_SHORT.get(a.judges, a.judges)}. Person: {a.rationale}"
            for a in missed
        ]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write_calibration(cal: Calibration, directory: Path) -> CalibrationPaths:
    paths = CalibrationPaths(
        markdown=directory / "validity.md",
        json_path=directory / "validity.json",
        answers=directory / "answers.csv",
    )
    try:
        directory.mkdir(parents=True, exist_ok=True)
        paths.markdown.write_text(markdown(cal), encoding="utf-8")
        paths.json_path.write_text(
            json.dumps(cal.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
        with paths.answers.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(
                (
                    "id",
                    "scenario_id",
                    "question_group",
                    "style",
                    "person",
                    "judges",
                    "agree",
                    "reason",
                    "rationale",
                )
            )
            for a in cal.answers:
                writer.writerow(
                    csv_values(
                        (
                            a.id,
                            a.scenario_id,
                            a.question_group,
                            a.style or "",
                            a.human,
                            a.judges,
                            "yes" if a.human == a.judges else "no",
                            a.reason or "",
                            a.rationale,
                        )
                    )
                )
    except OSError as error:
        raise UserError(f"{directory}: cannot write the calibration ({error.strerror}); pass --out") from None
    return paths
