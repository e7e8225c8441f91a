"""`google:` (Gemini Developer API) on the official `google-genai` SDK (3.x).

The API version is set explicitly (3.x silently moved the default to v1), automatic continuation
and automatic function calling are off (they would issue extra, unrecorded requests), the SDK's
retries stay off (its default), and an httpx2 AsyncClient is passed explicitly: otherwise the SDK
sends async traffic through aiohttp whenever it is importable (xai-sdk installs it).

Batch judging uses batch mode with a JSONL input file of `{"key": custom id, "request": the direct
call's body}` lines, because the results file keys each line the same way; inline requests are not
used, since the service has been seen to return inline responses without their metadata and out
of order (googleapis/python-genai#1886, #1909), and a judge reply must never be matched by guess.
"""

from __future__ import annotations

import contextvars
import io
import json
import os
import time
from datetime import date
from importlib import metadata
from typing import Any

import httpx2
from google import genai
from google.genai import errors, types

from medeval.adapters import google_batch
from medeval.adapters.apikeys import endpoint, require_key
from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI, ProviderError, Usage
from medeval.adapters.batch import BatchAPI, BatchItem, BatchOutcome, BatchStatus
from medeval.adapters.catalog import (
    CatalogModel,
    filter_sampling,
)
from medeval.adapters.citations import gemini_citations
from medeval.adapters.retry import connection_error, http_error, malformed_error, timeout_error

DEFAULT_TIMEOUT = 120.0
DEFAULT_API_VERSION = "v1beta"  # where current and preview models and JSON-schema output all live
#: The body of the response to the call running in this task, captured by the httpx2 hook so
#: `raw` is the verbatim payload, not a re-serialisation of the SDK's objects.
_captured: contextvars.ContextVar[list[bytes] | None] = contextvars.ContextVar("gemini_raw", default=None)


async def _capture_body(response: httpx2.Response) -> None:
    sink = _captured.get()
    if sink is not None:
        sink.append(await response.aread())


class GoogleAdapter(CatalogModel, BatchAPI):
    provider = "google"
    web_search = True
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
        #: What each batch item submitted by this process sent and dropped, by custom id: the
        #: results carry only the reply, and the record must say what the request applied.
        self._batch_sampling: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
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
        if request.web_search:
            # Grounding with Google Search (the provider searches; its sources come back with the answer).
            config.tools = [types.Tool(google_search=types.GoogleSearch())]
            sent["web_search"] = "google_search"
        if request.output_schema is not None:
            config.response_mime_type = "application/json"
            config.response_json_schema = request.output_schema.json_schema
        return config

    def _contents(self, request: ChatRequest) -> list[types.Content]:
        return [
            types.Content(
                role="model" if m.role == "assistant" else "user", parts=[types.Part(text=m.content)]
            )
            for m in request.messages
        ]

    async def generate(self, request: ChatRequest) -> ChatResponse:
        sent, dropped = filter_sampling(request, self.family)
        bodies: list[bytes] = []
        token = _captured.set(bodies)
        started = time.perf_counter()
        try:
            response = await self._client.aio.models.generate_content(
                model=self.wire_model, contents=self._contents(request), config=self._config(request, sent)
            )
        except (errors.APIError, httpx2.TransportError, ValueError) as error:
            raise self._error(error) from error
        finally:
            _captured.reset(token)
        latency = (time.perf_counter() - started) * 1000
        headers = dict(response.sdk_http_response.headers or {}) if response.sdk_http_response else {}
        request_id = _request_id(headers)
        try:
            payload = json.loads(bodies[-1]) if bodies else {}
            return self._response(response, payload, request_id, latency, sent, dropped)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as error:
            raise malformed_error(self.spec, f"{type(error).__name__}: {error}", request_id) from error

    def _response(
        self,
        response: types.GenerateContentResponse,
        payload: dict[str, Any],
        request_id: str | None,
        latency: float,
        sent: dict[str, Any],
        dropped: dict[str, Any],
    ) -> ChatResponse:
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
            citations=gemini_citations(payload, response.text or ""),
        )

    def _error(self, error: Exception) -> ProviderError:
        if isinstance(error, errors.APIError):
            headers = dict(error.response.headers) if hasattr(error.response, "headers") else {}
            message = error.message or str(error)
            return http_error(self.spec, error.code, message, headers, _request_id(headers))
        if isinstance(error, httpx2.TimeoutException):
            return timeout_error(self.spec, f"no response within {self.timeout:g} s")
        if isinstance(error, httpx2.TransportError):
            return connection_error(self.spec, str(error))
        return malformed_error(self.spec, str(error))  # the SDK's json.loads of a malformed body

    # -- batch mode (adapters/batch.py; the wire format in adapters/google_batch.py) --

    async def batch_submit(self, items: list[BatchItem]) -> str:
        lines: list[str] = []
        for item in items:
            sent, dropped = filter_sampling(item.request, self.family)
            self._batch_sampling[item.custom_id] = (sent, dropped)
            body = google_batch.request_body(
                self._client, self.wire_model, self._contents(item.request), self._config(item.request, sent)
            )
            lines.append(json.dumps({"key": item.custom_id, "request": body}))
        try:
            uploaded = await self._client.aio.files.upload(
                file=io.BytesIO(("\n".join(lines) + "\n").encode()),
                config=types.UploadFileConfig(mime_type="jsonl", display_name=f"medeval-{len(items)}"),
            )
            if not uploaded.name:
                raise ValueError("the upload returned no file name")
            job = await self._client.aio.batches.create(
                model=self.wire_model,
                src=uploaded.name,
                config=types.CreateBatchJobConfig(display_name=f"medeval-{len(items)}"),
            )
        except (errors.APIError, httpx2.TransportError, KeyError, ValueError) as error:
            raise self._error(error) from error
        if not job.name:
            raise malformed_error(self.spec, "the batch was created without a name")
        return job.name

    async def _job(self, batch_id: str) -> tuple[types.BatchJob, dict[str, Any]]:
        """The batch job as the SDK reads it, and its verbatim body (counts, inline output)."""
        bodies: list[bytes] = []
        token = _captured.set(bodies)
        try:
            job = await self._client.aio.batches.get(name=batch_id)
            payload = json.loads(bodies[-1]) if bodies else {}
        except (errors.APIError, httpx2.TransportError, ValueError) as error:
            raise self._error(error) from error
        finally:
            _captured.reset(token)
        return job, payload if isinstance(payload, dict) else {}

    def batch_sampling(self, request: ChatRequest) -> tuple[dict[str, Any], dict[str, Any]]:
        return filter_sampling(request, self.family)

    async def batch_status(self, batch_id: str) -> BatchStatus:
        job, payload = await self._job(batch_id)
        return google_batch.status(batch_id, job, payload)

    async def batch_results(self, batch_id: str) -> list[BatchOutcome]:
        """Every keyed line of the results file (or keyed inline response) as the same response
        a direct call gives; an unkeyed inline response cannot be matched, so its item is left to
        the engine's retry as missing rather than guessed by position."""
        job, payload = await self._job(batch_id)
        entries: list[dict[str, Any]]
        if job.dest is not None and job.dest.file_name:
            try:
                data = await self._client.aio.files.download(file=job.dest.file_name)
            except (errors.APIError, httpx2.TransportError, ValueError) as error:
                raise self._error(error) from error
            entries = google_batch.file_entries(self.spec, data)
        else:
            entries = google_batch.inline_entries(payload)
        return [self._outcome(entry) for entry in entries]

    def _outcome(self, entry: dict[str, Any]) -> BatchOutcome:
        custom_id = str(entry["key"])
        if entry.get("response") is not None:
            try:
                payload = entry["response"]
                response = google_batch.parse_response(payload)
                sent, dropped = self._batch_sampling.get(custom_id, ({}, {}))
                converted = self._response(response, payload, None, 0.0, sent, dropped)
                return BatchOutcome(custom_id, response=converted)
            except (AttributeError, IndexError, KeyError, TypeError, ValueError) as error:
                detail = f"{type(error).__name__}: {error}"
                return BatchOutcome(custom_id, error=malformed_error(self.spec, detail))
        return BatchOutcome(custom_id, error=google_batch.item_error(self.spec, entry.get("error")))


def _request_id(headers: dict[str, str]) -> str | None:
    lowered = {k.lower(): v for k, v in headers.items()}
    return lowered.get("x-request-id") or lowered.get("x-goog-request-id")


def create(model: str) -> ModelAPI:
    return GoogleAdapter(model)
