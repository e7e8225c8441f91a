"""One writer per run directory, and runs that stay resumable whatever stopped them: a held lock,
a stop before the first trial, a line torn inside a multi-byte character, a live run under
`verify`, and a write that fails part-way (a full disk)."""

from __future__ import annotations

import asyncio
import os
import re
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import execute, resume_config, run
from medeval.errors import UserError
from medeval.records import audit
from medeval.records.audit import verify_run
from medeval.records.storage import (
    CALLS,
    CHECKPOINT,
    LOCK,
    RESULTS,
    RunStore,
    TornLineWarning,
    run_lock,
    without_chain,
)
from medeval.reporting.build import build_report
from tests.conftest import medeval
from tests.engine_support import FOLLOWUP, SCENARIO_001, strict_lines


def fake_config(out: Path, **overrides: object) -> RunConfig:
    values: dict[str, object] = {
        "scenarios": [SCENARIO_001, FOLLOWUP],
        "targets": ["fake:accurate", "fake:outdated"],
        "out": out,
        **overrides,
    }
    return RunConfig.model_validate(values)


def test_a_second_writer_is_refused_with_the_holders_pid(tmp_path: Path) -> None:
    run_dir = run(fake_config(tmp_path / "runs", max_cost=0)).store.directory
    before = (run_dir / CALLS).read_bytes() if (run_dir / CALLS).exists() else b""
    with run_lock(run_dir):
        resumed = medeval("run", "--resume", str(run_dir), "--quiet", cwd=tmp_path)
        rescored = medeval("rescore", str(run_dir), "-j", "rules", cwd=tmp_path)
    for done in (resumed, rescored):
        assert done.returncode == 2
        lines = done.stderr.strip().splitlines()
        assert lines[-1].startswith("error: cannot ")
        assert f"process {os.getpid()} is writing to it" in lines[-1]
        assert "Traceback" not in done.stderr
    assert not (run_dir / RESULTS).exists()
    assert ((run_dir / CALLS).read_bytes() if (run_dir / CALLS).exists() else b"") == before
    # Released with the holder: the same resume now runs every trial.
    run(resume_config(run_dir).model_copy(update={"max_cost": None}), resume=run_dir)
    assert len(strict_lines(run_dir / RESULTS)) == 4


def test_the_lock_is_held_for_the_whole_run(tmp_path: Path) -> None:
    seen: list[str] = []

    def try_second_writer(directory: Path) -> None:
        with pytest.raises(UserError, match="is writing to it") as refused, run_lock(directory):
            pass
        seen.append(str(refused.value))

    asyncio.run(execute(fake_config(tmp_path / "runs"), on_store=try_second_writer))
    assert len(seen) == 1 and str(os.getpid()) in seen[0]
    assert len(list((tmp_path / "runs").glob(f"*/{LOCK}"))) == 1


def test_a_run_stopped_before_its_first_trial_resumes(tmp_path: Path) -> None:
    def interrupt(directory: Path) -> None:
        raise KeyboardInterrupt  # Ctrl-C just after the manifest, before any trial

    with pytest.raises(KeyboardInterrupt):
        asyncio.run(execute(fake_config(tmp_path / "runs"), on_store=interrupt))
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert not (run_dir / RESULTS).exists()
    assert not [f for f in verify_run(run_dir) if f.severity == "error"]
    resumed = run(resume_config(run_dir), resume=run_dir)
    assert len(resumed.records) == 4
    assert [f.severity for f in verify_run(run_dir)] == ["ok"]


def test_a_run_stopped_at_max_cost_zero_resumes(tmp_path: Path) -> None:
    stopped = run(fake_config(tmp_path / "runs", max_cost=0))
    assert stopped.outcome == "max_cost" and not stopped.records
    run_dir = stopped.store.directory
    resumed = run(resume_config(run_dir).model_copy(update={"max_cost": None}), resume=run_dir)
    assert len(resumed.records) == 4


def test_a_line_torn_inside_a_multibyte_character_is_a_torn_line(tmp_path: Path) -> None:
    run_dir = run(fake_config(tmp_path / "runs")).store.directory
    whole = '{"trial_id": "x", "text": "Medicare’s café"}'.encode()
    torn = whole[: whole.index("’".encode()) + 1]  # cut after the first byte of a three-byte character
    with (run_dir / RESULTS).open("ab") as handle:
        handle.write(torn)
    with (run_dir / CALLS).open("ab") as handle:
        handle.write(torn)

    findings = verify_run(run_dir)
    assert not [f for f in findings if f.severity == "error"], findings
    assert {(f.file, "torn final line" in f.message) for f in findings if f.severity == "warning"} == {
        (RESULTS, True),
        (CALLS, True),
    }
    with pytest.warns(TornLineWarning):
        assert len(list(RunStore(run_dir).trials())) == 4
    with pytest.warns(TornLineWarning):
        paths = build_report([run_dir], tmp_path / "report")
    assert paths.markdown.is_file()
    resumed = run(resume_config(run_dir).model_copy(update={"epochs": 2}), resume=run_dir)
    assert len(resumed.records) == 4
    assert [f.severity for f in verify_run(run_dir)] == ["warning", "warning", "ok"]


def test_verify_reads_the_checkpoint_before_the_chains_of_a_live_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = run(fake_config(tmp_path / "runs")).store.directory
    store = RunStore(run_dir)
    original = audit.check_chain

    def chain_while_the_run_goes_on(path: Path, findings: list[audit.Finding]) -> audit.ChainState:
        if path.name == RESULTS:
            # The live run appends a trial and moves its checkpoint while verify is reading.
            store.append_trial(without_chain(next(iter(store.trials()))) | {"trial_id": "live"})
            store.write_checkpoint()
        return original(path, findings)

    monkeypatch.setattr(audit, "check_chain", chain_while_the_run_goes_on)
    assert [f.severity for f in verify_run(run_dir)] == ["ok"]


def test_a_missing_checkpoint_with_records_is_still_an_error(tmp_path: Path) -> None:
    run_dir = run(fake_config(tmp_path / "runs")).store.directory
    (run_dir / CHECKPOINT).unlink()
    assert [f.message for f in verify_run(run_dir) if f.severity == "error"] == [
        "missing: truncation cannot be ruled out"
    ]


def _limit_file_size() -> None:
    # Every file this process writes stops at 64 KiB: the calls file fills up first, like a disk.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


def test_a_failed_write_stops_the_run_cleanly_and_it_resumes(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    command = [
        sys.executable, "-m", "medeval", "run", "--quiet", "-s", str(SCENARIO_001), "-s", str(FOLLOWUP),
        "-t", "fake:accurate", "-t", "fake:outdated", "--epochs", "6", "--out", str(out),
        "--max-concurrency", "8",  # some trials finish before the calls file fills up
    ]  # fmt: skip
    done = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=120, preexec_fn=_limit_file_size
    )
    (run_dir,) = out.iterdir()
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert re.match(
        rf"error: stopped: cannot write {run_dir}/(results|calls)\.jsonl \(File too large\); ", last
    )
    assert f"continue with: medeval run --resume {run_dir}" in last
    assert not list(run_dir.glob("*.tmp"))
    written = int(last.split("; ")[1].split()[0])
    assert 0 < written < 24
    assert len(list(RunStore(run_dir).trials())) == written
    # Nothing half-recorded: the run verifies (a torn last call line at most) and resumes.
    assert not [f for f in verify_run(run_dir) if f.severity == "error"]
    resumed = run(resume_config(run_dir), resume=run_dir)
    assert written + len(resumed.records) == 24
    trials = list(RunStore(run_dir).trials())
    assert len({t["trial_key"] for t in trials}) == len(trials) == 24
