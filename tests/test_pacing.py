"""Pacing per (provider, model): adaptive limits, provider and model ceilings, the tokens-per-minute
bucket, and the providers' rate-limit headers. Every wait goes through a fake clock."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from medeval.adapters.base import (
    ChatRequest,
    ChatResponse,
    Message,
    ProviderError,
    RateLimits,
    Sampling,
    Usage,
)
from medeval.adapters.ratelimits import parse_duration, rate_limits
from medeval.calls.limits import Limits, TokenBucket, estimate_tokens
from tests.engine_support import Clock


def request(chars: int = 400, max_output: int = 100) -> ChatRequest:
    return ChatRequest(
        system="",
        messages=[Message(role="user", content="x" * chars)],
        sampling=Sampling(max_output_tokens=max_output),
    )


def answer(input_tokens: int, output_tokens: int, limits: RateLimits | None = None) -> ChatResponse:
    return ChatResponse(
        text="ok",
        requested_model="m",
        usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens),
        rate_limits=limits,
    )


def test_a_429_on_one_model_leaves_the_other_model_of_the_same_provider_alone() -> None:
    clock = Clock()

    async def scenario() -> tuple[int, int, list[float]]:
        limits = Limits(8, sleep=clock.sleep, clock=clock)
        async with limits.slot("openai:judge") as outcome:
            outcome.failed(ProviderError("429", retryable=True, status=429, retry_after=30.0))
        async with limits.slot("openai:target") as outcome:  # not paused, not halved
            outcome.succeeded(answer(10, 10))
        slept_before_judge = list(clock.slept)
        async with limits.slot("openai:judge"):  # the judge waits out its own Retry-After
            pass
        return (
            limits.for_model("openai:judge").limit,
            limits.for_model("openai:target").limit,
            slept_before_judge,
        )

    judge, target, slept = asyncio.run(scenario())
    assert (judge, target) == (4, 8)
    assert slept == []
    assert clock.slept == [30.0]


def test_the_provider_ceiling_is_shared_by_its_models_and_a_model_ceiling_binds_one_model() -> None:
    async def scenario() -> tuple[int, int]:
        limits = Limits(16, {"p": 3}, {"p:a": 1})
        in_flight = {"p:a": 0, "p:b": 0}
        peak_a = peak_provider = 0

        async def call(spec: str) -> None:
            nonlocal peak_a, peak_provider
            async with limits.slot(spec):
                in_flight[spec] += 1
                peak_a = max(peak_a, in_flight["p:a"])
                peak_provider = max(peak_provider, sum(in_flight.values()))
                await asyncio.sleep(0)
                in_flight[spec] -= 1

        await asyncio.gather(*(call(s) for s in ["p:a", "p:b"] * 20))
        return peak_a, peak_provider

    peak_a, peak_provider = asyncio.run(scenario())
    assert peak_a == 1
    assert peak_provider == 3


def test_the_token_bucket_waits_for_the_shortfall_and_reconciles_with_the_usage() -> None:
    clock = Clock()

    async def scenario() -> tuple[int, int, float]:
        bucket = TokenBucket(6000, sleep=clock.sleep, clock=clock)  # 100 tokens a second
        first = await bucket.take(5000)
        second = await bucket.take(3000)  # 1000 left: waits 20 s for the other 2000
        bucket.settle(3000, 1000)  # the call used less than estimated: 2000 back
        return first, second, bucket.level

    first, second, level = asyncio.run(scenario())
    assert (first, second) == (0, 2000)
    assert clock.slept == [20.0]
    assert level == 2000.0


def test_a_tpm_budget_paces_one_model_and_records_what_it_waited_for() -> None:
    clock = Clock()

    async def scenario() -> list[dict[str, object]]:
        limits = Limits(8, tpm={"openai:judge": 1200}, sleep=clock.sleep, clock=clock)
        paced: list[dict[str, object]] = []
        for _ in range(3):
            async with limits.slot("openai:judge", request(chars=1600, max_output=100)) as outcome:
                outcome.succeeded(answer(400, 100))  # 500 used of 501 estimated
            assert outcome.pacing is not None
            paced.append(outcome.pacing.record())
        async with limits.slot("openai:target", request(chars=40_000)) as outcome:
            pass  # no budget for the target: no wait
        assert outcome.pacing is not None
        paced.append(outcome.pacing.record())
        return paced

    paced = asyncio.run(scenario())
    assert estimate_tokens(request(chars=1600, max_output=100)) == 501
    assert [p["tokens_waited_for"] for p in paced[:3]] == [0, 0, 301]
    assert paced[2]["wait_s"] == 15.05  # 301 tokens at 20 a second
    assert paced[2]["tpm"] == 1200 and paced[2]["tokens_estimated"] == 501
    assert paced[3] == {"limit": 8, "tokens_waited_for": 0, "wait_s": 0.0}


def test_reported_rate_limits_create_and_lower_the_bucket_and_an_empty_request_budget_pauses() -> None:
    clock = Clock()

    async def scenario() -> tuple[int, float, list[float]]:
        limits = Limits(8, sleep=clock.sleep, clock=clock)
        reported = RateLimits(
            tokens_limit=60_000, tokens_remaining=500, requests_remaining=0, requests_reset_s=2.0
        )
        async with limits.slot("anthropic:judge", request()) as outcome:
            outcome.succeeded(answer(100, 20, reported))
        bucket = limits.buckets["anthropic:judge"]
        capacity, level = bucket.capacity, bucket.level
        async with limits.slot("anthropic:judge", request(chars=4000, max_output=0)):
            pass  # needs 1001 tokens, 500 there: waits for the reset pause, then 501 more tokens
        return capacity, level, clock.slept

    capacity, level, slept = asyncio.run(scenario())
    assert (capacity, level) == (60_000, 500.0)
    assert slept == pytest.approx([0.501, 1.499])


def test_a_failed_call_is_refunded() -> None:
    clock = Clock()

    async def scenario() -> float:
        limits = Limits(8, tpm={"openai:m": 6000}, sleep=clock.sleep, clock=clock)
        async with limits.slot("openai:m", request(chars=4000, max_output=0)) as outcome:
            outcome.failed(ProviderError("500", retryable=True, status=500))
        return limits.buckets["openai:m"].level

    assert asyncio.run(scenario()) == 6000.0


def test_openai_rate_limit_headers_are_read_with_their_durations() -> None:
    assert parse_duration("6m0s") == 360.0
    assert parse_duration("20ms") == 0.02
    assert parse_duration("1h2m3.5s") == 3723.5
    assert parse_duration("2") == 2.0
    assert parse_duration("soon") is None
    found = rate_limits(
        {
            "x-ratelimit-limit-requests": "5000",
            "x-ratelimit-remaining-requests": "4999",
            "x-ratelimit-reset-requests": "12ms",
            "X-RateLimit-Limit-Tokens": "160000",
            "x-ratelimit-remaining-tokens": "159976",
            "x-ratelimit-reset-tokens": "6m0s",
            "content-type": "application/json",
        }
    )
    assert found == RateLimits(
        requests_limit=5000,
        requests_remaining=4999,
        requests_reset_s=0.012,
        tokens_limit=160_000,
        tokens_remaining=159_976,
        tokens_reset_s=360.0,
    )
    assert rate_limits({"content-type": "application/json"}) is None


def test_anthropic_rate_limit_headers_are_read_with_their_timestamps() -> None:
    now = datetime(2026, 11, 24, 12, 0, 0, tzinfo=UTC)
    found = rate_limits(
        {
            "anthropic-ratelimit-requests-limit": "1000",
            "anthropic-ratelimit-requests-remaining": "999",
            "anthropic-ratelimit-requests-reset": "2026-11-24T12:00:01Z",
            "anthropic-ratelimit-tokens-limit": "96000",
            "anthropic-ratelimit-tokens-remaining": "95000",
            "anthropic-ratelimit-tokens-reset": "2026-11-24T12:00:30Z",
            "anthropic-ratelimit-input-tokens-limit": "80000",
        },
        now,
    )
    assert found == RateLimits(
        requests_limit=1000,
        requests_remaining=999,
        requests_reset_s=1.0,
        tokens_limit=96_000,
        tokens_remaining=95_000,
        tokens_reset_s=30.0,
    )
