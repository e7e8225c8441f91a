"""Provider calls in worker processes (`--call-workers`, adapters/workers): a call made there gives
what the same call gives in the engine's process, errors cross intact, a worker that dies fails its
calls in flight as retryable, and a run with workers writes the same trials as one without."""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path

import pytest

from medeval.adapters.base import ChatRequest, ChatResponse, Message, ModelAPI, ProviderError
from medeval.adapters.openai_api import create_compatible
from medeval.adapters.workers import CallWorkers
from medeval.adapters.workers.pool import _Worker
from medeval.engine.orchestrator import build_gateway, run
from medeval.testing.loopback import LoopbackServer, Prompt, ReceivedRequest, default_responder
from medeval.testing.wire import Fault
from tests.engine_support import LOOP_TARGET, SCENARIO_001, instant, loop_config, point_at

MODEL = LOOP_TARGET.partition(":")[2]
REQUEST = ChatRequest(
    system="You are helpful.", messages=[Message(role="user", content="When is Part B due?")]
)


class NotHere(ModelAPI):
    """The engine-side adapter, which a call made in a worker must not reach."""

    provider = "openai-compatible"

    async def generate(self, request: ChatRequest) -> ChatResponse:
        raise AssertionError("the call was made in the engine's process, not in the worker")


def limits_headers(request: ReceivedRequest) -> dict[str, str]:
    return {"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "499"}


async def through_worker(workers: CallWorkers, request: ChatRequest = REQUEST) -> ChatResponse:
    await workers.started(LOOP_TARGET)
    try:
        return await workers.generate(LOOP_TARGET, request, NotHere(MODEL))
    finally:
        await workers.aclose()


def test_a_call_in_a_worker_gives_what_the_same_call_gives_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with LoopbackServer(reply_headers=limits_headers) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        remote = asyncio.run(through_worker(CallWorkers(1)))

        async def here() -> ChatResponse:
            adapter = create_compatible(MODEL)
            try:
                return await adapter.generate(REQUEST)
            finally:
                await adapter.aclose()

        local = asyncio.run(here())
        sent = [r.body for r in server.requests]
    assert sent[0] == sent[1]  # the same wire body from either process
    ignored = {"latency_ms", "request_id", "response_id", "raw"}  # the server numbers each reply
    assert remote.model_dump(exclude=ignored) == local.model_dump(exclude=ignored)
    assert remote.rate_limits == local.rate_limits and remote.rate_limits is not None
    assert remote.rate_limits.requests_remaining == 499


def test_a_provider_error_in_a_worker_arrives_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with LoopbackServer() as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        server.script(Fault.rate_limited(retry_after="7"))
        with pytest.raises(ProviderError) as caught:
            asyncio.run(through_worker(CallWorkers(1)))
    assert caught.value.status == 429
    assert caught.value.retryable is True
    assert caught.value.retry_after == 7.0
    assert "Rate limit reached" in str(caught.value)


def test_a_worker_that_dies_fails_its_call_in_flight_as_retryable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    arrived, release = threading.Event(), threading.Event()

    async def held(prompt: Prompt) -> str:
        arrived.set()  # the worker's request is at the server: the call is in flight
        await asyncio.get_running_loop().run_in_executor(None, release.wait)
        return await default_responder(prompt)

    async def kill_mid_call(workers: CallWorkers) -> None:
        await workers.started(LOOP_TARGET)
        call = asyncio.create_task(workers.generate(LOOP_TARGET, REQUEST, NotHere(MODEL)))
        await asyncio.get_running_loop().run_in_executor(None, arrived.wait)
        (worker,) = workers._workers
        worker.process.kill()
        try:
            with pytest.raises(ProviderError) as caught:
                await call
        finally:
            release.set()
            await workers.aclose()
        assert caught.value.retryable is True and caught.value.status == "worker"
        assert "call worker exited" in str(caught.value)

    with LoopbackServer(responder=held) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        asyncio.run(kill_mid_call(CallWorkers(1)))


def test_a_run_with_call_workers_writes_the_same_trials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcomes = []
    with LoopbackServer() as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        for workers in (0, 1):
            config = loop_config(
                tmp_path / f"runs{workers}",
                scenarios=[SCENARIO_001],
                judges=["rules"],
                epochs=3,
                call_workers=workers,
            )
            result = run(config, build_gateway(config, sleep=instant))
            assert result.outcome == "complete"
            assert result.store.read_manifest()["config"]["call_workers"] == workers
            outcomes.append(
                [(r.epoch, r.final_scores, [g.ship_category for g in r.groups]) for r in result.records]
            )
    assert outcomes[0] == outcomes[1]


def test_a_worker_line_that_does_not_read_ends_that_worker_and_fails_its_call_as_retryable() -> None:
    babbler = "import sys; sys.stdin.readline(); print('not a worker line', flush=True); sys.stdin.read()"

    async def main() -> None:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", babbler, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
        worker = _Worker(process, lambda spec: None)
        with pytest.raises(ProviderError) as caught:
            await worker.send(1, LOOP_TARGET, REQUEST.model_dump_json())
        assert caught.value.retryable is True and caught.value.status == "worker"
        assert not worker.alive and process.returncode is not None  # killed, not left running
        await worker.aclose()

    asyncio.run(main())
