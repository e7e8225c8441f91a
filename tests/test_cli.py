"""The command line end to end, in subprocesses, as a user would run it."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from medeval.records.storage import read_jsonl
from medeval.schemas import TrialRecord

from .conftest import REPO, SCENARIOS, medeval, only_run
from .test_pipeline import stable


def test_specification_command_line_works_verbatim_and_reproduces(tmp_path: Path) -> None:
    # The specification's line, from a directory laid out like the repository root.
    (tmp_path / "src").symlink_to(REPO / "src")
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")
    command = [
        sys.executable,
        "-m",
        "src.orchestrator",
        "run",
        "--scenario",
        "scenarios/v1/scenario_001.json",
        "--target",
        "fake:accurate",
        "--judges",
        "2",
        "--seed",
        "42",
    ]
    runs = []
    for _ in range(2):
        before = set((tmp_path / "runs").iterdir()) if (tmp_path / "runs").exists() else set()
        done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        assert "research use only" in done.stderr.lower()
        assert "fake:accurate" in done.stdout
        [latest] = set((tmp_path / "runs").iterdir()) - before
        runs.append([stable(r) for r in read_jsonl(latest / "results.jsonl")])
    assert len(list((tmp_path / "runs").iterdir())) == 2
    assert runs[0] == runs[1]
    assert runs[0][0]["final_scores"]["completeness"] == 1.0


def test_run_writes_a_valid_run_directory(tmp_path: Path) -> None:
    done = medeval(
        "run",
        "-s",
        str(SCENARIOS / "scenario_001.json"),
        "-t",
        "fake:incomplete",
        "--out",
        "out",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    directory = only_run(tmp_path / "out")
    assert {p.name for p in directory.iterdir()} >= {"manifest.json", "results.jsonl", "calls.jsonl"}
    for line in read_jsonl(directory / "results.jsonl"):
        TrialRecord.model_validate({k: v for k, v in line.items() if k not in {"hash", "prev_hash"}})
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["config"]["targets"] == ["fake:incomplete"]
    assert manifest["config"]["judge_count"] == 2


def test_scenario_with_three_mistakes_gives_three_lines_and_exit_2(tmp_path: Path) -> None:
    scenario = json.loads((SCENARIOS / "scenario_001.json").read_text())
    scenario["effective_date"] = "someday"  # 1: not a date
    scenario["answer_key"]["canonical_facts"][0]["severity_if_wrong"] = "catastrophic"  # 2: not a severity
    scenario["scripted_turns"][0]["txt"] = scenario["scripted_turns"][0].pop(
        "user_message"
    )  # 3: typo'd field name
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(scenario))
    done = medeval("run", "-s", str(bad), "-t", "fake:accurate", "--out", "out", cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 4, done.stderr  # the renamed field is both missing and unknown
    assert any("$.effective_date" in e for e in errors)
    assert any("$.answer_key.canonical_facts[0].severity_if_wrong" in e for e in errors)
    assert any("$.scripted_turns[0].txt: unknown field" in e for e in errors)
    assert any("$.scripted_turns[0].user_message: required field is missing" in e for e in errors)
    assert all(str(bad) in e for e in errors)
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_invalid_json_is_one_line_with_its_position(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('{"scenario_id": "x",\n  "title": }')
    done = medeval("validate", str(bad), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: {bad}: line 2 column 12: invalid JSON (Expecting value)"
    ]


def test_unknown_provider_and_profile_are_one_line_errors(tmp_path: Path) -> None:
    scenario = str(SCENARIOS / "scenario_001.json")
    for target, expected in [
        ("nosuch:model", "unknown provider 'nosuch'"),
        ("fake:nosuch", "unknown fake profile 'nosuch'"),
        ("gpt-4.1", "is not of the form provider:model"),
    ]:
        done = medeval("run", "-s", scenario, "-t", target, "--out", "out", cwd=tmp_path)
        assert done.returncode == 2, target
        errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and expected in errors[0], done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_judge_equal_to_target_is_refused(tmp_path: Path) -> None:
    done = medeval(
        "run",
        "-s",
        str(SCENARIOS / "scenario_001.json"),
        "-t",
        "fake:judge",
        "-j",
        "fake:judge",
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "may not judge its own answers" in done.stderr


def test_demo_prints_the_summary(tmp_path: Path) -> None:
    done = medeval("demo", "--out", "runs", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for profile in ("fake:accurate", "fake:incomplete", "fake:outdated", "fake:invented", "fake:refusal"):
        assert profile in done.stdout
    assert "run directory:" in done.stdout


def test_unreadable_env_file_is_one_line_error(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"OPENAI_API_KEY=\xff\xfe\n")
    # `version` answers before anything reads .env (start-up); a command that may need a key reads it.
    done = medeval("models", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and ".env: cannot read it as UTF-8 text" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_env_file_supplies_keys_without_overriding_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # wide enough for the providers table to stay a table
    (tmp_path / ".env").write_text("OPENAI_API_KEY=from-dotenv\n")
    done = medeval("models", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    openai_row = next(line for line in done.stdout.splitlines() if line.startswith("│ openai "))
    assert "missing" not in openai_row
    assert "from-dotenv" not in done.stdout  # presence only, never the value


def test_a_panel_of_one_model_warns_once_about_correlated_errors(tmp_path: Path) -> None:
    scenario = str(SCENARIOS / "scenario_001.json")
    same = medeval(
        "run", "-s", scenario, "-t", "fake:accurate", "-j", "fake:judge", "--out", "a", cwd=tmp_path
    )
    assert same.returncode == 0, same.stderr
    assert (
        same.stderr.count("all 2 verifiers are fake:judge with one setting: their errors are correlated") == 1
    )
    # Two different judges, or the rules coder (reported as copies instead), do not warn.
    for judges in (["-j", "fake:judge", "-j", "fake:flaky"], []):
        done = medeval("run", "-s", scenario, "-t", "fake:accurate", *judges, "--out", "b", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "correlated" not in done.stderr


def test_judges_that_fail_code_every_group_not_scored_never_not_substantive(tmp_path: Path) -> None:
    # A perfect chatbot judged by judges that never return valid JSON: nothing is counted against it.
    done = medeval(
        "run",
        "-s",
        str(SCENARIOS / "ship_medicare_only.json"),
        "-t",
        "fake:accurate",
        "-j",
        "fake:garbage",
        "--out",
        "out",
        cwd=tmp_path,
    )
    assert "Traceback" not in done.stderr
    assert "Left out of the four SHIP categories: 13 question group(s) not scored" in done.stdout
    run_dir = only_run(tmp_path / "out")
    records = [
        TrialRecord.model_validate({k: v for k, v in r.items() if k not in {"hash", "prev_hash"}})
        for r in read_jsonl(run_dir / "results.jsonl")
    ]
    scored = [g for r in records for g in r.groups if g.scored]
    assert len(scored) == 13 and {g.ship_category.value for g in scored} == {"not_scored"}
    assert all(g.reason for g in scored)
    assert medeval("report", str(run_dir), cwd=tmp_path).returncode == 0
    with (run_dir / "report" / "ship_table.csv").open(encoding="utf-8") as handle:
        ai = [
            row for row in csv.DictReader(handle) if row["source"] == "ai" and row["question_group"] != "ALL"
        ]
    assert len(ai) == 13
    for row in ai:
        assert (row["n"], row["not_substantive"], row["not_scored"], row["needs_review"]) == (
            "0",
            "0",
            "1",
            "0",
        )
    markdown = (run_dir / "report" / "report.md").read_text(encoding="utf-8")
    assert "| Needs review | Not scored |" in markdown
