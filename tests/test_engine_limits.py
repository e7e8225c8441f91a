"""Adaptive per-provider concurrency: halve on 429, pause for Retry-After (capped), creep back up."""

from __future__ import annotations

import asyncio

from medeval.calls.limits import AdaptiveLimit, Limits
from tests.engine_support import Clock


def test_throttle_halves_down_to_one_and_successes_raise_back_to_the_ceiling() -> None:
    async def scenario() -> list[int]:
        limit = AdaptiveLimit(8, raise_after=2)
        seen = []
        for _ in range(4):
            await limit.acquire()
            await limit.release(throttled=True)
            seen.append(limit.limit)
        for _ in range(20):
            await limit.acquire()
            await limit.release()
        seen.append(limit.limit)
        return seen

    assert asyncio.run(scenario()) == [4, 2, 1, 1, 8]


def test_retry_after_pauses_new_calls_up_to_the_cap() -> None:
    clock = Clock()

    async def scenario() -> None:
        limit = AdaptiveLimit(4, pause_cap=30.0, sleep=clock.sleep, clock=clock)
        await limit.acquire()
        await limit.release(throttled=True, retry_after=5.0)
        await limit.acquire()  # waits out the 5 s the server asked for
        await limit.release(throttled=True, retry_after=3600.0)
        await limit.acquire()  # but never more than the cap

    asyncio.run(scenario())
    assert clock.slept == [5.0, 30.0]


def test_calls_in_flight_never_exceed_the_provider_or_global_limit() -> None:
    async def scenario() -> tuple[int, int]:
        limits = Limits(5, {"slow": 2})
        in_flight = {"slow": 0, "fast": 0}
        peak = {"slow": 0, "fast": 0}

        async def call(provider: str) -> None:
            async with limits.slot(provider):
                in_flight[provider] += 1
                peak[provider] = max(peak[provider], in_flight[provider])
                await asyncio.sleep(0)
                in_flight[provider] -= 1

        await asyncio.gather(*(call(p) for p in ["slow", "fast"] * 20))
        return peak["slow"], peak["fast"]

    slow, fast = asyncio.run(scenario())
    assert slow == 2
    assert fast <= 5


def test_a_throttled_slot_lowers_that_model_only() -> None:
    async def scenario() -> tuple[int, int]:
        limits = Limits(8)
        async with limits.slot("a") as outcome:
            outcome.throttle(None)
        async with limits.slot("b"):
            pass
        return limits.for_model("a").limit, limits.for_model("b").limit

    assert asyncio.run(scenario()) == (4, 8)


def test_a_pause_is_waited_once_through_the_injected_sleep_even_if_the_clock_stands_still() -> None:
    # The gateway's tests inject a no-op sleep while the real clock barely moves: the limiter must
    # hand the pause to that sleep once, not poll the clock until the pause has really passed.
    slept: list[float] = []

    async def no_op_sleep(seconds: float) -> None:
        slept.append(seconds)

    async def scenario() -> None:
        limit = AdaptiveLimit(2, pause_cap=60.0, sleep=no_op_sleep, clock=lambda: 100.0)
        await limit.acquire()
        await limit.release(throttled=True, retry_after=20.0)
        await asyncio.wait_for(limit.acquire(), timeout=5)

    asyncio.run(scenario())
    assert slept == [20.0]
