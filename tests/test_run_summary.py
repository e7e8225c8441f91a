"""summary.json is counted as records are written (the writer's tally), not by re-reading the run
at the end of each session: it must equal the same summary computed from the run's files, for a
fresh run, a run with failed and retried calls, cache hits, a resumed session and batches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medeval.calls.batching import BatchSettings
from medeval.calls.cache import CacheMode
from medeval.engine.orchestrator import build_gateway, resume_config, run
from medeval.engine.runwriter import run_summary
from medeval.records.storage import RunStore
from medeval.testing.loopback import LoopbackServer
from medeval.testing.wire import Fault
from tests.engine_support import LOOP_TARGET, SCENARIO_001, instant, loop_config, point_at


def written_and_recounted(run_dir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    written = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    recounted = run_summary(RunStore.open(run_dir), written["trials_planned"], written["outcome"])
    for summary in (written, recounted):
        summary.pop("written_at")
    return written, recounted


def test_the_summary_of_a_run_with_failures_and_cache_hits_equals_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with LoopbackServer() as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        config = loop_config(tmp_path / "runs", epochs=2, cache=CacheMode.USE)
        server.script(Fault(status=500), Fault.rate_limited(), None, Fault(status=503))
        first = run(config, build_gateway(config, sleep=instant))
        second = run(config, build_gateway(config, sleep=instant))
    written, recounted = written_and_recounted(first.store.directory)
    assert written == recounted
    assert written["calls"]["errors"] == 3 and written["trials_written"] == 4
    written, recounted = written_and_recounted(second.store.directory)
    assert written == recounted
    assert written["calls"]["cache_hits"] == written["calls"]["records"] > 0


def test_a_resumed_session_counts_what_the_earlier_one_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with LoopbackServer() as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        config = loop_config(tmp_path / "runs", scenarios=[SCENARIO_001], judges=["rules"], epochs=3)
        # The first trial's target call fails for good: --retry-failed runs that trial again.
        server.script(Fault(status=400, message="bad request"))
        first = run(config, build_gateway(config, sleep=instant))
        run_dir = first.store.directory
        gateway = build_gateway(config, sleep=instant)
        again = run(resume_config(run_dir), gateway, resume=run_dir, retry_failed=True)
    assert len(again.records) == 1
    written, recounted = written_and_recounted(run_dir)
    assert written == recounted
    assert written["trials_written"] == 4  # the failed record stays on file beside its retry
    assert written["trials_by_status"] == {"scored": 3, "unscored": 1}


def test_a_batched_run_counts_its_batches(tmp_path: Path) -> None:
    config = loop_config(
        tmp_path / "runs",
        scenarios=[SCENARIO_001],
        targets=["fake:accurate"],
        judges=["fake:judge"],
        epochs=2,
        batch=BatchSettings(enabled=True),
    )
    result = run(config, build_gateway(config, sleep=instant))
    written, recounted = written_and_recounted(result.store.directory)
    assert written == recounted
    assert written["batches"]["submitted"] == written["batches"]["collected"] >= 1
    assert written["batches"]["batched_calls"] > 0
    assert LOOP_TARGET not in written["cost"]["by_model"]


def test_a_fresh_run_never_reads_its_files_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The end of a session costs nothing per record already written (it once re-read both files)."""

    def unread(self: RunStore) -> None:
        raise AssertionError("a fresh run read its own records back")

    monkeypatch.setattr(RunStore, "trials", unread)
    monkeypatch.setattr(RunStore, "call_records", unread)
    config = loop_config(tmp_path / "runs", targets=["fake:accurate"], judges=["rules"], epochs=2)
    result = run(config, build_gateway(config, sleep=instant))
    summary = json.loads((result.store.directory / "summary.json").read_text(encoding="utf-8"))
    assert summary["outcome"] == "complete" and summary["trials_written"] == 4
