"""How many calls may be in flight: one global ceiling, and an adaptive limit per provider.

Each provider's limit starts at its ceiling. A 429 halves it (never below one) and pauses new calls
to that provider for the Retry-After the server asked for, capped; every `raise_after` successes in
a row raise it by one again, back up to the ceiling. This is additive-increase/multiplicative-
decrease, the same rule TCP uses to find a link's capacity without knowing it in advance.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from medeval.adapters.retry import Sleeper, real_sleep


class AdaptiveLimit:
    def __init__(
        self,
        ceiling: int,
        *,
        raise_after: int = 8,
        pause_cap: float = 60.0,
        sleep: Sleeper = real_sleep,
        clock: Callable[[], float] = time.monotonic,
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

    async def release(self, *, throttled: bool = False, retry_after: float | None = None) -> None:
        self.in_flight -= 1
        if throttled:
            self.throttles += 1
            self._successes = 0
            self.limit = max(1, self.limit // 2)
            if retry_after:
                self._paused_until = max(
                    self._paused_until, self._clock() + min(retry_after, self._pause_cap)
                )
        else:
            self._successes += 1
            if self._successes >= self._raise_after and self.limit < self.ceiling:
                self.limit += 1
                self._successes = 0
        async with self._changed:
            self._changed.notify_all()


class Limits:
    """The global ceiling on calls in flight, and one adaptive limit per provider."""

    def __init__(
        self,
        max_concurrency: int,
        per_provider: dict[str, int] | None = None,
        *,
        pause_cap: float = 60.0,
        sleep: Sleeper = real_sleep,
    ) -> None:
        self._global = asyncio.Semaphore(max_concurrency)
        self._ceilings = dict(per_provider or {})
        self._default = max_concurrency
        self._pause_cap = pause_cap
        self._sleep = sleep
        self.providers: dict[str, AdaptiveLimit] = {}

    def for_provider(self, provider: str) -> AdaptiveLimit:
        if provider not in self.providers:
            self.providers[provider] = AdaptiveLimit(
                min(self._ceilings.get(provider, self._default), self._default),
                pause_cap=self._pause_cap,
                sleep=self._sleep,
            )
        return self.providers[provider]

    @asynccontextmanager
    async def slot(self, provider: str) -> AsyncIterator[CallOutcome]:
        """Hold one global and one provider slot for the duration of one attempt."""
        limit = self.for_provider(provider)
        outcome = CallOutcome()
        await limit.acquire()
        try:
            async with self._global:
                yield outcome
        finally:
            await limit.release(throttled=outcome.throttled, retry_after=outcome.retry_after)


class CallOutcome:
    """What the attempt inside a slot learnt about the provider's capacity."""

    def __init__(self) -> None:
        self.throttled = False
        self.retry_after: float | None = None

    def throttle(self, retry_after: float | None) -> None:
        self.throttled = True
        self.retry_after = retry_after
