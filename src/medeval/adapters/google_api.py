"""`google:` (Gemini Developer API) on the official `google-genai` SDK (3.x).

The API version is set explicitly (3.x silently moved the default to v1), automatic continuation
and automatic function calling are off (they would issue extra, unrecorded requests), the SDK's
retries stay off (its default), and an httpx2 AsyncClient is passed explicitly: otherwise the SDK
sends async traffic through aiohttp whenever it is importable (xai-sdk installs it).
"""

from __future__ import annotations

import contextvars
import json
import os
import time
from datetime import date
from importlib import metadata
from typing import Any

import httpx2
from google import genai
from google.genai import errors, types

from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI, Usage
from medeval.adapters.catalog import (
    CatalogModel,
    filter_sampling,
)
from medeval.adapters.retry import connection_error, http_error, malformed_error, timeout_error
from medeval.keys import endpoint, require_key

DEFAULT_TIMEOUT = 120.0
DEFAULT_API_VERSION = "v1beta"  # where current and preview models and JSON-schema output all live
#: The body of the response to the call running in this task, captured by the httpx2 hook so
#: `raw` is the verbatim payload, not a re-serialisation of the SDK's objects.
_captured: contextvars.ContextVar[list[bytes] | None] = contextvars.ContextVar("gemini_raw", default=None)


async def _capture_body(response: httpx2.Response) -> None:
    sink = _captured.get()
    if sink is not None:
        sink.append(await response.aread())


class GoogleAdapter(CatalogModel):
    provider = "google"
    key_variables = ("GOOGLE_API_KEY", "GEMINI_API_KEY")

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        api_version: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        today: date | None = None,
    ) -> None:
        super().__init__(model, timeout=timeout, today=today)
        info = self.info
        self.base_url = base_url or endpoint(info.endpoint_variable) or info.default_endpoint
        self.api_version = api_version or os.environ.get("GOOGLE_GENAI_API_VERSION") or DEFAULT_API_VERSION
        self._http = httpx2.AsyncClient(
            timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
            event_hooks={"response": [_capture_body]},
        )
        self._client = genai.Client(
            api_key=api_key or require_key(self.spec, self.key_variables),
            vertexai=False,  # never let GOOGLE_GENAI_USE_VERTEXAI switch auth and URL behind our back
            http_options=types.HttpOptions(
                base_url=self.base_url,
                api_version=self.api_version,
                timeout=int(timeout * 1000),  # milliseconds
                httpx_async_client=self._http,
            ),
        )

    def settings(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model_id": self.wire_model,
            "family": self.family.family,
            "api": self.family.api,
            "base_url": self.base_url,
            "api_version": self.api_version,
            "sdk": f"google-genai {metadata.version('google-genai')}",
            "http_client": f"httpx2 {httpx2.__version__}",
            "sdk_retries": "off",
            "automatic_continuation": False,
            "timeout_s": self.timeout,
        }

    async def aclose(self) -> None:
        await self._http.aclose()

    def _config(self, request: ChatRequest, sent: dict[str, Any]) -> types.GenerateContentConfig:
        config = types.GenerateContentConfig(
            system_instruction=request.system or None,
            temperature=sent.get("temperature"),
            top_p=sent.get("top_p"),
            seed=sent.get("seed"),
            max_output_tokens=sent.get("max_output_tokens"),
            automatic_continuation=False,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        )
        if request.output_schema is not None:
            config.response_mime_type = "application/json"
            config.response_json_schema = request.output_schema.json_schema
        return config

    async def generate(self, request: ChatRequest) -> ChatResponse:
        sent, dropped = filter_sampling(request, self.family)
        contents = [
            types.Content(
                role="model" if m.role == "assistant" else "user", parts=[types.Part(text=m.content)]
            )
            for m in request.messages
        ]
        bodies: list[bytes] = []
        token = _captured.set(bodies)
        started = time.perf_counter()
        try:
            response = await self._client.aio.models.generate_content(
                model=self.wire_model, contents=contents, config=self._config(request, sent)
            )
        except errors.APIError as error:
            headers = dict(error.response.headers) if hasattr(error.response, "headers") else {}
            raise http_error(
                self.spec, error.code, error.message or str(error), headers, _request_id(headers)
            ) from error
        except httpx2.TimeoutException as error:
            raise timeout_error(self.spec, f"no response within {self.timeout:g} s") from error
        except httpx2.TransportError as error:
            raise connection_error(self.spec, str(error)) from error
        except ValueError as error:  # the SDK's json.loads of a malformed body
            raise malformed_error(self.spec, str(error)) from error
        finally:
            _captured.reset(token)
        latency = (time.perf_counter() - started) * 1000
        headers = dict(response.sdk_http_response.headers or {}) if response.sdk_http_response else {}
        request_id = _request_id(headers)
        try:
            payload = json.loads(bodies[-1]) if bodies else {}
            candidate = response.candidates[0] if response.candidates else None
            usage = response.usage_metadata
            return ChatResponse(
                text=response.text or "",
                requested_model=self.wire_model,  # the id actually asked for, aliases resolved
                served_model=response.model_version,
                fingerprint=None,  # Gemini reports none; model_version is the served snapshot
                response_id=response.response_id,
                request_id=request_id,
                usage=Usage(
                    input_tokens=usage.prompt_token_count if usage else None,
                    output_tokens=usage.candidates_token_count if usage else None,
                    reasoning_tokens=usage.thoughts_token_count if usage else None,
                    cached_tokens=usage.cached_content_token_count if usage else None,
                ),
                latency_ms=latency,
                finish_reason=str(candidate.finish_reason.value)
                if candidate and candidate.finish_reason
                else None,
                sampling_sent=sent,
                sampling_dropped=dropped,
                raw=payload,
            )
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as error:
            raise malformed_error(self.spec, f"{type(error).__name__}: {error}", request_id) from error


def _request_id(headers: dict[str, str]) -> str | None:
    lowered = {k.lower(): v for k, v in headers.items()}
    return lowered.get("x-request-id") or lowered.get("x-goog-request-id")


def create(model: str) -> ModelAPI:
    return GoogleAdapter(model)
