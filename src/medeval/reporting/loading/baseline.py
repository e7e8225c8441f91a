"""The human baseline: SHIP counselors' results per question group (Dugan et al. 2025).

The numbers ship with the package (`data/ship_baseline.csv`); `data/ship_baseline.source.json` cites
where they come from (JAMA Netw Open 2025;8(4):e252834, Supplement 1, eTables 2-3).
"""

from __future__ import annotations

import csv
import io
import json
import re
from functools import cache
from importlib.resources import files

from pydantic import BaseModel

SHIP_CATEGORIES = (
    "accurate_complete",
    "substantive_incomplete",
    "not_substantive",
    "incorrect",
    "incomplete_data",
)
MODES = ("phone", "face_to_face", "combined")
MODE_LABELS = {
    "phone": "SHIP counselors, phone",
    "face_to_face": "SHIP counselors, face to face",
    "combined": "SHIP counselors, combined",
}


class BaselineRow(BaseModel):
    question_group: str
    persona: str
    script_question: str
    topic: str
    mode: str
    n: int
    counts: dict[str, int]


@cache
def load_baseline() -> tuple[BaselineRow, ...]:
    text = files("medeval").joinpath("data", "ship_baseline.csv").read_text(encoding="utf-8")
    rows = []
    for raw in csv.DictReader(io.StringIO(text)):
        rows.append(
            BaselineRow(
                question_group=raw["question_group"],
                persona=raw["persona"],
                script_question=raw["script_question"],
                topic=raw["topic"],
                mode=raw["mode"],
                n=int(raw["n"]),
                counts={c: int(raw[c]) for c in SHIP_CATEGORIES},
            )
        )
    return tuple(rows)


@cache
def baseline_citation() -> str:
    text = files("medeval").joinpath("data", "ship_baseline.source.json").read_text(encoding="utf-8")
    source = json.loads(text)
    return f"{source['citation']}; {source['tables']}"


def baseline_for(question_group: str) -> list[BaselineRow]:
    return [row for row in load_baseline() if row.question_group == question_group]


def group_sort_key(question_group: str) -> tuple[int, int, str]:
    """The study's groups in their number order (QG1, QG3, ... QG20), then any other group by name."""
    match = re.fullmatch(r"QG(\d+)", question_group)
    return (0, int(match.group(1)), "") if match else (1, 0, question_group)
