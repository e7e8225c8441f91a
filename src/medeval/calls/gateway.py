"""Every model call of every role goes through the gateway. It answers from the response cache
where it can; otherwise it waits for its model's pacing (limits.py), applies the one
retry policy, and records each attempt, verbatim and with its cost, in calls.jsonl. A cache hit is
recorded too, so the calls file shows every response a trial used."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI, ProviderError
from medeval.adapters.batch import BatchAPI
from medeval.adapters.registry import create_adapter
from medeval.adapters.retry import RetryPolicy, Sleeper, real_sleep
from medeval.adapters.workers import CallWorkers
from medeval.calls.batching import BATCH_ROLES, Batcher, BatchSettings, InflightBatch
from medeval.calls.cache import ResponseCache, cache_key
from medeval.calls.cost import TYPICAL_OUTPUT_TOKENS, CostMeter
from medeval.calls.failures import FailureLog
from medeval.calls.limits import Limits, Pacing, prompt_tokens
from medeval.records.hashing import derive_seed
from medeval.records.storage import utc_now

DEFAULT_MAX_CONCURRENCY = 32  # see docs/performance.md, "Pacing"


class CallContext(BaseModel):
    """Who is calling: recorded with every attempt."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run_id: str
    trial_id: str
    role: str
    judge_index: int | None = None
    scenario_id: str | None = None
    turn_id: str | None = None
    target: str | None = None
    epoch: int | None = None


class CallFailed(Exception):
    """A call that failed after the retry policy gave up, or at once for a non-retryable error."""

    def __init__(self, spec: str, message: str, attempts: int) -> None:
        tried = f"after {attempts} attempt{'s' if attempts != 1 else ''}" if attempts else "not sent"
        super().__init__(f"{spec}: {message} ({tried})")
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
        cache: ResponseCache | None = None,
        limits: Limits | None = None,
        meter: CostMeter | None = None,
        batch: BatchSettings | None = None,
        workers: CallWorkers | None = None,
    ) -> None:
        self._sink = sink
        self._adapters: dict[str, ModelAPI] = dict(adapters or {})
        #: Provider calls in worker processes (`--call-workers`); None: all in this process.
        self.workers = workers
        #: Specs whose calls go to the workers: adapters this gateway built, of a provider whose
        #: adapter another process builds the same from the spec and the environment.
        self._remote: set[str] = set()
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self._seed = seed
        self.cache = cache
        self.limits = limits or Limits(DEFAULT_MAX_CONCURRENCY, sleep=sleep)
        self.meter = meter
        self.failures = FailureLog()
        #: Judge roles through provider batch APIs (`--batch`); None: every call direct.
        self.batcher = (
            Batcher(batch, self._event, sleep=sleep, retry=self.retry, seed=seed)
            if batch is not None and batch.enabled
            else None
        )

    def set_sink(self, sink: CallSink) -> None:
        """Where call records go (the run's calls.jsonl, once the run directory exists)."""
        self._sink = sink

    def adapter(self, spec: str) -> ModelAPI:
        if spec not in self._adapters:
            adapter = self._adapters[spec] = create_adapter(spec)
            if self.workers is not None and adapter.worker_safe:
                self._remote.add(spec)
                self.workers.prepare(spec)
        return self._adapters[spec]

    def batch_api(self, spec: str) -> BatchAPI | None:
        """The batch API judge calls to `spec` go through, or None when they go direct."""
        if self.batcher is None:
            return None
        return self.batcher.api_for(spec, self.adapter(spec))

    def attach_batches(
        self, batches: list[InflightBatch], unanswered: dict[str, list[str]] | None = None
    ) -> None:
        """`--resume`: wait for the batches a killed session left in flight instead of paying again,
        and warn of requests whose submission it left unanswered (they go again)."""
        if self.batcher is None:
            return
        if unanswered:
            self.batcher.warn_unanswered(unanswered)
        if batches:
            self.batcher.attach(batches, self.adapter)

    async def aclose(self) -> None:
        if self.batcher is not None:
            await self.batcher.aclose()
        if self.workers is not None:
            await self.workers.aclose()
        for adapter in self._adapters.values():
            await adapter.aclose()
        if self.cache is not None:
            self.cache.close()

    async def complete(self, spec: str, request: ChatRequest, ctx: CallContext) -> ChatResponse:
        adapter = self.adapter(spec)
        provider = spec.partition(":")[0]
        call_id = uuid.uuid4().hex[:16]
        key: str | None = None
        # The request as recorded in every attempt's line (and hashed into the cache key): dumped once.
        sent = request.model_dump(mode="json")
        if self.cache is not None and self.cache.applies_to(provider):
            key = cache_key(spec, adapter.settings(), request, ctx.epoch, request_json=sent)
            hit = self.cache.get(key)
            if hit is not None:
                self._record(call_id, 0, spec, sent, ctx, hit, None, 0.0, None, cache="hit", key=key)
                return hit
        self._refuse_if_stopped(spec)
        if self.batcher is not None and ctx.role in BATCH_ROLES:
            api = self.batcher.api_for(spec, adapter)
            if api is not None:
                return await self._complete_batched(spec, api, request, sent, ctx, key, call_id)
        # Jitter is seeded per call site, so a rerun waits the same way (and tests never sleep). The
        # generator is made on the first failure: most calls never need one.
        rng: random.Random | None = None
        cache_state = "miss" if key else "off"
        attempt = 0
        while True:
            attempt += 1
            failure: ProviderError | None = None
            async with self.limits.slot(spec, request) as outcome:
                # Checked again once a slot is free: a call that waited for one while the provider
                # refused the key is not sent either.
                self._refuse_if_stopped(spec, attempt - 1)
                started = time.perf_counter()
                try:
                    if spec in self._remote:
                        assert self.workers is not None
                        response = await self.workers.generate(spec, request, adapter)
                    else:
                        response = await adapter.generate(request)
                except ProviderError as error:
                    failure = error
                except Exception as error:  # an adapter bug fails this call, not the run
                    failure = ProviderError(f"{type(error).__name__}: {error}", retryable=False)
                if failure is not None:
                    outcome.failed(failure)
                else:
                    outcome.succeeded(response)
                elapsed = (time.perf_counter() - started) * 1000
            if failure is not None:
                retrying = self.retry.should_retry(attempt, failure)
                if retrying and rng is None:
                    rng = random.Random(
                        derive_seed(self._seed, ctx.trial_id, ctx.role, ctx.judge_index, ctx.turn_id)
                    )
                wait = self.retry.delay(attempt, failure, rng) if rng is not None and retrying else None
                self._attempt_failed(
                    call_id,
                    attempt,
                    spec,
                    sent,
                    ctx,
                    failure,
                    elapsed,
                    wait,
                    retrying,
                    cache=cache_state,
                    pacing=outcome.pacing,
                )
                await self._sleep(wait or 0.0)
                continue
            return self._delivered(
                call_id, attempt, spec, sent, ctx, response, elapsed, cache_state, key, pacing=outcome.pacing
            )

    def _refuse_if_stopped(self, spec: str, attempts: int = 0) -> None:
        stopped = self.failures.stopped(spec)
        if stopped is not None:
            # The provider refused the key, or the model does not exist: this call would fail too.
            stopped.not_sent += 1
            raise CallFailed(spec, f"{stopped.message}; stopped calling {spec} after that", attempts)

    async def _complete_batched(
        self,
        spec: str,
        api: BatchAPI,
        request: ChatRequest,
        sent: dict[str, Any],
        ctx: CallContext,
        key: str | None,
        call_id: str,
    ) -> ChatResponse:
        """One request through provider batches: each batch it rides in is one attempt, recorded
        like a direct attempt (with its batch id); a failed item goes into a later batch under the
        same retry policy, and a final failure raises CallFailed as a direct call would. While it
        waits, its estimated price is pending on the meter (see CostMeter.pending)."""
        # The custom id is the cache key, computed even with the cache off: deterministic (it
        # includes the epoch), so a resumed run finds its request in a batch still in flight.
        custom_id = key or cache_key(
            spec, self.adapter(spec).settings(), request, ctx.epoch, request_json=sent
        )
        held = 0.0
        if self.meter is not None:
            output = request.sampling.max_output_tokens or TYPICAL_OUTPUT_TOKENS
            held = self.meter.hold(spec, prompt_tokens(request), output, batch_discount=api.batch_discount)
        try:
            cached = key is not None
            attempt = 0
            while True:
                attempt += 1
                delivered = await self.batcher.request(spec, api, custom_id, request)  # type: ignore[union-attr]
                outcome = delivered.outcome
                state = "miss" if cached else "off"
                if outcome.response is not None:
                    response = outcome.response
                    sampling = api.batch_sampling(request)
                    if sampling is not None:  # a re-attached batch's results cannot say what was sent
                        update = {"sampling_sent": sampling[0], "sampling_dropped": sampling[1]}
                        response = response.model_copy(update=update)
                    return self._delivered(
                        call_id,
                        attempt,
                        spec,
                        sent,
                        ctx,
                        response,
                        delivered.waited_ms,
                        state,
                        key,
                        batch_id=delivered.batch_id,
                        custom_id=custom_id,
                        batch_discount=api.batch_discount,
                    )
                failure = outcome.error
                assert failure is not None
                retrying = self.retry.should_retry(attempt, failure)
                self._attempt_failed(
                    call_id,
                    attempt,
                    spec,
                    sent,
                    ctx,
                    failure,
                    delivered.waited_ms,
                    0.0 if retrying else None,
                    retrying,
                    cache=state,
                    key=key,
                    batch_id=delivered.batch_id,
                    custom_id=custom_id,
                )
        finally:
            if self.meter is not None:
                self.meter.release(held)

    def _delivered(
        self,
        call_id: str,
        attempt: int,
        spec: str,
        sent: dict[str, Any],
        ctx: CallContext,
        response: ChatResponse,
        elapsed_ms: float,
        cache_state: str,
        key: str | None,
        **extra: Any,
    ) -> ChatResponse:
        """A successful attempt, direct or batched: its latency (the one measured here when the
        adapter gave none), into the cache, and recorded."""
        if not response.latency_ms:
            response = response.model_copy(update={"latency_ms": elapsed_ms})
        if key is not None and self.cache is not None:
            self.cache.put(key, spec, response)
        self._record(
            call_id,
            attempt,
            spec,
            sent,
            ctx,
            response,
            None,
            response.latency_ms,
            None,
            cache=cache_state,
            key=key,
            **extra,
        )
        return response

    def _attempt_failed(
        self,
        call_id: str,
        attempt: int,
        spec: str,
        sent: dict[str, Any],
        ctx: CallContext,
        failure: ProviderError,
        elapsed_ms: float,
        retry_in: float | None,
        retrying: bool,
        **extra: Any,
    ) -> None:
        """A failed attempt, direct or batched: recorded; when no retry follows, counted for the
        run's failure lines and raised as CallFailed."""
        self._record(call_id, attempt, spec, sent, ctx, None, failure, elapsed_ms, retry_in, **extra)
        if not retrying:
            self.failures.failed(spec, failure, ctx.trial_id)
            raise CallFailed(spec, str(failure), attempt) from failure

    def _event(self, event: dict[str, Any]) -> None:
        """A batch event line in calls.jsonl, written as it happens (see batching/events.py)."""
        if self._sink is not None:
            self._sink({**event, "timestamp": utc_now()})

    def _record(
        self,
        call_id: str,
        attempt: int,
        spec: str,
        request: dict[str, Any],
        ctx: CallContext,
        response: ChatResponse | None,
        error: ProviderError | None,
        latency_ms: float,
        retry_in: float | None,
        *,
        cache: str,
        key: str | None = None,
        batch_id: str | None = None,
        batch_discount: float | None = None,
        pacing: Pacing | None = None,
        custom_id: str | None = None,
    ) -> None:
        record: dict[str, Any] = {
            "call_id": call_id,
            "attempt": attempt,
            "timestamp": utc_now(),
            **ctx.model_dump(),
            "spec": spec,
            "request": request,
            "latency_ms": round(latency_ms, 3),
            "cache": cache,
            "concurrency_limit": pacing.limit if pacing is not None else self.limits.for_model(spec).limit,
        }
        if pacing is not None:
            record["pacing"] = pacing.record()
        if key is not None:
            record["cache_key"] = key
        if batch_id is not None:
            record["batch_id"] = batch_id
            # The item's custom id in that batch (the cache key, also when the cache is off).
            record["custom_id"] = custom_id
        if response is not None:
            record["response"] = response.model_dump(mode="json")
            record["served_model"] = response.served_model
            record["usage"] = response.usage.model_dump()
            if cache == "hit":
                record["cost_usd"] = 0.0  # paid for once, by the run that stored it
            elif self.meter is not None:
                record["cost_usd"] = self.meter.charge(
                    spec, response.usage, ctx.role, ctx.target, batch_discount=batch_discount
                )
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
