"""Every model call of every role goes through the gateway: it resolves adapters, applies the one
retry policy, and records each attempt, verbatim, in calls.jsonl."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI, ProviderError
from medeval.adapters.registry import create_adapter
from medeval.adapters.retry import RetryPolicy, Sleeper, real_sleep
from medeval.hashing import derive_seed
from medeval.storage import utc_now


class CallContext(BaseModel):
    """Who is calling: recorded with every attempt."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str
    trial_id: str
    role: str
    judge_index: int | None = None
    scenario_id: str | None = None
    turn_id: str | None = None


class CallFailed(Exception):
    """A call that failed after the retry policy gave up, or at once for a non-retryable error."""

    def __init__(self, spec: str, message: str, attempts: int) -> None:
        super().__init__(f"{spec}: {message} (after {attempts} attempt{'s' if attempts != 1 else ''})")
        self.spec = spec
        self.attempts = attempts


CallSink = Callable[[dict[str, Any]], object]


class Gateway:
    def __init__(
        self,
        sink: CallSink | None = None,
        *,
        adapters: dict[str, ModelAPI] | None = None,
        retry: RetryPolicy | None = None,
        sleep: Sleeper = real_sleep,
        seed: int = 0,
    ) -> None:
        self._sink = sink
        self._adapters: dict[str, ModelAPI] = dict(adapters or {})
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._seed = seed

    def set_sink(self, sink: CallSink) -> None:
        """Where call records go (the run's calls.jsonl, once the run directory exists)."""
        self._sink = sink

    def adapter(self, spec: str) -> ModelAPI:
        if spec not in self._adapters:
            self._adapters[spec] = create_adapter(spec)
        return self._adapters[spec]

    async def aclose(self) -> None:
        for adapter in self._adapters.values():
            await adapter.aclose()

    async def complete(self, spec: str, request: ChatRequest, ctx: CallContext) -> ChatResponse:
        adapter = self.adapter(spec)
        # Jitter is seeded per call site, so a rerun waits the same way (and tests never sleep).
        rng = random.Random(derive_seed(self._seed, ctx.trial_id, ctx.role, ctx.judge_index, ctx.turn_id))
        call_id = uuid.uuid4().hex[:16]
        attempt = 0
        while True:
            attempt += 1
            started = time.perf_counter()
            try:
                response = await adapter.generate(request)
            except ProviderError as error:
                elapsed = (time.perf_counter() - started) * 1000
                retrying = self.retry.should_retry(attempt, error)
                wait = self.retry.delay(attempt, error, rng) if retrying else None
                self._record(call_id, attempt, spec, request, ctx, None, error, elapsed, wait)
                if not retrying:
                    raise CallFailed(spec, str(error), attempt) from error
                await self._sleep(wait or 0.0)
                continue
            if not response.latency_ms:
                response = response.model_copy(update={"latency_ms": (time.perf_counter() - started) * 1000})
            self._record(call_id, attempt, spec, request, ctx, response, None, response.latency_ms, None)
            return response

    def _record(
        self,
        call_id: str,
        attempt: int,
        spec: str,
        request: ChatRequest,
        ctx: CallContext,
        response: ChatResponse | None,
        error: ProviderError | None,
        latency_ms: float,
        retry_in: float | None,
    ) -> None:
        record: dict[str, Any] = {
            "call_id": call_id,
            "attempt": attempt,
            "timestamp": utc_now(),
            **ctx.model_dump(),
            "spec": spec,
            "request": request.model_dump(mode="json"),
            "latency_ms": round(latency_ms, 3),
        }
        if response is not None:
            record["response"] = response.model_dump(mode="json")
            record["served_model"] = response.served_model
            record["usage"] = response.usage.model_dump()
        if error is not None:
            record["error"] = {
                "message": str(error),
                "status": error.status,
                "retryable": error.retryable,
                "request_id": error.request_id,
                "retry_after": error.retry_after,
                "retry_in": retry_in,
            }
        if self._sink is not None:
            self._sink(record)
