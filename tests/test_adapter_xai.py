"""The xai adapter through the real `xai-sdk` over gRPC, against an in-process Chat service."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import date

import grpc
import pytest

from medeval.adapters.registry import create_adapter
from medeval.adapters.xai_api import XAIAdapter, plaintext_allowed
from medeval.calls.gateway import CallFailed
from medeval.errors import ConfigError
from tests.servers.helpers import CTX, SECRET, chat, leaks, recording_gateway, verification_schema
from tests.servers.xai_grpc import GrpcFault, XAIServer

TODAY = date(2026, 11, 22)
SPEC = "xai:grok-4.6"


@pytest.fixture
def server() -> Iterator[XAIServer]:
    with XAIServer(api_key=SECRET) as running:
        yield running


def adapter(server: XAIServer, timeout: float = 30.0) -> XAIAdapter:
    return XAIAdapter("grok-4.6", api_key=SECRET, api_host=server.host, today=TODAY, timeout=timeout)


def test_get_completion_request_and_recorded_response(server: XAIServer) -> None:
    subject = adapter(server)
    response = asyncio.run(subject.generate(chat(temperature=0.0, top_p=0.5, seed=11)))
    (call,) = server.calls
    assert call.key_seen and call.metadata["authorization"] == "<redacted>"
    request = call.request
    assert request.model == "grok-4.6"
    assert [m.role for m in request.messages] == [3, 1, 2, 1]  # system, user, assistant, user
    assert request.seed == 11 and request.top_p == pytest.approx(0.5) and request.temperature == 0.0
    assert request.HasField("temperature")
    assert request.max_tokens == 256 and request.store_messages is False
    assert "METADATA-MUST-NOT-BE-SENT" not in str(request)

    assert response.served_model == "grok-4.6-2026-11-01"
    assert response.fingerprint == "fp_xai_2026-11-01"
    assert response.response_id == "xai-resp-000001"
    assert response.finish_reason == "REASON_STOP"
    assert response.sampling_sent == {"temperature": 0.0, "top_p": 0.5, "seed": 11, "max_output_tokens": 256}
    assert response.raw["model"] == "grok-4.6-2026-11-01"
    assert response.usage.input_tokens and response.usage.cached_tokens == 0
    assert not leaks(SECRET, response.model_dump(), subject.settings(), [c.metadata for c in server.calls])


def test_structured_output_uses_json_schema_format(server: XAIServer) -> None:
    schema = verification_schema()
    response = asyncio.run(adapter(server).generate(chat(schema=schema)))
    fmt = server.calls[0].request.response_format
    assert fmt.format_type == 3  # FORMAT_TYPE_JSON_SCHEMA
    assert json.loads(fmt.schema) == schema.json_schema
    assert "verdicts" in json.loads(response.text)


def test_resource_exhausted_and_unavailable_are_retried_once_each(server: XAIServer) -> None:
    server.script(
        GrpcFault(grpc.StatusCode.RESOURCE_EXHAUSTED, "rate limit"),
        GrpcFault(grpc.StatusCode.UNAVAILABLE, "try again"),
    )
    gateway, calls = recording_gateway(adapter(server))
    response = asyncio.run(gateway.complete(SPEC, chat(), CTX))
    assert response.text
    # The channel's own UNAVAILABLE retries are off: exactly one server call per recorded attempt.
    assert len(server.calls) == 3
    assert [c.get("error", {}).get("status") for c in calls] == ["RESOURCE_EXHAUSTED", "UNAVAILABLE", None]
    assert all(c["error"]["retryable"] for c in calls[:2])
    assert not leaks(SECRET, calls)
    # RESOURCE_EXHAUSTED is xAI's 429: the model's concurrency backs off, UNAVAILABLE does not.
    assert gateway.limits.for_model(SPEC).throttles == 1


@pytest.mark.parametrize(
    ("code", "details"),
    [
        (grpc.StatusCode.NOT_FOUND, "The model grok-9 does not exist"),
        (grpc.StatusCode.INVALID_ARGUMENT, "max_tokens too large"),
        (grpc.StatusCode.PERMISSION_DENIED, "team has no credits"),
    ],
)
def test_client_errors_fail_at_once(server: XAIServer, code: grpc.StatusCode, details: str) -> None:
    server.script(GrpcFault(code, details))
    gateway, calls = recording_gateway(adapter(server))
    with pytest.raises(CallFailed, match=details):
        asyncio.run(gateway.complete(SPEC, chat(), CTX))
    assert len(calls) == 1 and calls[0]["error"]["status"] == code.name


def test_wrong_key_is_unauthenticated_and_not_retried(server: XAIServer) -> None:
    subject = XAIAdapter("grok-4.6", api_key="xai-wrong-key", api_host=server.host, today=TODAY)
    gateway, calls = recording_gateway(subject)
    with pytest.raises(CallFailed, match="UNAUTHENTICATED"):
        asyncio.run(gateway.complete(SPEC, chat(), CTX))
    assert len(server.calls) == 1 and not leaks("xai-wrong-key", calls)


def test_deadline_and_empty_answer_are_retried(server: XAIServer) -> None:
    server.script(GrpcFault(delay=2.0), GrpcFault(empty=True))
    gateway, calls = recording_gateway(adapter(server, timeout=0.2))
    asyncio.run(gateway.complete(SPEC, chat(), CTX))
    assert [c.get("error", {}).get("status") for c in calls] == ["DEADLINE_EXCEEDED", "malformed", None]


def test_environment_host_and_key(server: XAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XAI_API_HOST", server.host)
    monkeypatch.setenv("XAI_API_KEY", SECRET)
    subject = create_adapter(SPEC)
    response = asyncio.run(subject.generate(chat()))
    assert response.served_model == "grok-4.6-2026-11-01"
    assert subject.settings()["plaintext_channel"] is True


def test_plaintext_only_for_loopback_hosts() -> None:
    assert plaintext_allowed("127.0.0.1:50051") and plaintext_allowed("[::1]:50051")
    assert not plaintext_allowed("api.x.ai") and not plaintext_allowed("proxy.internal:443")
    assert not plaintext_allowed("localhost:50051")  # the SDK uses gRPC local credentials there
    subject = XAIAdapter("grok-4.6", api_key=SECRET, api_host="proxy.internal:443", today=TODAY)
    assert subject.settings()["plaintext_channel"] is False


def test_url_instead_of_host_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="host:port"):
        XAIAdapter("grok-4.6", api_key=SECRET, api_host="http://127.0.0.1:1", today=TODAY)


def test_missing_key_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="XAI_API_KEY"):
        create_adapter(SPEC)


def test_grok_2_is_refused_with_its_successor() -> None:
    with pytest.raises(ConfigError, match=r"grok-2 \(grok-2-1212\) was retired by July 2025.*xai:grok-4.6"):
        XAIAdapter("grok-2", api_key=SECRET, api_host="127.0.0.1:1", today=TODAY)
