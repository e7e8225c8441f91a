"""Failures a person can see: a refused key, an unknown model or no network end the run with one line
per distinct failure and a non-zero exit, stop further calls that would fail the same way, and
leave the failed trials for `--resume --retry-failed`."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from medeval.cli import engine as engine_cli
from medeval.engine.orchestrator import build_gateway, resume_config, run
from medeval.errors import EXIT_COMPLETE, EXIT_FAILED_TRIALS
from medeval.records.storage import RESULTS
from medeval.reporting.loading.run import Corpus
from medeval.testing.loopback import Fault, LoopbackServer
from tests.conftest import medeval
from tests.engine_support import (
    FOLLOWUP,
    LOOP_JUDGE,
    LOOP_TARGET,
    SCENARIO_001,
    instant,
    loop_config,
    only_run,
    point_at,
    strict_lines,
)

REFUSED = Fault.error(401, "Incorrect API key provided")


def test_a_401_stops_the_provider_exits_3_and_retry_failed_reruns_exactly_those_trials(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with LoopbackServer(faults=[REFUSED] * 50) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        done = medeval(
            "run", "-q", "-s", str(SCENARIO_001), "-s", str(FOLLOWUP), "-t", LOOP_TARGET, "-j", "rules",
            "--epochs", "3", "--max-concurrency", "1", "--out", "runs", cwd=tmp_path,
        )  # fmt: skip
        assert server.request_count == 1  # the first 401 stopped every later call to the provider
        server.clear()  # the key is fixed
        run_dir = only_run(tmp_path / "runs")
        assert done.returncode == EXIT_FAILED_TRIALS, done.stderr
        assert "Traceback" not in done.stderr
        errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
        assert len(errors) == 2, errors
        assert errors[0].startswith(
            f"error: {LOOP_TARGET}: HTTP 401: Incorrect API key provided "
            "(1 call failed, 5 more not sent; first in trial "
        )
        assert errors[1] == (
            "error: 6 of 6 trial(s) could not be completed (the target failed); fix the cause above, "
            f"then: medeval run --resume {run_dir.relative_to(tmp_path)} --retry-failed"
        )

        plain = medeval("run", "-q", "--resume", str(run_dir), cwd=tmp_path)
        assert plain.returncode == EXIT_FAILED_TRIALS  # a plain resume leaves them as they are
        assert server.request_count == 1
        retried = medeval("run", "-q", "--resume", str(run_dir), "--retry-failed", cwd=tmp_path)
    assert retried.returncode == EXIT_COMPLETE, retried.stderr
    lines = strict_lines(run_dir / RESULTS)
    assert len(lines) == 12  # six failed records stay on file; six retries supersede them
    assert len({line["trial_key"] for line in lines}) == 6
    corpus = Corpus([run_dir])
    try:
        assert corpus.trial_count() == 6
        assert corpus.query("SELECT count(*) FROM trials WHERE flags.target_error IS NOT NULL") == [(0,)]
    finally:
        corpus.close()


def test_an_unknown_model_stops_that_model_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with LoopbackServer(unknown_models=["shopper-target"]) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        result = run(loop_config(tmp_path / "runs", epochs=2, max_concurrency=1))
        target_calls = [r for r in server.requests if r.body and r.body.get("model") == "shopper-target"]
    assert len(target_calls) == 1
    assert not any(r.body and r.body.get("model") == "shopper-judge" for r in server.requests)
    (line,) = result.failures
    assert line.startswith(f"{LOOP_TARGET}: HTTP 404: ")
    assert "(1 call failed, 3 more not sent; first in trial " in line
    whole = engine_cli.whole_run(result)
    assert whole.failed_trials == 4
    assert engine_cli.exit_code(whole) == EXIT_FAILED_TRIALS


def test_no_network_is_one_line_with_the_count_not_a_silent_exit_0(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", f"http://127.0.0.1:{port}/v1")
    config = loop_config(tmp_path / "runs", judges=["rules"])
    result = run(config, build_gateway(config, sleep=instant))
    (line,) = result.failures
    assert line.startswith(f"{LOOP_TARGET}: connection failed: ")
    assert "(2 calls failed; first in trial " in line
    assert engine_cli.exit_code(engine_cli.whole_run(result)) == EXIT_FAILED_TRIALS
    printed = capsys.readouterr().err.splitlines()
    assert printed[0] == f"error: {line}"
    assert printed[1].startswith("error: 2 of 2 trial(s) could not be completed")


def test_retry_failed_needs_resume(tmp_path: Path) -> None:
    done = medeval("run", "-s", str(SCENARIO_001), "-t", "fake:accurate", "--retry-failed", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "error: --retry-failed needs --resume RUN_DIR: it re-runs that run's failed trials"
    )
    assert not (tmp_path / "runs").exists()


def test_a_clean_resume_config_round_trips(tmp_path: Path) -> None:
    # --retry-failed on a run with nothing failed runs nothing.
    first = run(loop_config(tmp_path / "runs", targets=["fake:accurate"], judges=["rules"]))
    again = run(resume_config(first.store.directory), resume=first.store.directory, retry_failed=True)
    assert again.records == []
    assert engine_cli.exit_code(engine_cli.whole_run(again)) == EXIT_COMPLETE
    assert LOOP_JUDGE not in again.store.read_manifest()["config"]["judges"]


def test_judges_that_score_nothing_exit_3_with_the_rescore_command(tmp_path: Path) -> None:
    """A judge that never returns valid output leaves every group not_scored: the run says so and
    does not exit 0, since nothing was measured."""
    done = medeval(
        "run", "-s", str(SCENARIO_001), "-t", "fake:accurate", "--judge", "fake:garbage", "--quiet",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == EXIT_FAILED_TRIALS, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "not scored" in line]
    assert line.startswith("error: 1 of 1 question group(s) were not scored because the judges failed")
    assert line.endswith("--judge SPEC")
    assert "Traceback" not in done.stderr


def test_a_run_with_some_groups_scored_still_exits_0(tmp_path: Path) -> None:
    done = medeval("run", "-s", str(SCENARIO_001), "-t", "fake:accurate", "--quiet", cwd=tmp_path)
    assert done.returncode == EXIT_COMPLETE, done.stderr
    assert "not scored" not in done.stderr
