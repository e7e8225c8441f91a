"""A human-coded reference set: answers to the study's questions, each with a person's category.

One JSON object per line (docs/methodology.md, "Reference sets for `medeval calibrate`"):
{"id", "scenario_id", "question_group", "question", "answer", "category", "rationale",
optional "item_codes" {fact_id: covered|contradicted|absent}, optional "coder", optional "style",
optional "target" (the spec of the chatbot that wrote the answer: the bias probes' self-preference
comparison reads its vendor family)}.
Categories and question groups are read liberally ("A&C", "Accurate and Complete"; "QG1", "1"),
and every problem in the file is one line naming the line number, the problem and the fix.
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from medeval.errors import UserError
from medeval.records.hashing import sha256_file
from medeval.records.user_files import REFERENCE_MAX_BYTES, read_user_text
from medeval.review.categories import (
    ACCEPTED,
    ITEM_CODES,
    ItemCode,
    StudyCategory,
    normalise_group,
    parse_category,
    parse_item_code,
)
from medeval.scenarios.load import expand_paths, scenario_problems, season_dir
from medeval.schemas import Scenario

DEFAULT_REFERENCE = "ship_reference_v1.jsonl"


class ReferenceAnswer(BaseModel):
    id: str
    scenario_id: str
    question_group: str
    question: str
    answer: str
    category: StudyCategory
    rationale: str = ""
    item_codes: dict[str, ItemCode] = Field(default_factory=dict)
    coder: str | None = None
    style: str | None = None
    target: str | None = None
    line: int


class LoadedScenario(BaseModel):
    scenario: Scenario
    path: Path
    sha256: str


class ReferenceSet(BaseModel):
    path: Path
    sha256: str
    answers: list[ReferenceAnswer]
    scenarios: dict[str, LoadedScenario]


def default_reference() -> Path:
    """The reference set shipped with the package (written and coded by the medeval team)."""
    return Path(str(files("medeval").joinpath("data", "reference", DEFAULT_REFERENCE)))


def load_scenarios(extra: list[Path]) -> dict[str, LoadedScenario]:
    """The bundled scenarios by id, with any --scenario files added (a given file wins)."""
    out: dict[str, LoadedScenario] = {}
    for path in [*expand_paths([season_dir()]), *expand_paths(extra)]:
        scenario, problems = scenario_problems(path)
        if scenario is None or problems:
            if path in extra or any(path.is_relative_to(p) for p in extra if p.is_dir()):
                raise UserError(problems[0], lines=problems)
            continue
        out[scenario.scenario_id] = LoadedScenario(scenario=scenario, path=path, sha256=sha256_file(path))
    return out


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _one(raw: Any, number: int, scenarios: dict[str, LoadedScenario], where: str) -> ReferenceAnswer | str:
    """A reference answer, or the one line that says what is wrong with this line."""
    at = f"{where} line {number}"
    if not isinstance(raw, dict):
        return f'{at}: not a JSON object; write one answer per line as {{"id": ..., "answer": ...}}'
    missing = [
        k for k in ("id", "scenario_id", "question_group", "answer", "category") if raw.get(k) in (None, "")
    ]
    if missing:
        return (
            f"{at}: missing {', '.join(missing)}; every line needs id, scenario_id, question_group, "
            "answer and category"
        )
    ident = str(raw["id"])
    loaded = scenarios.get(str(raw["scenario_id"]))
    if loaded is None:
        return (
            f"{at} ({ident}): unknown scenario {raw['scenario_id']!r}; name a bundled scenario "
            "or pass its file with --scenario PATH"
        )
    groups = list(loaded.scenario.groups())
    group = normalise_group(raw["question_group"], groups)
    if group is None:
        return (
            f"{at} ({ident}): scenario {loaded.scenario.scenario_id} has no question group "
            f"{raw['question_group']!r}; use one of {', '.join(groups)}"
        )
    category = parse_category(raw["category"])
    if category is None:
        return f"{at} ({ident}): {raw['category']!r} is not a category; use {ACCEPTED}"
    answer = raw["answer"]
    if not isinstance(answer, str):
        return f"{at} ({ident}): answer must be text"
    codes: dict[str, ItemCode] = {}
    raw_codes = raw.get("item_codes") or {}
    if not isinstance(raw_codes, dict):
        return f"{at} ({ident}): item_codes must be an object {{fact_id: covered|contradicted|absent}}"
    known = loaded.scenario.key_ids()
    for fact_id, value in raw_codes.items():
        code = parse_item_code(value)
        if fact_id not in known:
            return (
                f"{at} ({ident}): item_codes names {fact_id!r}, which is not in "
                f"{loaded.scenario.scenario_id}'s key"
            )
        if code is None:
            return f"{at} ({ident}): item_codes[{fact_id}] is {value!r}; use one of {', '.join(ITEM_CODES)}"
        codes[fact_id] = code
    question = _text(raw.get("question")) or loaded.scenario.groups()[group][0].user_message
    return ReferenceAnswer(
        id=ident,
        scenario_id=loaded.scenario.scenario_id,
        question_group=group,
        question=question,
        answer=answer,
        category=category,
        rationale=str(raw.get("rationale") or ""),
        item_codes=codes,
        coder=_text(raw.get("coder")),
        style=_text(raw.get("style")),
        target=_text(raw.get("target")),
        line=number,
    )


def load_reference(path: Path, scenarios: dict[str, LoadedScenario]) -> ReferenceSet:
    text = read_user_text(path, limit=REFERENCE_MAX_BYTES, what="reference set (JSONL)", encoding="utf-8-sig")
    lines = text.splitlines()
    answers: list[ReferenceAnswer] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            raw = json.loads(text)
        except ValueError as error:
            problems.append(f"{path} line {number}: not JSON ({error.args[0] if error.args else error})")
            continue
        result = _one(raw, number, scenarios, str(path))
        if isinstance(result, str):
            problems.append(result)
        elif result.id in seen:
            problems.append(
                f"{path} line {number}: id {result.id!r} is already used on line {seen[result.id]}"
            )
        else:
            seen[result.id] = number
            answers.append(result)
    if problems:
        raise UserError(problems[0], lines=problems)
    if not answers:
        raise UserError(f"{path}: holds no answer; write one JSON object per line")
    return ReferenceSet(path=path, sha256=sha256_file(path), answers=answers, scenarios=scenarios)
