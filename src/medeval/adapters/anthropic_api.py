"""`anthropic:` on the official `anthropic` SDK (2.x, its aiohttp transport, API version 2026-10-21).

No sampling parameter is ever sent: SDK 2.x removed them and the API version it pins answers 400
to any of them, so requested temperature/top_p/seed are recorded as dropped. Structured output
uses `output_config.format` (GA JSON-schema mode). SDK retries are off (`max_retries=0`).

Batch judging uses Message Batches: each item's `params` is the very body a direct call sends, under
the engine's custom id; results (JSONL, in any order) are matched back by that id.
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

from medeval.adapters.apikeys import endpoint, require_key
from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI, ProviderError, Usage
from medeval.adapters.batch import BatchAPI, BatchItem, BatchOutcome, BatchState, BatchStatus
from medeval.adapters.catalog import (
    CatalogModel,
    filter_sampling,
)
from medeval.adapters.citations import ANTHROPIC_TOOL, anthropic_citations
from medeval.adapters.ratelimits import rate_limits
from medeval.adapters.retry import connection_error, http_error, malformed_error, timeout_error
from medeval.adapters.transport import connection_failure, sdk_http_client

DEFAULT_TIMEOUT = 120.0
#: Anthropic requires max_tokens; used when the request leaves it open.
DEFAULT_MAX_TOKENS = 1024


class AnthropicAdapter(CatalogModel, BatchAPI):
    provider = "anthropic"
    web_search = True
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
        url = base_url or endpoint(info.endpoint_variable) or info.default_endpoint
        # The key is always passed explicitly, so no profile on disk or workload identity is used.
        self._client = AsyncAnthropic(
            api_key=api_key or require_key(self.spec, self.key_variables),
            base_url=url,
            max_retries=0,
            timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
            open_telemetry=False,
            # The SDK's aiohttp transport where aiohttp is installed, with the process's one TLS context.
            http_client=sdk_http_client(anthropic, url or ""),
        )
        #: What each batch item submitted by this process sent and dropped, by custom id: the
        #: results carry only the reply, and the record must say what the request applied.
        self._batch_sampling: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}

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

    def _params(self, request: ChatRequest) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        """The Messages API body for a request (sent as is, directly or as a batch item's
        `params`), with the sampling settings sent and dropped."""
        sent, dropped = filter_sampling(request, self.family)
        sent.setdefault("max_output_tokens", DEFAULT_MAX_TOKENS)
        body: dict[str, Any] = {
            "model": self.wire_model,
            "max_tokens": sent["max_output_tokens"],
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        if request.system:
            body["system"] = request.system
        if request.stable_prefix is not None:
            sent["cache_control"] = mark_breakpoints(body, request)
        if request.web_search:
            body["tools"] = [ANTHROPIC_TOOL]
            sent["web_search"] = ANTHROPIC_TOOL["type"]
        if request.output_schema is not None:
            body["output_config"] = {
                "format": {"type": "json_schema", "schema": request.output_schema.json_schema}
            }
        return body, sent, dropped

    async def generate(self, request: ChatRequest) -> ChatResponse:
        body, sent, dropped = self._params(request)
        started = time.perf_counter()
        try:
            # The client's own request path (auth, version header, timeout, error classes) with the
            # body `_params` built, without the typed `create` wrapper, which re-walks the body's
            # TypedDict annotations and builds a typed Message we would only read back into ours.
            http = await self._client.post("/v1/messages", cast_to=httpx2.Response, body=body)
        except anthropic.APITimeoutError as error:
            failed = connection_failure(error)
            if failed is not None:
                raise connection_error(self.spec, f"{error} ({failed})") from error
            raise timeout_error(self.spec, f"no response within {self.timeout:g} s") from error
        except anthropic.APIError as error:
            raise self._error(error) from error
        latency = (time.perf_counter() - started) * 1000
        request_id = http.headers.get("request-id")
        try:
            payload = json.loads(http.content)
            if not isinstance(payload, dict):
                raise ValueError("top level is not an object")
            response = self._response(payload, request_id, latency, sent, dropped)
            return response.model_copy(update={"rate_limits": rate_limits(http.headers)})
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as error:
            raise malformed_error(self.spec, f"{type(error).__name__}: {error}", request_id) from error

    def _response(
        self,
        payload: dict[str, Any],
        request_id: str | None,
        latency: float,
        sent: dict[str, Any],
        dropped: dict[str, Any],
    ) -> ChatResponse:
        """Our response from a Messages API reply (a direct call's body, or a batch result's
        `message`), read as JSON: a reply without its content, model or usage is malformed."""
        text = "".join(str(block["text"]) for block in payload["content"] if block.get("type") == "text")
        usage = payload["usage"]
        thinking = (usage.get("output_tokens_details") or {}).get("thinking_tokens")
        return ChatResponse(
            text=text,
            requested_model=self.wire_model,  # the id actually asked for, aliases resolved
            served_model=str(payload["model"]),
            fingerprint=None,  # Anthropic reports none
            response_id=payload.get("id"),
            request_id=request_id,
            usage=usage_of(usage, thinking),
            latency_ms=latency,
            finish_reason=payload.get("stop_reason"),
            sampling_sent=sent,
            sampling_dropped=dropped,
            raw=payload,
            citations=anthropic_citations(payload),
        )

    def _error(self, error: anthropic.APIError) -> ProviderError:
        if isinstance(error, anthropic.APITimeoutError):
            return timeout_error(self.spec, f"no response within {self.timeout:g} s")
        if isinstance(error, anthropic.APIConnectionError):
            return connection_error(self.spec, str(error))
        if isinstance(error, anthropic.APIStatusError):
            message = error.api_message or error.message
            return http_error(self.spec, error.status_code, message, error.response.headers, error.request_id)
        return malformed_error(self.spec, str(error))

    # -- Message Batches (adapters/batch.py) --

    async def batch_submit(self, items: list[BatchItem]) -> str:
        requests: list[Any] = []
        for item in items:
            params, sent, dropped = self._params(item.request)
            requests.append({"custom_id": item.custom_id, "params": params})
            self._batch_sampling[item.custom_id] = (sent, dropped)
        try:
            batch = await self._client.messages.batches.create(requests=requests)
        except anthropic.APIError as error:
            raise self._error(error) from error
        return batch.id

    def batch_sampling(self, request: ChatRequest) -> tuple[dict[str, Any], dict[str, Any]]:
        _, sent, dropped = self._params(request)
        return sent, dropped

    async def batch_status(self, batch_id: str) -> BatchStatus:
        try:
            batch = await self._client.messages.batches.retrieve(batch_id)
        except anthropic.APIError as error:
            raise self._error(error) from error
        counts = batch.request_counts
        state: BatchState = "in_progress"
        if batch.processing_status == "ended":
            state = "cancelled" if batch.cancel_initiated_at is not None else "ended"
        return BatchStatus(
            batch_id=batch.id,
            state=state,
            provider_state=batch.processing_status,
            total=counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired,
            succeeded=counts.succeeded,
            failed=counts.errored + counts.canceled + counts.expired,
        )

    async def batch_results(self, batch_id: str) -> list[BatchOutcome]:
        """Each JSONL line of the results file, as the same response a direct call gives (the
        sampling record rebuilt from the catalog, as the batch request applied it)."""
        outcomes: list[BatchOutcome] = []
        try:
            async with self._client.messages.batches.with_streaming_response.results(batch_id) as stream:
                async for line in stream.iter_lines():
                    if line.strip():
                        outcomes.append(self._outcome(line))
        except anthropic.APIError as error:
            raise self._error(error) from error
        except anthropic.AnthropicError:
            return []  # the SDK's "no results_url": the batch ended with nothing to read
        except httpx2.TransportError as error:  # the results stream broke off
            raise connection_error(self.spec, str(error)) from error
        return outcomes

    def _outcome(self, line: str) -> BatchOutcome:
        try:
            entry = json.loads(line)
            custom_id = str(entry["custom_id"])
            result = entry["result"]
            kind = result["type"]
        except (KeyError, TypeError, ValueError) as error:
            detail = f"batch results line: {type(error).__name__}: {error}"
            raise malformed_error(self.spec, detail) from error
        if kind == "succeeded":
            try:
                payload = result["message"]
                sent, dropped = self._batch_sampling.get(custom_id, ({}, {}))
                response = self._response(payload, None, 0.0, sent, dropped)
            except (AttributeError, IndexError, KeyError, TypeError, ValueError) as error:
                detail = f"{type(error).__name__}: {error}"
                return BatchOutcome(custom_id, error=malformed_error(self.spec, detail))
            return BatchOutcome(custom_id, response=response)
        if kind == "errored":
            problem = (result.get("error") or {}).get("error") or {}
            status = ERROR_STATUS.get(str(problem.get("type")), 500)
            text = str(problem.get("message", kind))
            return BatchOutcome(custom_id, error=http_error(self.spec, status, text))
        # canceled or expired: never processed, so worth another attempt
        return BatchOutcome(
            custom_id,
            error=ProviderError(f"{self.spec}: batch request {kind}", retryable=True, status=f"batch_{kind}"),
        )


#: Anthropic's error types in a batch item, as the HTTP status a direct call would have got; an
#: unknown type is a server error (retried), as Anthropic advises for anything but a bad request.
ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "gateway_timeout_error": 504,
    "overloaded_error": 529,
}


#: Anthropic caches a prefix only where a block says so; the default 5-minute lifetime is refreshed
#: by every hit, which a run's stream of judge calls keeps doing.
EPHEMERAL = {"type": "ephemeral"}


def mark_breakpoints(body: dict[str, Any], request: ChatRequest) -> list[str]:
    """Cache breakpoints on the system prompt and at the end of the stable prefix of the first
    message (agents/boundary.prefixed_message), the first message split in two text blocks there;
    the names of the places marked, for the record."""
    marked: list[str] = []
    if request.system:
        body["system"] = [{"type": "text", "text": request.system, "cache_control": EPHEMERAL}]
        marked.append("system")
    stable, rest = request.split_first_message()
    if stable:
        first = body["messages"][0]
        blocks: list[dict[str, Any]] = [{"type": "text", "text": stable, "cache_control": EPHEMERAL}]
        if rest:
            blocks.append({"type": "text", "text": rest})
        first["content"] = blocks
        marked.append("stable_prefix")
    return marked


def usage_of(usage: dict[str, Any], thinking: int | None) -> Usage:
    """Anthropic counts cache reads and writes apart from `input_tokens`; the record's input is
    all of them, as the other providers count it, with the cached and written parts named."""
    read = usage.get("cache_read_input_tokens")
    written = usage.get("cache_creation_input_tokens")
    return Usage(
        input_tokens=int(usage["input_tokens"]) + (read or 0) + (written or 0),
        output_tokens=int(usage["output_tokens"]),
        reasoning_tokens=thinking,
        cached_tokens=read,
        cache_write_tokens=written,
    )


def create(model: str) -> ModelAPI:
    return AnthropicAdapter(model)
