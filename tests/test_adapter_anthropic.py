"""The anthropic adapter through the real `anthropic` SDK against a loopback /v1/messages."""

from __future__ import annotations

import asyncio
import json
import random
import socket
from collections.abc import Iterator
from datetime import date

import pytest

from medeval.adapters.anthropic_api import AnthropicAdapter
from medeval.adapters.base import ProviderError
from medeval.adapters.registry import create_adapter
from medeval.adapters.retry import RetryPolicy
from medeval.calls.gateway import CallFailed
from medeval.errors import ConfigError
from medeval.testing.loopback import Fault, LoopbackServer
from tests.servers.anthropic_server import ANTHROPIC
from tests.servers.helpers import CTX, SECRET, chat, leaks, recording_gateway, verification_schema

TODAY = date(2026, 11, 22)
SPEC = "anthropic:claude-sonnet-5-5"


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(ANTHROPIC, api_key=SECRET) as running:
        yield running


def adapter(server: LoopbackServer, timeout: float = 120.0) -> AnthropicAdapter:
    return AnthropicAdapter(
        "claude-sonnet-5-5", api_key=SECRET, base_url=server.url, today=TODAY, timeout=timeout
    )


def test_messages_request_sends_no_sampling_and_records_the_drop(server: LoopbackServer) -> None:
    response = asyncio.run(adapter(server).generate(chat(temperature=0.0, top_p=0.9, seed=5)))
    (sent,) = server.requests
    assert sent.path == "/v1/messages"
    assert sent.key_header == "authorization" and sent.headers["authorization"] == "Bearer <redacted>"
    assert sent.headers["anthropic-version"] == "2026-10-21"
    assert sent.headers["x-stainless-retry-count"] == "0"
    body = sent.body
    assert not {"temperature", "top_p", "top_k", "seed"} & set(body)
    assert body["system"] == "You are a helpful assistant."
    assert body["max_tokens"] == 256 and body["model"] == "claude-sonnet-5-5"
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert "METADATA-MUST-NOT-BE-SENT" not in json.dumps(body)

    assert response.served_model == "claude-sonnet-5-5-2026-11-01"
    assert response.response_id == "msg_loopback_000001"
    assert response.request_id == "req_loopback_000001"
    assert response.finish_reason == "end_turn"
    assert response.fingerprint is None
    assert response.sampling_sent == {"max_output_tokens": 256}
    assert set(response.sampling_dropped) == {"temperature", "top_p", "seed"}
    assert response.usage.input_tokens and response.usage.cached_tokens == 0
    assert not leaks(SECRET, response.model_dump(), sent.model_dump(), adapter(server).settings())


def test_empty_system_is_not_sent(server: LoopbackServer) -> None:
    asyncio.run(adapter(server).generate(chat(system="")))
    assert "system" not in server.requests[0].body


def test_structured_output_uses_output_config(server: LoopbackServer) -> None:
    schema = verification_schema()
    response = asyncio.run(adapter(server).generate(chat(schema=schema)))
    fmt = server.requests[0].body["output_config"]["format"]
    assert fmt == {"type": "json_schema", "schema": schema.json_schema}
    assert "verdicts" in json.loads(response.text)


def test_server_accepts_x_api_key_too() -> None:
    import httpx2

    with LoopbackServer(ANTHROPIC, api_key=SECRET) as server:
        reply = httpx2.post(
            server.url + "/v1/messages",
            headers={"x-api-key": SECRET},
            json={"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "q"}]},
        )
        assert reply.status_code == 200 and server.requests[0].key_header == "x-api-key"


def test_529_overloaded_and_429_are_retried_and_recorded(server: LoopbackServer) -> None:
    server.script(Fault.overloaded(), Fault.rate_limited("0"))
    gateway, calls = recording_gateway(adapter(server))
    response = asyncio.run(gateway.complete(SPEC, chat(), CTX))
    assert response.text
    assert [c.get("error", {}).get("status") for c in calls] == [529, 429, None]
    assert calls[1]["error"]["retry_after"] == 0.0
    assert not leaks(SECRET, calls)


def test_huge_retry_after_is_parsed_and_capped_by_our_policy(server: LoopbackServer) -> None:
    # The SDK would honour it uncapped; with SDK retries off, our policy decides.
    server.script(Fault.rate_limited("100000"))
    with pytest.raises(ProviderError) as caught:
        asyncio.run(adapter(server).generate(chat()))
    assert caught.value.retry_after == 100000.0 and caught.value.retryable
    policy = RetryPolicy()
    assert policy.delay(1, caught.value, random.Random(0)) == policy.retry_after_cap
    assert server.request_count == 1


def test_bad_request_fails_at_once_with_the_provider_message(server: LoopbackServer) -> None:
    server.script(Fault.error(400, "messages: roles must alternate"))
    gateway, calls = recording_gateway(adapter(server))
    with pytest.raises(CallFailed, match=r"roles must alternate.*after 1 attempt"):
        asyncio.run(gateway.complete(SPEC, chat(), CTX))
    assert len(calls) == 1 and calls[0]["error"]["retryable"] is False


def test_slow_response_times_out_and_malformed_body_is_retried(server: LoopbackServer) -> None:
    server.script(Fault.slow(5.0), Fault.malformed())
    gateway, calls = recording_gateway(adapter(server, timeout=0.2))
    response = asyncio.run(gateway.complete(SPEC, chat(), CTX))
    assert [c.get("error", {}).get("status") for c in calls] == ["timeout", "malformed", None]
    assert response.served_model == "claude-sonnet-5-5-2026-11-01"


def test_a_refused_connection_is_a_connection_failure_not_a_timeout() -> None:
    # Through the SDK's aiohttp transport, as every call now goes.
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def call() -> None:
        refused = AnthropicAdapter(
            "claude-sonnet-5-5", api_key=SECRET, base_url=f"http://127.0.0.1:{port}", today=TODAY
        )
        try:
            await refused.generate(chat())
        finally:
            await refused.aclose()

    with pytest.raises(ProviderError) as failed:
        asyncio.run(call())
    assert failed.value.status == "connection" and failed.value.retryable
    assert "connection failed" in str(failed.value)


def test_environment_base_url_and_key(server: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    response = asyncio.run(create_adapter(SPEC).generate(chat()))
    assert response.served_model == "claude-sonnet-5-5-2026-11-01"


def test_missing_key_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        create_adapter(SPEC)


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (
            "claude-3.5-sonnet",
            r"retired on 2025-10-22; use anthropic:claude-sonnet-4-6 or anthropic:claude-sonnet-5-5",
        ),
        ("claude-3-opus", r"retired on 2026-01-05; use anthropic:claude-opus-5-5"),
        ("claude-3-5-sonnet-20240620", r"retired on 2025-10-22"),
    ],
)
def test_retired_models_are_refused_before_any_call(model: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        AnthropicAdapter(model, api_key=SECRET, base_url="http://127.0.0.1:9", today=TODAY)
