"""The openai and openai-compatible adapters, through the real `openai` SDK, against the loopback
server speaking the OpenAI wire format."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import date

import pytest

from medeval.adapters.base import ProviderError
from medeval.adapters.openai_api import OpenAIAdapter, OpenAICompatibleAdapter, strict_compatible
from medeval.adapters.registry import create_adapter
from medeval.calls.gateway import CallFailed
from medeval.errors import ConfigError
from medeval.testing.loopback import Fault, LoopbackServer
from tests.servers.helpers import CTX, SECRET, chat, leaks, recording_gateway, verification_schema

TODAY = date(2026, 11, 22)


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(api_key=SECRET) as running:
        yield running


def adapter(server: LoopbackServer, model: str = "gpt-6-luna", timeout: float = 120.0) -> OpenAIAdapter:
    return OpenAIAdapter(model, api_key=SECRET, base_url=server.base_url, today=TODAY, timeout=timeout)


def test_chat_completions_request_and_recorded_response(server: LoopbackServer) -> None:
    subject = OpenAIAdapter("gpt-4o-mini", api_key=SECRET, base_url=server.base_url, today=TODAY)
    response = asyncio.run(subject.generate(chat()))

    (sent,) = server.requests
    assert sent.method == "POST" and sent.path == "/v1/chat/completions"
    assert sent.key_header == "authorization"
    assert sent.headers["authorization"] == "Bearer <redacted>"
    assert sent.headers["x-stainless-retry-count"] == "0"
    assert sent.body["model"] == "gpt-4o-mini"
    assert [m["role"] for m in sent.body["messages"]] == ["system", "user", "assistant", "user"]
    assert sent.body["temperature"] == 0.0 and sent.body["seed"] == 7
    assert sent.body["max_completion_tokens"] == 256
    assert "response_format" not in sent.body
    assert "METADATA-MUST-NOT-BE-SENT" not in json.dumps(sent.body)

    assert response.served_model == "gpt-4o-mini-2026-11-01"
    assert response.fingerprint == "fp_loopback_2026-11-01"
    assert response.request_id == "req_loopback_000001"
    assert response.response_id and response.response_id.startswith("chatcmpl-")
    assert response.finish_reason == "stop"
    assert response.usage.output_tokens and response.usage.reasoning_tokens == 0
    assert response.sampling_sent == {"temperature": 0.0, "seed": 7, "max_output_tokens": 256}
    assert response.sampling_dropped == {}
    assert response.raw["model"] == "gpt-4o-mini-2026-11-01"
    assert not leaks(SECRET, response.model_dump(), server.requests[0].model_dump(), subject.settings())


def test_empty_system_sends_no_system_message(server: LoopbackServer) -> None:
    asyncio.run(adapter(server).generate(chat(system="")))
    assert [m["role"] for m in server.requests[0].body["messages"]] == ["user", "assistant", "user"]


def test_reasoning_family_drops_temperature_and_top_p_but_sends_seed(server: LoopbackServer) -> None:
    response = asyncio.run(adapter(server, "gpt-6-luna").generate(chat(temperature=0.0, top_p=0.5)))
    body = server.requests[0].body
    assert "temperature" not in body and "top_p" not in body
    assert body["seed"] == 7
    assert response.sampling_sent == {"seed": 7, "max_output_tokens": 256}
    assert set(response.sampling_dropped) == {"temperature", "top_p"}
    assert "does not accept temperature" in response.sampling_dropped["temperature"]["reason"]


def test_structured_output_uses_json_schema_mode(server: LoopbackServer) -> None:
    schema = verification_schema()
    response = asyncio.run(adapter(server).generate(chat(schema=schema)))
    fmt = server.requests[0].body["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["name"] == "verification"
    assert fmt["json_schema"]["schema"] == schema.json_schema
    assert fmt["json_schema"]["strict"] is strict_compatible(schema.json_schema)
    assert "verdicts" in json.loads(response.text)


def test_strict_mode_only_for_closed_schemas() -> None:
    closed = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": False,
    }
    assert strict_compatible(closed)
    assert not strict_compatible({**closed, "required": []})
    assert not strict_compatible({**closed, "additionalProperties": True})


def test_responses_api_family_sends_store_false_and_no_seed(server: LoopbackServer) -> None:
    response = asyncio.run(adapter(server, "o3-pro").generate(chat(schema=verification_schema())))
    sent = server.requests[0]
    assert sent.path == "/v1/responses"
    assert sent.body["store"] is False
    assert sent.body["instructions"] == "You are a helpful assistant."
    assert "seed" not in sent.body and "temperature" not in sent.body
    assert sent.body["text"]["format"]["name"] == "verification"
    assert sent.body["max_output_tokens"] == 256
    assert response.served_model == "o3-pro-2026-11-01"
    assert response.fingerprint is None
    assert set(response.sampling_dropped) == {"seed", "temperature"}
    assert "verdicts" in json.loads(response.text)


def test_retries_429_500_503_then_success_every_attempt_recorded(server: LoopbackServer) -> None:
    server.script(Fault.rate_limited("0"), Fault.server_error(500), Fault.unavailable())
    gateway, calls = recording_gateway(adapter(server), max_attempts=4)
    response = asyncio.run(gateway.complete("openai:gpt-6-luna", chat(), CTX))
    assert response.served_model == "gpt-6-luna-2026-11-01"
    assert server.request_count == 4
    assert [c["attempt"] for c in calls] == [1, 2, 3, 4]
    assert [c.get("error", {}).get("status") for c in calls] == [429, 500, 503, None]
    assert calls[0]["error"]["retry_after"] == 0.0 and calls[0]["error"]["retryable"]
    assert calls[0]["error"]["request_id"] == "req_loopback_000001"
    assert calls[3]["response"]["request_id"] == "req_loopback_000004"
    assert not leaks(SECRET, calls, [r.model_dump() for r in server.requests])


def test_retry_after_seconds_are_parsed(server: LoopbackServer) -> None:
    server.script(Fault.rate_limited("7"))
    with pytest.raises(ProviderError) as caught:
        asyncio.run(adapter(server).generate(chat()))
    assert caught.value.retryable and caught.value.retry_after == 7.0 and caught.value.status == 429


def test_gives_up_after_bounded_attempts(server: LoopbackServer) -> None:
    server.script(*[Fault.server_error(502)] * 5)
    gateway, calls = recording_gateway(adapter(server), max_attempts=3)
    with pytest.raises(CallFailed, match="after 3 attempts"):
        asyncio.run(gateway.complete("openai:gpt-6-luna", chat(), CTX))
    assert server.request_count == 3 and len(calls) == 3


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        (Fault.error(400, "Invalid value for 'messages'"), 400),
        (Fault.error(404, "The model `gpt-9` does not exist"), 404),
    ],
)
def test_client_errors_fail_at_once_with_the_provider_message(
    server: LoopbackServer, fault: Fault, status: int
) -> None:
    server.script(fault)
    gateway, calls = recording_gateway(adapter(server))
    with pytest.raises(CallFailed) as caught:
        asyncio.run(gateway.complete("openai:gpt-6-luna", chat(), CTX))
    assert fault.message in str(caught.value) and "after 1 attempt" in str(caught.value)
    assert server.request_count == 1
    assert calls[0]["error"]["status"] == status and calls[0]["error"]["retryable"] is False


def test_wrong_key_is_401_not_retried() -> None:
    with LoopbackServer(api_key=SECRET) as server:
        subject = OpenAIAdapter("gpt-6-luna", api_key="sk-wrong", base_url=server.base_url, today=TODAY)
        gateway, calls = recording_gateway(subject)
        with pytest.raises(CallFailed, match="HTTP 401"):
            asyncio.run(gateway.complete("openai:gpt-6-luna", chat(), CTX))
        assert server.request_count == 1 and not leaks("sk-wrong", calls)


def test_unknown_model_is_not_retried() -> None:
    with LoopbackServer(unknown_models=["gpt-nope"]) as server:
        subject = OpenAIAdapter("gpt-nope", api_key=SECRET, base_url=server.base_url, today=TODAY)
        gateway, _ = recording_gateway(subject)
        with pytest.raises(CallFailed, match="does not exist"):
            asyncio.run(gateway.complete("openai:gpt-nope", chat(), CTX))
        assert server.request_count == 1


def test_slow_response_times_out_and_is_retried(server: LoopbackServer) -> None:
    server.script(Fault.slow(5.0))
    gateway, calls = recording_gateway(adapter(server, timeout=0.2))
    response = asyncio.run(gateway.complete("openai:gpt-6-luna", chat(), CTX))
    assert calls[0]["error"]["status"] == "timeout" and calls[0]["error"]["retryable"]
    assert response.text and len(calls) == 2


def test_malformed_body_is_retried_then_reported(server: LoopbackServer) -> None:
    server.script(Fault.malformed(), Fault.malformed())
    gateway, calls = recording_gateway(adapter(server), max_attempts=2)
    with pytest.raises(CallFailed, match="malformed response body"):
        asyncio.run(gateway.complete("openai:gpt-6-luna", chat(), CTX))
    assert [c["error"]["status"] for c in calls] == ["malformed", "malformed"]


def test_sdk_reads_openai_base_url_and_key_from_environment(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    subject = create_adapter("openai:gpt-6-luna")
    asyncio.run(subject.generate(chat()))
    assert server.requests[0].key_header == "authorization"
    assert subject.settings()["base_url"].startswith(server.base_url)
    assert not leaks(SECRET, subject.settings())


def test_missing_key_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        create_adapter("openai:gpt-6-luna")


def test_retired_model_refused_before_any_call() -> None:
    with pytest.raises(ConfigError, match=r"retired on 2026-10-23.*gpt-6-luna"):
        OpenAIAdapter("gpt-4.1-nano", api_key=SECRET, base_url="http://127.0.0.1:9/v1", today=TODAY)


def test_deprecated_model_warns_until_its_shutdown_then_is_refused() -> None:
    with pytest.warns(UserWarning, match="gpt-4.1 is deprecated and stops working on 2027-01-14"):
        OpenAIAdapter("gpt-4.1", api_key=SECRET, base_url="http://127.0.0.1:9/v1", today=TODAY)
    with pytest.raises(ConfigError, match="retired on 2027-01-14"):
        OpenAIAdapter("gpt-4.1", api_key=SECRET, base_url="http://127.0.0.1:9/v1", today=date(2027, 1, 14))


def test_openai_compatible_reads_base_url_needs_no_key(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with LoopbackServer() as local:
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", local.base_url)
        subject = create_adapter("openai-compatible:llama3.1:8b")
        assert isinstance(subject, OpenAICompatibleAdapter)
        response = asyncio.run(subject.generate(chat()))
        body = local.requests[0].body
        assert body["model"] == "llama3.1:8b" and body["max_tokens"] == 256
        assert "max_completion_tokens" not in body
        assert response.served_model == "llama3.1:8b-2026-11-01"
        assert subject.settings()["base_url"].startswith(local.base_url)


def test_openai_compatible_without_base_url_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="OPENAI_COMPATIBLE_BASE_URL"):
        create_adapter("openai-compatible:llama3")
