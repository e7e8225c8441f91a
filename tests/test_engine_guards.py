"""Guards around resume and verify: damage is refused or reported, never hidden or a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run
from medeval.errors import ConfigError
from medeval.records.audit import verify_run

from .conftest import SCENARIOS, medeval


def small_run(out: Path) -> Path:
    config = RunConfig(
        scenarios=[SCENARIOS / "scenario_001.json"], targets=["fake:accurate", "fake:refusal"], out=out
    )
    return run(config).store.directory


def test_resume_refuses_a_run_whose_last_record_was_deleted(tmp_path: Path) -> None:
    run_dir = small_run(tmp_path)
    results = run_dir / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    results.write_text("".join(lines[:-1]))
    config = RunConfig(
        scenarios=[SCENARIOS / "scenario_001.json"], targets=["fake:accurate", "fake:refusal"], out=tmp_path
    )
    with pytest.raises(ConfigError, match=r"cannot resume .*truncated"):
        run(config, resume=run_dir)
    # Nothing was appended: the damage stays visible to verify.
    assert results.read_text() == "".join(lines[:-1])
    assert any("truncated" in f.message for f in verify_run(run_dir))


def test_resume_refuses_a_run_whose_manifest_changed(tmp_path: Path) -> None:
    run_dir = small_run(tmp_path)
    manifest = run_dir / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"seed": 42', '"seed": 43'))
    done = medeval("run", "--resume", str(run_dir), "-q", cwd=tmp_path)
    assert done.returncode == 2
    assert "cannot resume" in done.stderr and "manifest.json" in done.stderr
    assert "Traceback" not in done.stderr


def test_verify_reports_a_corrupt_checkpoint_and_manifest_without_crashing(tmp_path: Path) -> None:
    run_dir = small_run(tmp_path)
    (run_dir / "checkpoint.json").write_text("{not json")
    findings = verify_run(run_dir)
    assert any(f.file == "checkpoint.json" and f.message.startswith("not JSON") for f in findings)
    (run_dir / "manifest.json").write_text("[]")
    assert [str(f) for f in verify_run(run_dir)] == ["error: manifest.json: not a JSON object"]
    done = medeval("verify", str(run_dir), cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr


def test_verify_on_a_directory_that_is_no_run_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for target in ("empty", "missing"):
        done = medeval("verify", target, cwd=tmp_path)
        assert done.returncode == 2
        assert (
            done.stderr.strip()
            == f"error: {target} is not a run directory; pass a directory made by medeval run"
        )


def test_an_unwritable_out_is_one_line_before_any_call(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("not a folder")
    done = medeval(
        "run",
        "-s",
        str(SCENARIOS / "scenario_001.json"),
        "-t",
        "fake:accurate",
        "--out",
        "afile",
        cwd=tmp_path,
    )
    assert done.returncode == 2
    [line] = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert "cannot create a run directory in afile" in line and "--out" in line
    assert "Traceback" not in done.stderr
