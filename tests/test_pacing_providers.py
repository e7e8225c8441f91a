"""Pacing fed by real providers' SDKs over loopback HTTP: the rate-limit headers each one sends, a
429 on one model, and what the call records say about it."""

from __future__ import annotations

import asyncio
from datetime import date
from typing import Any

import pytest

from medeval.adapters.anthropic_api import AnthropicAdapter
from medeval.adapters.base import ModelAPI
from medeval.adapters.openai_api import OpenAIAdapter
from medeval.adapters.retry import RetryPolicy
from medeval.calls.gateway import CallContext, Gateway
from medeval.calls.limits import Limits
from medeval.testing.loopback import Fault, LoopbackServer, ReceivedRequest
from tests.servers.anthropic_server import ANTHROPIC
from tests.servers.helpers import SECRET, chat, no_sleep
from tests.test_pacing import Clock

TODAY = date(2026, 11, 22)
TARGET, JUDGE = "openai:gpt-4o-mini", "openai:gpt-6-luna"


def openai_headers(request: ReceivedRequest) -> dict[str, str]:
    judge = isinstance(request.body, dict) and request.body.get("model") == "gpt-6-luna"
    return {
        "x-ratelimit-limit-requests": "500",
        "x-ratelimit-remaining-requests": "499",
        "x-ratelimit-reset-requests": "120ms",
        "x-ratelimit-limit-tokens": "30000" if judge else "200000",
        "x-ratelimit-remaining-tokens": "12000" if judge else "199000",
        "x-ratelimit-reset-tokens": "1m0s",
    }


def gateway(adapters: list[ModelAPI], limits: Limits) -> tuple[Gateway, list[dict[str, Any]]]:
    calls: list[dict[str, Any]] = []
    subject = Gateway(
        calls.append,
        adapters={a.spec: a for a in adapters},
        retry=RetryPolicy(max_attempts=3),
        sleep=no_sleep,
        limits=limits,
    )
    return subject, calls


def test_a_429_on_the_judge_model_does_not_slow_the_target_model_and_headers_feed_the_pacing() -> None:
    clock = Clock()
    with LoopbackServer(api_key=SECRET, reply_headers=openai_headers) as server:
        target = OpenAIAdapter("gpt-4o-mini", api_key=SECRET, base_url=server.base_url, today=TODAY)
        judge = OpenAIAdapter("gpt-6-luna", api_key=SECRET, base_url=server.base_url, today=TODAY)
        limits = Limits(8, tpm={JUDGE: 20000}, sleep=clock.sleep, clock=clock)
        subject, calls = gateway([target, judge], limits)
        server.script(
            Fault.rate_limited(retry_after="7").model_copy(
                update={"headers": {"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "7s"}}
            )
        )

        async def scenario() -> None:
            await subject.complete(JUDGE, chat(), CallContext(run_id="r", trial_id="t", role="verifier"))
            await subject.complete(TARGET, chat(), CallContext(run_id="r", trial_id="t", role="target"))
            await subject.aclose()

        asyncio.run(scenario())

    throttled, judged, targeted = calls
    assert throttled["error"]["status"] == 429 and throttled["concurrency_limit"] == 8
    assert throttled["pacing"]["rate_limits"] == {
        "requests_limit": 500,
        "requests_remaining": 499,
        "requests_reset_s": 0.12,
        "tokens_limit": 30000,
        "tokens_remaining": 0,
        "tokens_reset_s": 7.0,
    }
    # The judge's retry waited out the Retry-After and, with no tokens left, for its estimate.
    assert judged["concurrency_limit"] == 4
    assert judged["pacing"]["tokens_estimated"] > 0
    assert judged["pacing"]["tokens_waited_for"] == judged["pacing"]["tokens_estimated"]
    assert judged["pacing"]["tpm"] == 20000  # the configured budget, below the provider's 30000
    assert judged["pacing"]["rate_limits"]["tokens_remaining"] == 12000
    assert "rate_limits" not in judged["response"]  # the provider's budget is pacing, not a response
    # The target's model was never throttled and never waited.
    assert targeted["concurrency_limit"] == 8
    assert targeted["pacing"]["wait_s"] == 0.0 and targeted["pacing"]["tokens_waited_for"] == 0
    assert "tpm" not in targeted["pacing"]  # no bucket before the first reply reported one
    assert limits.buckets[TARGET].capacity == 200000
    assert limits.for_model(TARGET).limit == 8 and limits.for_model(JUDGE).limit == 4
    # Waiting for the tokens counted towards the Retry-After pause: 7 s in all, not more.
    assert sum(clock.slept) == pytest.approx(7.0)


def anthropic_headers(request: ReceivedRequest) -> dict[str, str]:
    return {
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-requests-remaining": "49",
        "anthropic-ratelimit-requests-reset": "2026-11-24T12:00:01Z",
        "anthropic-ratelimit-tokens-limit": "40000",
        "anthropic-ratelimit-tokens-remaining": "39000",
        "anthropic-ratelimit-tokens-reset": "2026-11-24T12:00:02Z",
    }


def test_anthropic_rate_limit_headers_reach_the_call_record_and_the_bucket() -> None:
    clock = Clock()
    with LoopbackServer(ANTHROPIC, api_key=SECRET, reply_headers=anthropic_headers) as server:
        model = AnthropicAdapter("claude-sonnet-5-5", api_key=SECRET, base_url=server.url, today=TODAY)
        limits = Limits(8, sleep=clock.sleep, clock=clock)
        subject, calls = gateway([model], limits)

        async def scenario() -> None:
            for _ in range(2):
                await subject.complete(
                    model.spec, chat(), CallContext(run_id="r", trial_id="t", role="target")
                )
            await subject.aclose()

        asyncio.run(scenario())

    first, second = calls
    assert first["pacing"]["rate_limits"]["tokens_limit"] == 40000
    assert first["pacing"]["rate_limits"]["requests_remaining"] == 49
    assert "tpm" not in first["pacing"]
    assert second["pacing"]["tpm"] == 40000 and second["pacing"]["tokens_waited_for"] == 0
    assert limits.buckets[model.spec].capacity == 40000
