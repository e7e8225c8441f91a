"""Bounded input wherever a user names a file: a device, a folder, an oversized or deeply nested file
and a study's prompt outside its folder each get one line and a non-zero exit, never a traceback or
an endless read; and `validate` refuses every file `run` refuses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from medeval.records.user_files import SCENARIO_MAX_BYTES
from medeval.review.importing import MAX_NOTE_CHARS
from tests.conftest import SCENARIOS
from tests.review_support import cli, codes_file, make_demo_run, read_csv

Cli = tuple[pytest.MonkeyPatch, pytest.CaptureFixture[str]]


@pytest.fixture
def medeval(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    return monkeypatch, capsys


def refused(medeval: Cli, *args: str) -> str:
    """The command fails with exit 2 and one error line (no traceback); returns that line."""
    code, out, err = cli(*medeval, *args)
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("For research use")]
    assert code == 2, (code, out, err)
    assert "Traceback" not in err + out
    assert len(lines) == 1, lines
    return lines[0]


def long_scenario(path: Path, turns: int) -> Path:
    data = json.loads((SCENARIOS / "scenario_001.json").read_text(encoding="utf-8"))
    first = data["scripted_turns"][0]
    data["scripted_turns"] = [{**first, "turn_id": f"Q{n}"} for n in range(1, turns + 1)]
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_device_a_folder_and_an_oversized_file_are_refused_in_one_line(
    medeval: Cli, tmp_path: Path
) -> None:
    for command in (("validate",), ("run", "-t", "fake:accurate", "--out", str(tmp_path / "runs"), "-s")):
        assert "not a regular file" in refused(medeval, *command, "/dev/zero")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (SCENARIO_MAX_BYTES + 1))
    line = refused(medeval, "validate", str(big))
    assert "over the 4.0 MB limit for a scenario file" in line
    assert "more than 5,000 folders" in refused(medeval, "validate", "/")
    assert not (tmp_path / "runs").exists()


def test_nested_toml_and_a_prompt_outside_the_study_folder_are_refused(medeval: Cli, tmp_path: Path) -> None:
    nested = tmp_path / "nested.toml"
    nested.write_text("a = " + "[" * 50_000 + "]" * 50_000 + "\n", encoding="utf-8")
    assert "nested too deeply" in refused(medeval, "validate", "--study", str(nested))
    assert "nested too deeply" in refused(medeval, "run", "--study", str(nested))

    folder = tmp_path / "study"
    folder.mkdir()
    shutil.copy(SCENARIOS / "scenario_001.json", folder / "scenario.json")
    (tmp_path / "secret.txt").write_text("not for the target\n", encoding="utf-8")
    for prompt in ("/etc/passwd", "../secret.txt"):
        study = folder / "study.toml"
        study.write_text(
            'name = "s"\n[scenarios]\npaths = ["scenario.json"]\n'
            f'[defaults]\nsystem_prompt = "{prompt}"\n'
            '[[targets]]\nspec = "fake:accurate"\n[judging]\njudges = ["rules"]\n',
            encoding="utf-8",
        )
        for command in (("validate", "--study"), ("run", "--study")):
            assert "outside the study file's folder" in refused(medeval, *command, str(study))
    assert not (folder / "runs").exists() and not Path("runs").exists()


def test_validate_refuses_the_scenarios_and_studies_run_refuses(medeval: Cli, tmp_path: Path) -> None:
    for turns in (500, 10_000):
        path = long_scenario(tmp_path / f"long{turns}.json", turns)
        assert f"{turns} turns" in refused(medeval, "validate", str(path))
        assert f"{turns} turns" in refused(medeval, "run", "-s", str(path), "-t", "fake:accurate")
    folder = tmp_path / "study"
    folder.mkdir()
    long_scenario(folder / "long.json", 500)
    study = folder / "study.toml"
    study.write_text(
        'name = "s"\n[scenarios]\npaths = ["long.json"]\n[[targets]]\nspec = "fake:accurate"\n'
        '[judging]\njudges = ["rules"]\n',
        encoding="utf-8",
    )
    assert "500 turns" in refused(medeval, "validate", "--study", str(study))
    assert "500 turns" in refused(medeval, "run", "--study", str(study))


def test_a_huge_coder_note_is_refused_and_nothing_is_written(medeval: Cli, tmp_path: Path) -> None:
    run_dir = make_demo_run(tmp_path / "runs")
    assert cli(*medeval, "review", "export", str(run_dir), "--sample", "0.1")[0] == 0
    [sheet] = (run_dir / "review").glob("*.csv")
    row = read_csv(sheet)[0]
    entry = {"item_id": row["item_id"], "item_hash": row["item_hash"], "category": "incorrect"}
    for size, expected in ((20_000_000, "limit for a codes file"), (MAX_NOTE_CHARS + 1, "MAX_NOTE_CHARS")):
        path = codes_file(tmp_path / f"codes{size}.json", row["run_id"], [{**entry, "note": "x" * size}])
        assert expected in refused(medeval, "review", "import", str(run_dir), str(path), "--coder", "alice")
    assert not (run_dir / "reviews.jsonl").exists()


def test_validate_refuses_a_study_over_its_budget_as_run_does(
    medeval: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")  # run checks keys first; no call is made
    folder = tmp_path / "study"
    folder.mkdir()
    shutil.copy(SCENARIOS / "scenario_001.json", folder / "scenario.json")
    study = folder / "study.toml"
    study.write_text(
        'name = "s"\nmax_cost = 0.000001\n[scenarios]\npaths = ["scenario.json"]\n'
        '[[targets]]\nspec = "openai:gpt-4.1"\n[judging]\njudges = ["rules"]\n',
        encoding="utf-8",
    )
    for command in (("validate", "--study"), ("run", "--study")):
        assert "exceeds --max-cost" in refused(medeval, *command, str(study))
