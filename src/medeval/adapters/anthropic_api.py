"""`anthropic:` on the official `anthropic` SDK (2.x, httpx2 transport, API version 2026-10-21).

No sampling parameter is ever sent: SDK 2.x removed them and the API version it pins answers 400
to any of them, so requested temperature/top_p/seed are recorded as dropped. Structured output
uses `output_config.format` (GA JSON-schema mode). SDK retries are off (`max_retries=0`).
"""

from __future__ import annotations

import json
import time
from datetime import date
from typing import Any

import anthropic
import httpx2
from anthropic import AsyncAnthropic
from anthropic._constants import ANTHROPIC_API_VERSION

from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI, Usage
from medeval.adapters.catalog import (
    CatalogModel,
    filter_sampling,
)
from medeval.adapters.retry import connection_error, http_error, malformed_error, timeout_error
from medeval.keys import endpoint, require_key

DEFAULT_TIMEOUT = 120.0
#: Anthropic requires max_tokens; used when the request leaves it open.
DEFAULT_MAX_TOKENS = 1024


class AnthropicAdapter(CatalogModel):
    provider = "anthropic"
    key_variables = ("ANTHROPIC_API_KEY",)

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        today: date | None = None,
    ) -> None:
        super().__init__(model, timeout=timeout, today=today)
        info = self.info
        # The key is always passed explicitly, so no profile on disk or workload identity is used.
        self._client = AsyncAnthropic(
            api_key=api_key or require_key(self.spec, self.key_variables),
            base_url=base_url or endpoint(info.endpoint_variable) or info.default_endpoint,
            max_retries=0,
            timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
            open_telemetry=False,
        )

    def settings(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model_id": self.wire_model,
            "family": self.family.family,
            "api": self.family.api,
            "base_url": str(self._client.base_url),
            "api_version": ANTHROPIC_API_VERSION,
            "sdk": f"anthropic {anthropic.__version__}",
            "sdk_max_retries": 0,
            "timeout_s": self.timeout,
        }

    async def aclose(self) -> None:
        await self._client.close()

    async def generate(self, request: ChatRequest) -> ChatResponse:
        sent, dropped = filter_sampling(request, self.family)
        sent.setdefault("max_output_tokens", DEFAULT_MAX_TOKENS)
        body: dict[str, Any] = {
            "model": self.wire_model,
            "max_tokens": sent["max_output_tokens"],
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        if request.system:
            body["system"] = request.system
        if request.output_schema is not None:
            body["output_config"] = {
                "format": {"type": "json_schema", "schema": request.output_schema.json_schema}
            }
        started = time.perf_counter()
        try:
            raw = await self._client.messages.with_raw_response.create(**body)
            payload_bytes = await raw.read()
        except anthropic.APITimeoutError as error:
            raise timeout_error(self.spec, f"no response within {self.timeout:g} s") from error
        except anthropic.APIConnectionError as error:
            raise connection_error(self.spec, str(error)) from error
        except anthropic.APIStatusError as error:
            message = error.api_message or error.message
            raise http_error(
                self.spec, error.status_code, message, error.response.headers, error.request_id
            ) from error
        latency = (time.perf_counter() - started) * 1000
        request_id = raw.request_id
        try:
            payload = json.loads(payload_bytes)
            if not isinstance(payload, dict):
                raise ValueError("top level is not an object")
            message = await raw.parse()
            text = "".join(block.text for block in message.content if block.type == "text")
            usage = message.usage
            thinking = usage.output_tokens_details.thinking_tokens if usage.output_tokens_details else None
            return ChatResponse(
                text=text,
                requested_model=self.wire_model,  # the id actually asked for, aliases resolved
                served_model=message.model,
                fingerprint=None,  # Anthropic reports none
                response_id=message.id,
                request_id=request_id,
                usage=Usage(
                    input_tokens=usage.input_tokens,
                    output_tokens=usage.output_tokens,
                    reasoning_tokens=thinking,
                    cached_tokens=usage.cache_read_input_tokens,
                ),
                latency_ms=latency,
                finish_reason=message.stop_reason,
                sampling_sent=sent,
                sampling_dropped=dropped,
                raw=payload,
            )
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as error:
            raise malformed_error(self.spec, f"{type(error).__name__}: {error}", request_id) from error


def create(model: str) -> ModelAPI:
    return AnthropicAdapter(model)
