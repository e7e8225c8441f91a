"""The google adapter through the real `google-genai` SDK against a loopback generateContent."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import date

import pytest

from medeval.adapters.google_api import GoogleAdapter
from medeval.adapters.registry import create_adapter
from medeval.calls.gateway import CallFailed
from medeval.errors import ConfigError
from medeval.testing.loopback import Fault, LoopbackServer
from tests.servers.gemini_server import GEMINI
from tests.servers.helpers import CTX, SECRET, chat, leaks, recording_gateway, verification_schema

TODAY = date(2026, 11, 22)
SPEC = "google:gemini-3.8-flash"


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(GEMINI, api_key=SECRET) as running:
        yield running


def adapter(server: LoopbackServer, timeout: float = 120.0, api_version: str | None = None) -> GoogleAdapter:
    return GoogleAdapter(
        "gemini-3.8-flash",
        api_key=SECRET,
        base_url=server.url,
        today=TODAY,
        timeout=timeout,
        api_version=api_version,
    )


def test_generate_content_request_and_recorded_response(server: LoopbackServer) -> None:
    subject = adapter(server)
    response = asyncio.run(subject.generate(chat(temperature=0.0, top_p=0.5, seed=9)))
    (sent,) = server.requests
    assert sent.path == "/v1beta/models/gemini-3.8-flash:generateContent"
    assert sent.key_header == "x-goog-api-key" and sent.headers["x-goog-api-key"] == "<redacted>"
    body = sent.body
    assert [c["role"] for c in body["contents"]] == ["user", "model", "user"]
    assert body["systemInstruction"]["parts"][0]["text"] == "You are a helpful assistant."
    assert body["generationConfig"] == {"temperature": 0.0, "topP": 0.5, "seed": 9, "maxOutputTokens": 256}
    assert "METADATA-MUST-NOT-BE-SENT" not in json.dumps(body)
    # automatic continuation / function calling are client-side switches, never sent
    assert "automaticContinuation" not in json.dumps(body)

    assert response.served_model == "gemini-3.8-flash-2026-11-01"
    assert response.response_id == "gemini-resp-000001"
    assert response.request_id == "req_loopback_000001"
    assert response.finish_reason == "STOP"
    assert response.sampling_sent == {"temperature": 0.0, "top_p": 0.5, "seed": 9, "max_output_tokens": 256}
    assert response.raw["modelVersion"] == "gemini-3.8-flash-2026-11-01"
    assert response.usage.output_tokens and response.usage.reasoning_tokens == 0
    assert not leaks(SECRET, response.model_dump(), sent.model_dump(), subject.settings())


def test_async_traffic_goes_through_httpx2_not_aiohttp(server: LoopbackServer) -> None:
    asyncio.run(adapter(server).generate(chat()))
    assert "aiohttp" not in server.requests[0].headers.get("user-agent", "").lower()
    assert adapter(server).settings()["http_client"].startswith("httpx2")


def test_api_version_is_explicit_and_configurable(server: LoopbackServer) -> None:
    asyncio.run(adapter(server, api_version="v1").generate(chat()))
    assert server.requests[0].path == "/v1/models/gemini-3.8-flash:generateContent"


def test_empty_system_is_not_sent(server: LoopbackServer) -> None:
    asyncio.run(adapter(server).generate(chat(system="")))
    assert "systemInstruction" not in server.requests[0].body


def test_structured_output_uses_response_json_schema(server: LoopbackServer) -> None:
    schema = verification_schema()
    response = asyncio.run(adapter(server).generate(chat(schema=schema)))
    config = server.requests[0].body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == schema.json_schema
    assert "verdicts" in json.loads(response.text)


def test_retries_429_and_503_with_retry_after(server: LoopbackServer) -> None:
    server.script(Fault.rate_limited("0"), Fault.unavailable())
    gateway, calls = recording_gateway(adapter(server))
    response = asyncio.run(gateway.complete(SPEC, chat(), CTX))
    assert response.served_model == "gemini-3.8-flash-2026-11-01"
    assert [c.get("error", {}).get("status") for c in calls] == [429, 503, None]
    assert calls[0]["error"]["retry_after"] == 0.0
    assert server.request_count == 3
    assert not leaks(SECRET, calls)


def test_slow_and_malformed_are_retried(server: LoopbackServer) -> None:
    server.script(Fault.slow(5.0), Fault.malformed())
    gateway, calls = recording_gateway(adapter(server, timeout=0.2))
    asyncio.run(gateway.complete(SPEC, chat(), CTX))
    assert [c.get("error", {}).get("status") for c in calls] == ["timeout", "malformed", None]


def test_unknown_model_fails_at_once_with_the_provider_message() -> None:
    with LoopbackServer(GEMINI, api_key=SECRET, unknown_models=["gemini-0"]) as server:
        subject = GoogleAdapter("gemini-0", api_key=SECRET, base_url=server.url, today=TODAY)
        gateway, calls = recording_gateway(subject)
        with pytest.raises(CallFailed, match="models/gemini-0 is not found"):
            asyncio.run(gateway.complete("google:gemini-0", chat(), CTX))
        assert len(calls) == 1 and calls[0]["error"]["status"] == 404


def test_environment_base_url_and_either_key_variable(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.url)
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)
    response = asyncio.run(create_adapter(SPEC).generate(chat()))
    assert response.served_model == "gemini-3.8-flash-2026-11-01"


def test_missing_key_names_both_variables() -> None:
    with pytest.raises(ConfigError, match="GOOGLE_API_KEY or GEMINI_API_KEY"):
        create_adapter(SPEC)


def test_gemini_1_5_pro_is_refused_with_its_successor() -> None:
    with pytest.raises(
        ConfigError,
        match=r"retired about September 2025 \(exact date unverified\); use google:gemini-3.8-flash",
    ):
        GoogleAdapter("gemini-1.5-pro", api_key=SECRET, base_url="http://127.0.0.1:9", today=TODAY)


def test_raw_payload_belongs_to_its_own_call_under_concurrency(server: LoopbackServer) -> None:
    subject = adapter(server)

    async def many() -> list[tuple[str | None, object]]:
        responses = await asyncio.gather(*(subject.generate(chat(text=f"question {i}")) for i in range(20)))
        return [(r.response_id, r.raw.get("responseId")) for r in responses]

    pairs = asyncio.run(many())
    assert len({rid for rid, _ in pairs}) == 20
    assert all(rid == raw for rid, raw in pairs)
