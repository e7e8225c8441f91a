"""`medeval verify`: passes on a clean run; names the record in runs that were edited, truncated,
had a line deleted, or whose manifest, prompts or scenarios changed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medeval.cli import app
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run
from medeval.records.audit import Finding, verify_run
from medeval.records.storage import CALLS, MANIFEST, RESULTS, RunStore
from tests.engine_support import FOLLOWUP, SCENARIO_001


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    # Copies of the scenarios, so a test may edit one without touching the repository's.
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    for source in (SCENARIO_001, FOLLOWUP):
        shutil.copy(source, scenarios / source.name)
    config = RunConfig(
        scenarios=[scenarios], targets=["fake:accurate", "fake:outdated"], epochs=2, out=tmp_path / "runs"
    )
    return run(config).store.directory


def errors(run_dir: Path) -> list[Finding]:
    return [f for f in verify_run(run_dir) if f.severity == "error"]


def rewrite_line(path: Path, number: int, change: dict[str, object] | None) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    if change is None:
        del lines[number - 1]
    else:
        record = json.loads(lines[number - 1])
        record.update(change)
        lines[number - 1] = json.dumps(record) + "\n"
    path.write_text("".join(lines), encoding="utf-8")


def test_clean_run_verifies(run_dir: Path) -> None:
    findings = verify_run(run_dir)
    assert [f.severity for f in findings] == ["ok"]
    assert "8 trial records" in findings[0].message


def test_edited_record_is_named_by_file_and_line(run_dir: Path) -> None:
    rewrite_line(run_dir / RESULTS, 3, {"status": "scored", "disagreement_rate": 0.0, "seed": 1})
    (found,) = errors(run_dir)
    assert (found.file, found.line) == (RESULTS, 3)
    assert "changed" in found.message


def test_deleted_middle_line_breaks_the_chain(run_dir: Path) -> None:
    rewrite_line(run_dir / CALLS, 2, None)
    (found,) = errors(run_dir)
    assert (found.file, found.line) == (CALLS, 2)
    assert "deleted" in found.message


def test_deleted_last_line_is_detected_as_truncation(run_dir: Path) -> None:
    lines = (run_dir / RESULTS).read_text(encoding="utf-8").splitlines()
    rewrite_line(run_dir / RESULTS, len(lines), None)
    (found,) = errors(run_dir)
    assert found.file == RESULTS
    assert "truncated" in found.message and "1 deleted" in found.message


def test_cut_off_file_is_detected(run_dir: Path) -> None:
    data = (run_dir / CALLS).read_bytes()
    (run_dir / CALLS).write_bytes(data[: len(data) // 2])
    found = errors(run_dir)
    assert [f.file for f in found] == [CALLS]
    assert "truncated" in found[0].message


def test_torn_final_line_from_a_kill_is_a_warning_and_the_writer_continues(run_dir: Path) -> None:
    with (run_dir / RESULTS).open("a", encoding="utf-8") as handle:
        handle.write('{"trial_id": "half a rec')
    with pytest.warns(UserWarning, match="torn"):
        assert len(list(RunStore.open(run_dir).trials())) == 8
    assert errors(run_dir) == []
    # A resumed writer starts on a fresh line and the chain continues across the torn one.
    store = RunStore.open(run_dir)
    store.append_trial({"note": "appended after the tear"})
    store.write_checkpoint()
    assert errors(run_dir) == []
    warnings = [f for f in verify_run(run_dir) if f.severity == "warning"]
    assert [(f.file, f.line) for f in warnings] == [(RESULTS, 9)]


def test_changed_manifest_scenario_and_prompt_hash_are_reported(run_dir: Path) -> None:
    manifest = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))
    scenario = Path(manifest["scenarios"][0]["path"])
    edited = scenario.read_text(encoding="utf-8").replace("Medicare", "Medicaid", 1)
    scenario.write_text(edited, encoding="utf-8")
    assert any("changed since the run" in f.message for f in errors(run_dir))

    manifest["prompts"]["verifier"] = "0" * 64
    (run_dir / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    messages = [f.message for f in errors(run_dir)]
    assert any("prompt 'verifier' differs" in m for m in messages)
    assert any(m == "changed since the run started" for m in messages)


def test_verify_command_exit_codes(run_dir: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["verify", str(run_dir)]).exit_code == 0
    rewrite_line(run_dir / RESULTS, 1, {"seed": 99})
    failed = runner.invoke(app, ["verify", str(run_dir)])
    assert failed.exit_code == 1
    assert f"{RESULTS}:1" in failed.output
