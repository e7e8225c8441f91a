"""`--batch` end to end on Anthropic, Gemini and xAI: a run whose judges are on one of those
providers, each reached through its real SDK at a loopback batch server, gives the same trials as
the same run with direct judge calls, sends no judge request directly, and records each judge call
with its batch id and the sampling settings the direct run recorded. A batch item that fails is
retried in a later batch and the trials still match."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from medeval.calls.batching import BatchSettings
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import build_gateway, execute, resume_config
from medeval.testing.loopback import LoopbackServer
from tests.engine_support import (
    FOLLOWUP,
    SCENARIO_001,
    batch_events,
    judged_trials,
    only_run,
    settle,
    strict_lines,
)
from tests.servers.anthropic_server import anthropic_dialect
from tests.servers.batches import BatchBook, ItemScript
from tests.servers.gemini_server import gemini_dialect
from tests.servers.xai_grpc import XAIServer

KEYS = {
    "anthropic": ("ANTHROPIC_API_KEY", "sk-ant-batch-e2e-0123456789"),
    "google": ("GOOGLE_API_KEY", "AIza-batch-e2e-0123456789"),
    "xai": ("XAI_API_KEY", "xai-batch-e2e-0123456789"),
}
JUDGES = {
    "anthropic": "anthropic:claude-sonnet-5-5",
    "google": "google:gemini-3.8-flash",
    "xai": "xai:grok-4.6",
}
FAST = BatchSettings(enabled=True, idle_seconds=0.0, poll_seconds=1.0)


class Provider:
    """One provider's loopback batch server, and how many direct (non-batch) calls it answered."""

    def __init__(self, name: str, book: BatchBook, server: LoopbackServer | XAIServer) -> None:
        self.name, self.book, self.server = name, book, server

    def direct_calls(self) -> int:
        if isinstance(self.server, XAIServer):
            return sum(1 for c in self.server.calls if type(c.request).__name__ == "GetCompletionsRequest")
        return sum(
            1
            for r in self.server.requests
            if r.path.endswith(("/v1/messages", ":generateContent")) and r.path.count(":batch") == 0
        )


@contextlib.contextmanager
def provider(name: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Provider]:
    variable, key = KEYS[name]
    monkeypatch.setenv(variable, key)
    book = BatchBook()
    if name == "xai":
        with XAIServer(api_key=key, book=book) as grpc_server:
            monkeypatch.setenv("XAI_API_HOST", grpc_server.host)
            yield Provider(name, book, grpc_server)
        return
    dialect = anthropic_dialect(book) if name == "anthropic" else gemini_dialect(book)
    with LoopbackServer(dialect, api_key=key) as http_server:
        variable = "ANTHROPIC_BASE_URL" if name == "anthropic" else "GOOGLE_GEMINI_BASE_URL"
        monkeypatch.setenv(variable, http_server.url)
        yield Provider(name, book, http_server)


def run(out: Path, judge: str, **overrides: Any) -> Path:
    config = RunConfig(
        scenarios=overrides.pop("scenarios", [SCENARIO_001, FOLLOWUP]),
        targets=["fake:accurate"],
        judges=[judge],
        out=out,
        cache="off",
        **overrides,
    )
    return asyncio.run(execute(config, build_gateway(config, sleep=settle))).store.directory


def sampling_sent(run_dir: Path) -> set[str]:
    """The distinct sampling settings a run's answered judge calls recorded as sent."""
    responses = [r["response"] for r in judge_records(run_dir) if r.get("response")]
    return {json.dumps(response.get("sampling_sent"), sort_keys=True) for response in responses}


def judge_records(run_dir: Path) -> list[dict[str, Any]]:
    return [
        r for r in strict_lines(run_dir / "calls.jsonl") if "event" not in r and r.get("role") != "target"
    ]


@pytest.mark.parametrize("name", ["anthropic", "google", "xai"])
def test_a_batch_run_gives_the_same_trials_as_a_direct_run(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEDEVAL_CACHE_DIR", str(tmp_path / "cache"))
    with provider(name, monkeypatch) as endpoint:
        direct = run(tmp_path / "direct", JUDGES[name])
        direct_calls = endpoint.direct_calls()
        batched = run(tmp_path / "batch", JUDGES[name], batch=FAST)
        assert endpoint.direct_calls() == direct_calls, "a judge request went around the batch"
    assert direct_calls > 0 and endpoint.book.creations >= 1
    assert judged_trials(batched) == judged_trials(direct)
    collected = batch_events(batched, "batch_collected")
    assert collected and {e["batch_id"] for e in collected} == set(endpoint.book.batches)
    records = judge_records(batched)
    assert records and all(r.get("batch_id") in endpoint.book.batches for r in records if "error" not in r)
    assert sampling_sent(batched) == sampling_sent(direct)
    key = KEYS[name][1]
    for path in batched.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(encoding="utf-8", errors="replace")


@pytest.mark.parametrize("name", ["anthropic", "google", "xai"])
def test_failed_items_are_retried_in_a_later_batch(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEDEVAL_CACHE_DIR", str(tmp_path / "cache"))
    with provider(name, monkeypatch) as endpoint:
        direct = run(tmp_path / "direct", JUDGES[name])
        endpoint.book.script_next(ItemScript.error(503, "overloaded"), None, ItemScript("expired"))
        batched = run(tmp_path / "batch", JUDGES[name], batch=FAST)
    assert endpoint.book.creations >= 2
    assert judged_trials(batched) == judged_trials(direct)


@pytest.mark.parametrize(
    ("name", "forgotten"), [("anthropic", False), ("google", False), ("xai", False), ("xai", True)]
)
def test_killed_with_a_batch_in_flight_and_resumed_it_submits_no_request_twice(
    name: str, forgotten: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resumed, the run re-attaches to the batch it left in flight; a batch the provider no longer
    knows (`forgotten`: xAI answers gRPC NOT_FOUND) has its requests sent again instead."""
    monkeypatch.setenv("MEDEVAL_CACHE_DIR", str(tmp_path / "cache"))
    with provider(name, monkeypatch) as endpoint:
        # One trial, so exactly one batch is in flight when the run is killed.
        direct = run(tmp_path / "direct", JUDGES[name], scenarios=[SCENARIO_001])
        endpoint.book.hold = True
        out = tmp_path / "batch"
        args = ["--scenario", str(SCENARIO_001), "--target", "fake:accurate"]
        args += ["--judge", JUDGES[name], "--out", str(out), "--no-cache", "-q"]
        args += ["--batch", "--batch-idle", "0", "--batch-poll", "0.05"]
        log = tmp_path / "run.log"
        with log.open("w") as stream:
            child = subprocess.Popen(
                [sys.executable, "-m", "medeval", "run", *args], stdout=stream, stderr=subprocess.STDOUT
            )
        try:
            # The first status read comes after the batch is recorded: kill the run there.
            assert endpoint.book.polled.wait(timeout=120), f"the run never polled a batch: {log.read_text()}"
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
        run_dir = only_run(out)
        (in_flight,) = batch_events(run_dir, "batch_submitted")
        assert endpoint.book.creations == 1 and not batch_events(run_dir, "batch_collected")
        endpoint.book.hold = False
        endpoint.book.release()  # the provider finishes the batch while nothing runs
        if forgotten:
            lost = endpoint.book.batches.pop(in_flight["batch_id"])
        config = resume_config(run_dir)
        asyncio.run(execute(config, build_gateway(config, sleep=settle), resume=run_dir))
    submitted = [custom_id for batch in endpoint.book.batches.values() for custom_id, _ in batch.items]
    assert len(submitted) == len(set(submitted)), "a request was submitted twice"
    collected = {e["batch_id"] for e in batch_events(run_dir, "batch_collected")}
    if forgotten:
        assert in_flight["batch_id"] not in collected
        assert {custom_id for custom_id, _ in lost.items} <= set(submitted)  # sent again
    else:
        assert in_flight["batch_id"] in collected
    assert judged_trials(run_dir) == judged_trials(direct)
    # the re-attached batch's records still say what its requests sent
    assert sampling_sent(run_dir) == sampling_sent(direct)
