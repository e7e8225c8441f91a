"""Loading scenario files, with one clear line per problem (file, JSON path, reason)."""

from __future__ import annotations

import json
import os
from importlib.resources import files
from pathlib import Path

from pydantic import ValidationError

from medeval.errors import ScenarioError, UserError
from medeval.records.hashing import sha256_file
from medeval.records.user_files import SCENARIO_MAX_BYTES, read_user_text
from medeval.schemas import Scenario, upgrade_scenario_data


def json_path(loc: tuple[int | str, ...]) -> str:
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


#: Scripted turns one scenario may have: the longest SHIP script has 17; a 500-turn scenario is a
#: mistake, and every turn resends the whole history to the target.
MAX_SCENARIO_TURNS = 100
#: Folders and JSON files a directory walk looks at before it gives up: `-s /` must not walk the disk.
MAX_WALK_FOLDERS = 5_000
MAX_WALK_FILES = 5_000


def read_scenario_text(path: Path) -> str:
    """The file's text, bounded (records.user_files): a UserError for a device, a folder, a file
    over SCENARIO_MAX_BYTES or one that is not UTF-8."""
    return read_user_text(path, limit=SCENARIO_MAX_BYTES, what="scenario")


def turn_limit_problem(path: Path, turns: int) -> str | None:
    """The one limit `run` and `validate` both hold a scenario to beyond its schema."""
    if turns <= MAX_SCENARIO_TURNS:
        return None
    return (
        f"{path}: $.scripted_turns: {turns} turns; a scenario may have at most {MAX_SCENARIO_TURNS} "
        "(MAX_SCENARIO_TURNS): split it into several scenarios"
    )


def scenario_problems(path: Path) -> tuple[Scenario | None, list[str]]:
    """The scenario, or None, and every problem as "file: $.json.path: reason"."""
    try:
        text = read_scenario_text(path)
    except UserError as error:
        return None, [str(error)]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, [f"{path}: line {error.lineno} column {error.colno}: invalid JSON ({error.msg})"]
    except RecursionError:
        return None, [f"{path}: nested too deeply to be a scenario; check the file is the scenario you meant"]
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
    too_long = turn_limit_problem(path, len(scenario.scripted_turns))
    if too_long:
        problems.append(too_long)
    return scenario, problems


def load_scenario(path: Path) -> Scenario:
    scenario, problems = scenario_problems(path)
    if problems or scenario is None:
        raise ScenarioError(problems[0], lines=problems)
    return scenario


def scenario_sha256(path: Path) -> str:
    return sha256_file(path)


def expand_paths(paths: list[Path]) -> list[Path]:
    """Files as given; directories expand to the scenario files under them, sorted. A directory
    walk skips hidden and virtualenv folders and JSON files that are plainly something else (a
    JSON object with none of a scenario's top-level fields); a directory with no scenario file in
    it is an error, so `-s .` from the wrong folder says so instead of linting a virtualenv."""
    out: list[Path] = []
    for path in paths:
        if not path.is_dir():
            out.append(path)
            continue
        found = [p for p in _walk_json(path) if _may_be_scenario(p)]
        if not found:
            raise ScenarioError(
                f"{path}: no scenario files in this directory (hidden and virtualenv folders are "
                "skipped); pass a scenario file or a folder of them, e.g. scenarios/v1"
            )
        out.extend(found)
    return out


#: Folders a scenario walk never enters, besides hidden ones and virtualenvs (any with pyvenv.cfg).
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "site-packages"})
#: Top-level fields of which a scenario file has at least one (old and new shapes).
SCENARIO_FIELDS = frozenset({"scenario_id", "script", "scripted_turns", "canonical_facts"})


def _walk_json(directory: Path) -> list[Path]:
    found: list[Path] = []
    for visited, (root, folders, names) in enumerate(os.walk(directory), start=1):
        here = Path(root)
        folders[:] = sorted(
            f
            for f in folders
            if not f.startswith(".") and f not in SKIPPED_FOLDERS and not _is_virtualenv(here / f)
        )
        found.extend(here / n for n in sorted(names) if n.endswith(".json") and not n.startswith("."))
        if visited > MAX_WALK_FOLDERS or len(found) > MAX_WALK_FILES:
            raise ScenarioError(
                f"{directory}: more than {MAX_WALK_FOLDERS:,} folders or {MAX_WALK_FILES:,} JSON files "
                "under it; pass the folder that holds the scenarios, e.g. scenarios/v1"
            )
    return found


def _is_virtualenv(folder: Path) -> bool:
    try:
        return (folder / "pyvenv.cfg").exists()
    except OSError:  # a folder we may not look into is skipped
        return True


def _may_be_scenario(path: Path) -> bool:
    """False only for a readable JSON object with no scenario field (a manifest, a price table); a
    file that does not even parse is kept, so its author hears why."""
    try:
        data = json.loads(read_scenario_text(path))
    except (UserError, ValueError, RecursionError):
        return True
    return not isinstance(data, dict) or bool(SCENARIO_FIELDS & data.keys())


def bundled_scenarios_dir() -> Path:
    """The scenario library shipped inside the package (the repository's scenarios/ links to it),
    every season's keys; a run takes one season's (`season_dir`)."""
    return Path(str(files("medeval").joinpath("scenarios")))


#: The bundled seasons by plan year: each folder holds that plan year's keys under the same scenario
#: ids, so runs on two seasons compare group by group. A key is never edited in place: any change to
#: its content bumps its `version` (runs record each file's sha256 and version, so a result stays tied
#: to the key that scored it); a new season gets a new folder.
SEASONS: dict[str, str] = {"2026": "v1", "2027": "v2027"}
DEFAULT_SEASON = "2026"


def season_dir(season: str = DEFAULT_SEASON) -> Path:
    """The bundled keys of one plan year ("2026", "2027"; the folder name works too)."""
    folder = SEASONS.get(season, season)
    if folder not in SEASONS.values():
        known = ", ".join(SEASONS)
        raise ScenarioError(f"no bundled season {season!r}; bundled seasons: {known}")
    return bundled_scenarios_dir() / folder


def upgrade_scenario_file(path: Path, *, in_place: bool = False) -> tuple[Path, Path | None] | None:
    """Rewrite an old flat-format scenario in the specification's shape: beside it as
    NAME.upgraded.json, or in place keeping NAME.json.bak. None when the file is already canonical.
    Returns (written file, backup or None)."""
    try:
        data = json.loads(read_scenario_text(path))
    except (json.JSONDecodeError, RecursionError) as error:
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
