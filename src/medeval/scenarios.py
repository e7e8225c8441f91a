"""Loading scenario files, with one clear line per problem (file, JSON path, reason)."""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from pydantic import ValidationError

from medeval.errors import ScenarioError
from medeval.hashing import sha256_file
from medeval.schemas import Scenario, upgrade_scenario_data


def json_path(loc: tuple[int | str, ...]) -> str:
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def scenario_problems(path: Path) -> tuple[Scenario | None, list[str]]:
    """The scenario, or None, and every problem as "file: $.json.path: reason"."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        return None, [f"{path}: cannot read file ({error.strerror or error})"]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, [f"{path}: line {error.lineno} column {error.colno}: invalid JSON ({error.msg})"]
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as error:
        lines = []
        for item in error.errors():
            reason = item["msg"]
            if item["type"] == "extra_forbidden":
                reason = "unknown field (check the spelling; see docs/scenario-authoring.md)"
            elif item["type"] == "missing":
                reason = "required field is missing"
            lines.append(f"{path}: {json_path(tuple(item['loc']))}: {reason}")
        return None, lines
    problems = [
        f"{path}: {json_path(())}.{where}: {reason}" for where, reason in scenario.reference_problems()
    ]
    return scenario, problems


def load_scenario(path: Path) -> Scenario:
    scenario, problems = scenario_problems(path)
    if problems or scenario is None:
        raise ScenarioError(problems[0], lines=problems)
    return scenario


def scenario_sha256(path: Path) -> str:
    return sha256_file(path)


def expand_paths(paths: list[Path]) -> list[Path]:
    """Files as given; directories expand to the JSON files under them, sorted."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out.extend(sorted(p for p in path.rglob("*.json") if p.is_file()))
        else:
            out.append(path)
    return out


def bundled_scenarios_dir() -> Path:
    """The scenario library shipped inside the package (the repository's scenarios/ links to it)."""
    return Path(str(files("medeval").joinpath("scenarios")))


def upgrade_scenario_file(path: Path, *, in_place: bool = False) -> tuple[Path, Path | None] | None:
    """Rewrite an old flat-format scenario in the specification's shape: beside it as
    NAME.upgraded.json, or in place keeping NAME.json.bak. None when the file is already canonical.
    Returns (written file, backup or None)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ScenarioError(f"{path}: cannot upgrade: not a readable JSON scenario ({error})") from None
    upgraded = upgrade_scenario_data(data)
    if upgraded is data:
        return None
    text = json.dumps(upgraded, ensure_ascii=False, indent=2) + "\n"
    try:
        if in_place:
            backup = path.with_name(path.name + ".bak")
            backup.write_bytes(path.read_bytes())
            path.write_text(text, encoding="utf-8")
            return path, backup
        target = path.with_name(f"{path.stem}.upgraded.json")
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        raise ScenarioError(f"{path}: cannot write the upgraded file ({error.strerror or error})") from None
    return target, None
