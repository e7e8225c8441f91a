"""`xai:` on the official `xai-sdk` (1.x, gRPC).

The endpoint comes from `XAI_API_HOST` (host:port, default api.x.ai over TLS). A plaintext channel
is used only for loopback hosts (127.0.0.1, ::1; `localhost:` gets gRPC local credentials), so a
key never crosses a network in clear text. The channel's own retry policy (UNAVAILABLE x5) is
switched off: the gateway's one policy sees and records every attempt.
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import date
from importlib import metadata
from typing import Any

import grpc
from google.protobuf import json_format
from xai_sdk import AsyncClient
from xai_sdk.chat import assistant, system, user
from xai_sdk.proto import chat_pb2

from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI, Usage
from medeval.adapters.catalog import (
    CatalogModel,
    filter_sampling,
)
from medeval.adapters.retry import grpc_error, malformed_error
from medeval.errors import ConfigError
from medeval.keys import endpoint, require_key

DEFAULT_TIMEOUT = 120.0


def host_of(api_host: str) -> str:
    if api_host.startswith("["):
        return api_host[1 : api_host.find("]")]
    return api_host.rsplit(":", 1)[0] if api_host.count(":") == 1 else api_host


def plaintext_allowed(api_host: str) -> bool:
    """Plaintext only to a loopback IP; `localhost:` gets the SDK's gRPC local credentials."""
    return host_of(api_host) in ("127.0.0.1", "::1")


class XAIAdapter(CatalogModel):
    provider = "xai"
    key_variables = ("XAI_API_KEY",)

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        api_host: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        today: date | None = None,
    ) -> None:
        super().__init__(model, timeout=timeout, today=today)
        info = self.info
        self.api_host = api_host or endpoint(info.endpoint_variable) or str(info.default_endpoint)
        if "://" in self.api_host:
            raise ConfigError(
                f"XAI_API_HOST is host:port for gRPC (e.g. api.x.ai:443), not a URL: {self.api_host!r}"
            )
        self.plaintext = plaintext_allowed(self.api_host)
        self._key = api_key or require_key(self.spec, self.key_variables)
        self._client: AsyncClient | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    def _channel_client(self) -> AsyncClient:
        """The SDK client, created inside the running event loop: a grpc.aio channel belongs to
        the loop it was made in, and adapters are built before the run's loop starts calling."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client = AsyncClient(
                api_key=self._key,
                api_host=self.api_host,
                timeout=self.timeout,
                use_insecure_channel=self.plaintext,
                channel_options=[("grpc.enable_retries", 0)],
            )
            self._client_loop = loop
        return self._client

    def settings(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model_id": self.wire_model,
            "family": self.family.family,
            "api": self.family.api,
            "api_host": self.api_host,
            "plaintext_channel": self.plaintext,
            "sdk": f"xai-sdk {metadata.version('xai-sdk')}",
            "grpc_retries": "off",
            "timeout_s": self.timeout,
        }

    async def aclose(self) -> None:
        if self._client is not None and self._client_loop is asyncio.get_running_loop():
            await self._client.close()
        self._client = None

    async def generate(self, request: ChatRequest) -> ChatResponse:
        sent, dropped = filter_sampling(request, self.family)
        messages = [system(request.system)] if request.system else []
        messages += [user(m.content) if m.role == "user" else assistant(m.content) for m in request.messages]
        options: dict[str, Any] = {
            "temperature": sent.get("temperature"),
            "top_p": sent.get("top_p"),
            "seed": sent.get("seed"),
            "max_tokens": sent.get("max_output_tokens"),
            "store_messages": False,
        }
        if request.output_schema is not None:
            options["response_format"] = chat_pb2.ResponseFormat(
                format_type=chat_pb2.FORMAT_TYPE_JSON_SCHEMA,
                schema=json.dumps(request.output_schema.json_schema),
            )
        chat = self._channel_client().chat.create(model=self.wire_model, messages=messages, **options)
        started = time.perf_counter()
        try:
            response = await chat.sample()
        except grpc.aio.AioRpcError as error:
            raise grpc_error(self.spec, error.code().name, error.details() or "") from error
        latency = (time.perf_counter() - started) * 1000
        try:
            proto = response.proto
            if not proto.outputs:
                raise ValueError("the response has no outputs")
            usage = proto.usage
            return ChatResponse(
                text=response.content,
                requested_model=self.wire_model,  # the id actually asked for, aliases resolved
                served_model=proto.model or None,
                fingerprint=proto.system_fingerprint or None,
                response_id=proto.id or None,
                request_id=None,  # the SDK exposes no gRPC call metadata
                usage=Usage(
                    input_tokens=usage.prompt_tokens,
                    output_tokens=usage.completion_tokens,
                    reasoning_tokens=usage.reasoning_tokens,
                    cached_tokens=usage.cached_prompt_text_tokens,
                ),
                latency_ms=latency,
                finish_reason=response.finish_reason,
                sampling_sent=sent,
                sampling_dropped=dropped,
                raw=json_format.MessageToDict(proto),
            )
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as error:
            raise malformed_error(self.spec, f"{type(error).__name__}: {error}") from error


def create(model: str) -> ModelAPI:
    return XAIAdapter(model)
