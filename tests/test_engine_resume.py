"""Crash and resume: a run killed with SIGKILL mid-run, then resumed, holds every trial exactly once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from medeval.cli import app
from medeval.engine.orchestrator import resume_config, run
from medeval.errors import ConfigError, UserError
from medeval.records.audit import verify_run
from medeval.records.storage import CALLS, RESULTS
from medeval.testing.loopback import LoopbackServer
from tests.engine_support import (
    FOLLOWUP,
    LOOP_JUDGE,
    LOOP_TARGET,
    SCENARIO_001,
    loop_config,
    point_at,
    strict_lines,
)

EPOCHS = 8
TRIALS = 2 * EPOCHS


def poll_until(ready: Callable[[], bool], process: subprocess.Popen[bytes]) -> None:
    """Poll until the run is visibly mid-way (bounded: 60 s); fail if it ended first."""
    deadline = time.monotonic() + 60
    while not ready():
        if process.poll() is not None:
            pytest.fail(f"the run ended before it could be killed (exit {process.returncode})")
        if time.monotonic() > deadline:
            pytest.fail("the run made no progress within 60 s")
        time.sleep(0.02)


def results_lines(out: Path) -> int:
    files = list(out.glob("*/" + RESULTS))
    return files[0].read_bytes().count(b"\n") if files else 0


def test_killed_run_resumes_with_every_trial_exactly_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "runs"
    with LoopbackServer(latency=0.01) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        command = [
            sys.executable, "-m", "medeval", "run", "--quiet",
            "-s", str(SCENARIO_001), "-s", str(FOLLOWUP),
            "-t", LOOP_TARGET, "-j", LOOP_JUDGE,
            "--epochs", str(EPOCHS), "--max-concurrency", "2", "--out", str(out),
        ]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            poll_until(lambda: results_lines(out) >= 3, process)
            os.kill(process.pid, signal.SIGKILL)
        finally:
            process.wait(timeout=30)
        run_dir = next(out.iterdir())
        assert process.returncode == -signal.SIGKILL
        written = len(strict_lines(run_dir / RESULTS))
        assert 3 <= written < TRIALS

        resumed = run(resume_config(run_dir), resume=run_dir)

    trials = strict_lines(run_dir / RESULTS)
    assert len(resumed.records) == TRIALS - written
    assert len(trials) == TRIALS
    assert len({t["trial_key"] for t in trials}) == TRIALS
    assert len({t["trial_id"] for t in trials}) == TRIALS
    assert {(t["scenario_id"], t["epoch"]) for t in trials} == {
        (s, e) for s in ("scenario_001", "employer_coverage_followup") for e in range(1, EPOCHS + 1)
    }
    strict_lines(run_dir / CALLS)  # every line parses
    assert [f for f in verify_run(run_dir) if f.severity == "error"] == []
    # Resuming a finished run does nothing.
    again = run(resume_config(run_dir), resume=run_dir)
    assert again.records == [] and len(strict_lines(run_dir / RESULTS)) == TRIALS


def test_resume_refuses_a_changed_scenario(tmp_path: Path) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_bytes(SCENARIO_001.read_bytes())
    first = run(
        loop_config(tmp_path / "runs", scenarios=[scenario], targets=["fake:accurate"], judges=["rules"])
    )
    scenario.write_text(
        scenario.read_text(encoding="utf-8").replace("Medicare", "Medicaid", 1), encoding="utf-8"
    )
    with pytest.raises(ConfigError, match="changed since the run started"):
        run(resume_config(first.store.directory), resume=first.store.directory)


def test_resume_of_a_missing_directory_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot resume"):
        resume_config(tmp_path / "nope")


def test_epochs_get_distinct_keys_and_seeds(tmp_path: Path) -> None:
    result = run(
        loop_config(tmp_path, scenarios=[SCENARIO_001], targets=["fake:accurate"], judges=["rules"], epochs=3)
    )
    assert sorted(r.epoch for r in result.records) == [1, 2, 3]
    assert len({r.trial_key for r in result.records}) == 3
    seeds = {
        c["request"]["seed"] for c in strict_lines(result.store.directory / CALLS) if c["role"] == "target"
    }
    assert len(seeds) == 3


def test_ctrl_c_keeps_what_was_written_and_names_the_resume_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "runs"
    with LoopbackServer(latency=0.01) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        command = [
            sys.executable, "-m", "medeval", "run", "--quiet", "-s", str(FOLLOWUP),
            "-t", LOOP_TARGET, "--epochs", str(TRIALS), "--max-concurrency", "2", "--out", str(out),
        ]  # fmt: skip
        process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            # A child of a non-interactive shell may inherit SIGINT ignored; restore the default.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        try:
            poll_until(lambda: results_lines(out) >= 3, process)
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
        run_dir = next(out.iterdir())
        assert process.returncode == 130
        last = stderr.decode().strip().splitlines()[-1]
        assert last == (
            f"interrupted: every trial already written stays in {run_dir}; "
            f"continue with: medeval run --resume {run_dir}"
        )
        assert json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))["outcome"] == "interrupted"
        run(resume_config(run_dir), resume=run_dir)
    trials = strict_lines(run_dir / RESULTS)
    assert len(trials) == len({t["trial_key"] for t in trials}) == TRIALS


def test_resume_on_the_command_line(tmp_path: Path) -> None:
    runner = CliRunner()
    first = run(loop_config(tmp_path / "runs", targets=["fake:accurate"], judges=["rules"]))
    run_dir = first.store.directory
    done = runner.invoke(app, ["run", "--resume", str(run_dir), "--quiet"])
    assert done.exit_code == 0, done.output
    assert len(strict_lines(run_dir / RESULTS)) == 2  # nothing run twice
    with pytest.raises(
        UserError, match="--resume takes scenarios, targets and judges from the run's manifest"
    ):
        runner.invoke(app, ["run", "--resume", str(run_dir), "-t", "fake:outdated"], catch_exceptions=False)
