"""Pacing: how many calls may be in flight, and how many tokens may be sent, per (provider, model).

Providers limit each model separately (requests and tokens per minute per model), so the pacing is
per `provider:model` spec; a 429 on the judge model leaves the target model of the same provider
alone. A call passes, in this order:

1. the model's token bucket, when it has one: a tokens-per-minute budget (`--tpm`), or the limit the
   provider reports in its rate-limit headers. The call's tokens are estimated before it is sent
   (characters / 4 plus the output cap) and reconciled with the usage that comes back;
2. the model's adaptive concurrency limit. It starts at its ceiling (`--model-concurrency`, else the
   provider's, else the global one). A 429 halves it (never below one) and pauses new calls to that
   model for the Retry-After the server asked for, capped; every `raise_after` successes in a row
   raise it by one again, back up to the ceiling. This is additive-increase/multiplicative-decrease,
   the rule TCP uses to find a link's capacity without knowing it in advance. A provider that says
   no requests remain pauses the model until its reset;
3. the provider's ceiling (`--provider-concurrency`), shared by all its models;
4. the global ceiling (`--max-concurrency`).

Every wait goes through the injected sleeper and clock, so tests never sleep.

The event loop itself is paced too: CPU-heavy steps that need no call (the rules coder's reading of
a group) take `Limits.cpu` turns, one per loop iteration (`LoopTurns`).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from types import TracebackType

from pydantic import BaseModel, ConfigDict

from medeval.adapters.base import ChatRequest, ChatResponse, ProviderError, RateLimits
from medeval.adapters.retry import THROTTLE_STATUSES, Sleeper, real_sleep

Clock = Callable[[], float]


class AdaptiveLimit:
    def __init__(
        self,
        ceiling: int,
        *,
        raise_after: int = 8,
        pause_cap: float = 60.0,
        sleep: Sleeper = real_sleep,
        clock: Clock = time.monotonic,
    ) -> None:
        self.ceiling = max(1, ceiling)
        self.limit = self.ceiling
        self.in_flight = 0
        self.throttles = 0
        self._raise_after = raise_after
        self._pause_cap = pause_cap
        self._successes = 0
        self._paused_until = 0.0
        self._sleep = sleep
        self._clock = clock
        self._changed = asyncio.Condition()

    async def acquire(self) -> None:
        slept_until = 0.0  # the pause deadline this caller has already waited out
        while True:
            until = self._paused_until
            if until > slept_until:
                slept_until = until
                pause = until - self._clock()
                if pause > 0:
                    # Once per deadline, through the injected sleep: a fake sleep never lets the
                    # real clock catch up, so re-reading the clock after it would spin the CPU.
                    await self._sleep(pause)
                    continue
            async with self._changed:
                if self.in_flight < self.limit:
                    self.in_flight += 1
                    return
                await self._changed.wait()

    def pause(self, seconds: float) -> None:
        """Hold new calls for `seconds` (capped), on top of any pause already in force."""
        self._paused_until = max(self._paused_until, self._clock() + min(seconds, self._pause_cap))

    async def release(self, *, throttled: bool = False, retry_after: float | None = None) -> None:
        self.in_flight -= 1
        if throttled:
            self.throttles += 1
            self._successes = 0
            self.limit = max(1, self.limit // 2)
            if retry_after:
                self.pause(retry_after)
        else:
            self._successes += 1
            if self._successes >= self._raise_after and self.limit < self.ceiling:
                self.limit += 1
                self._successes = 0
        async with self._changed:
            self._changed.notify_all()


class TokenBucket:
    """One model's tokens-per-minute budget: holds at most a minute's tokens, refills continuously."""

    def __init__(
        self, per_minute: int, *, sleep: Sleeper = real_sleep, clock: Clock = time.monotonic
    ) -> None:
        self.capacity = max(1, per_minute)
        self.level = float(self.capacity)
        self._sleep = sleep
        self._clock = clock
        self._stamp = clock()
        self._turn = asyncio.Lock()  # first come, first served: a large call is not starved

    def _refill(self) -> None:
        now = self._clock()
        self.level = min(float(self.capacity), self.level + (now - self._stamp) * self.capacity / 60.0)
        self._stamp = now

    async def take(self, tokens: int) -> int:
        """Wait until `tokens` are available (a full bucket at most) and take them. Returns the
        tokens waited for (0 when they were there)."""
        async with self._turn:
            self._refill()
            need = min(tokens, self.capacity)
            short = max(0.0, need - self.level)
            if short > 0:
                await self._sleep(short * 60.0 / self.capacity)
                self._refill()
                # The wait was for exactly the shortfall; a fake sleep moves no clock, so credit it.
                self.level = max(self.level, float(need))
            self.level -= tokens
            return round(short)

    def settle(self, estimated: int, used: int) -> None:
        """Give back what the estimate over-charged (or take what it under-charged)."""
        self.level = min(float(self.capacity), self.level + estimated - used)

    def observe(self, limit: int | None, remaining: int | None, configured: int | None) -> None:
        """Follow the provider's own count: its limit (never above the configured budget) and, when
        it says fewer tokens remain than we think, its remaining figure."""
        if limit:
            self.capacity = max(1, min(limit, configured or limit))
        self._refill()
        if remaining is not None:
            self.level = min(self.level, float(remaining))


def prompt_tokens(request: ChatRequest) -> int:
    """A cheap upper-side guess at a request's prompt: about four characters a token."""
    chars = len(request.system) + sum(len(m.content) for m in request.messages)
    return chars // 4 + 1


def estimate_tokens(request: ChatRequest) -> int:
    """What a request counts against a tokens-per-minute limit: its prompt, plus the output cap
    (which providers also reserve)."""
    return prompt_tokens(request) + (request.sampling.max_output_tokens or 0)


class Pacing(BaseModel):
    """The pacing decisions for one attempt, recorded in its call record."""

    model_config = ConfigDict(extra="forbid")

    #: The model's adaptive concurrency limit in force when the call was sent.
    limit: int
    provider_limit: int | None = None
    #: The model's tokens-per-minute budget in force, when it has one.
    tpm: int | None = None
    tokens_estimated: int | None = None
    tokens_waited_for: int = 0
    #: Seconds from asking for a slot to sending (token bucket, pause and queue).
    wait_s: float = 0.0
    #: What the provider's rate-limit headers said in reply.
    rate_limits: RateLimits | None = None

    def record(self) -> dict[str, object]:
        return self.model_dump(exclude_none=True)


class CallOutcome:
    """What the attempt inside a slot learnt about the provider's capacity."""

    def __init__(self) -> None:
        self.throttled = False
        self.retry_after: float | None = None
        self.ok = False
        self.tokens_used: int | None = None
        self.rate_limits: RateLimits | None = None
        self.pacing: Pacing | None = None

    def throttle(self, retry_after: float | None) -> None:
        self.throttled = True
        self.retry_after = retry_after

    def failed(self, error: ProviderError) -> None:
        if error.status in THROTTLE_STATUSES:
            self.throttle(error.retry_after)
        self.rate_limits = error.rate_limits

    def succeeded(self, response: ChatResponse) -> None:
        self.ok = True
        usage = response.usage
        if usage.input_tokens is not None or usage.output_tokens is not None:
            self.tokens_used = (usage.input_tokens or 0) + (usage.output_tokens or 0)
        self.rate_limits = response.rate_limits


class LoopTurns:
    """One holder per event-loop iteration, first come first served.

    Trials that end their last call together are judged together. Run as plain tasks, each
    trial's rules coding goes between the loop's polls for I/O, so the responses and new requests
    of every other trial wait for all of it: hundreds of milliseconds on each call, and every
    trial finishes its judging at the end of the burst. With turns, the loop polls between any two
    holders (a turn is handed on with `call_soon`, which runs in the next iteration), and the
    trials are judged in order."""

    def __init__(self) -> None:
        self._held = False
        self._waiting: deque[asyncio.Future[None]] = deque()

    async def __aenter__(self) -> None:
        if not self._held:
            self._held = True
            return
        turn = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        await turn  # handed over by `_next`: the turn stays held

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        asyncio.get_running_loop().call_soon(self._next)

    def _next(self) -> None:
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():  # a waiter cancelled meanwhile has left its place
                turn.set_result(None)
                return
        self._held = False


class Limits:
    """The global ceiling, a ceiling per provider, and per model an adaptive limit and an optional
    token bucket."""

    def __init__(
        self,
        max_concurrency: int,
        per_provider: dict[str, int] | None = None,
        per_model: dict[str, int] | None = None,
        tpm: dict[str, int] | None = None,
        *,
        pause_cap: float = 60.0,
        sleep: Sleeper = real_sleep,
        clock: Clock = time.monotonic,
    ) -> None:
        self._global = asyncio.Semaphore(max_concurrency)
        self._default = max_concurrency
        self._provider_ceilings = {p: min(n, max_concurrency) for p, n in (per_provider or {}).items()}
        self._model_ceilings = dict(per_model or {})
        self._tpm = dict(tpm or {})
        self._pause_cap = pause_cap
        self._sleep = sleep
        self._clock = clock
        self.models: dict[str, AdaptiveLimit] = {}
        self.buckets: dict[str, TokenBucket] = {
            spec: TokenBucket(n, sleep=sleep, clock=clock) for spec, n in self._tpm.items()
        }
        self._providers = {p: asyncio.Semaphore(n) for p, n in self._provider_ceilings.items()}
        #: Turns on the event loop for CPU-heavy steps that make no call.
        self.cpu = LoopTurns()

    def for_model(self, spec: str) -> AdaptiveLimit:
        if spec not in self.models:
            provider = spec.partition(":")[0]
            ceiling = min(
                self._model_ceilings.get(spec, self._default),
                self._provider_ceilings.get(provider, self._default),
                self._default,
            )
            self.models[spec] = AdaptiveLimit(
                ceiling, pause_cap=self._pause_cap, sleep=self._sleep, clock=self._clock
            )
        return self.models[spec]

    def _provider_slot(self, provider: str) -> AbstractAsyncContextManager[object]:
        semaphore = self._providers.get(provider)
        return semaphore if semaphore is not None else nullcontext()

    @asynccontextmanager
    async def slot(self, spec: str, request: ChatRequest | None = None) -> AsyncIterator[CallOutcome]:
        """Pace one attempt: tokens, then the model, provider and global slots, held for its
        duration. The attempt reports back through the outcome it is given."""
        provider = spec.partition(":")[0]
        limit = self.for_model(spec)
        outcome = CallOutcome()
        started = self._clock()
        bucket = self.buckets.get(spec)
        estimate = estimate_tokens(request) if bucket is not None and request is not None else None
        short = await bucket.take(estimate) if bucket is not None and estimate is not None else 0
        await limit.acquire()
        try:
            async with self._provider_slot(provider), self._global:
                outcome.pacing = Pacing(
                    limit=limit.limit,
                    provider_limit=self._provider_ceilings.get(provider),
                    tpm=bucket.capacity if bucket is not None else None,
                    tokens_estimated=estimate,
                    tokens_waited_for=short,
                    wait_s=round(self._clock() - started, 3),
                )
                yield outcome
        finally:
            await limit.release(throttled=outcome.throttled, retry_after=outcome.retry_after)
            if bucket is not None and estimate is not None:
                # A failed call is refunded (the provider counted nothing it answered); a success
                # without usage keeps its estimate.
                used = (
                    outcome.tokens_used if outcome.tokens_used is not None else estimate if outcome.ok else 0
                )
                bucket.settle(estimate, used)
            if outcome.rate_limits is not None:
                self._observe(spec, limit, outcome.rate_limits)
                if outcome.pacing is not None:
                    outcome.pacing.rate_limits = outcome.rate_limits

    def _observe(self, spec: str, limit: AdaptiveLimit, reported: RateLimits) -> None:
        """Feed the provider's own figures into the model's pacing."""
        if reported.tokens_limit:
            bucket = self.buckets.get(spec)
            if bucket is None:
                configured = self._tpm.get(spec)
                start = min(reported.tokens_limit, configured or reported.tokens_limit)
                bucket = self.buckets[spec] = TokenBucket(start, sleep=self._sleep, clock=self._clock)
            bucket.observe(reported.tokens_limit, reported.tokens_remaining, self._tpm.get(spec))
        if reported.requests_remaining == 0 and reported.requests_reset_s:
            limit.pause(reported.requests_reset_s)
