"""`xai:` on the official `xai-sdk` (1.x, gRPC).

The endpoint comes from `XAI_API_HOST` (host:port, default api.x.ai over TLS). A plaintext channel
is used only for loopback hosts (127.0.0.1, ::1; `localhost:` gets gRPC local credentials), so a
key never crosses a network in clear text. The channel's own retry policy (UNAVAILABLE x5) is
switched off: the gateway's one policy sees and records every attempt.

Batch judging uses the SDK's batch service (`client.batch`: create, add, get, list results): each
item is the direct call's chat request with the engine's custom id as `batch_request_id`, by which
the results are matched. A batch has no state word of its own, only counts: it has ended when no
request is pending.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from datetime import UTC, date, datetime
from importlib import metadata
from typing import Any

import grpc
from google.protobuf import json_format
from xai_sdk import AsyncClient
from xai_sdk.chat import assistant, system, user
from xai_sdk.proto import batch_pb2, chat_pb2
from xai_sdk.tools import web_search

from medeval.adapters.apikeys import endpoint, require_key
from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI, ProviderError, Usage
from medeval.adapters.batch import BatchAPI, BatchItem, BatchOutcome, BatchState, BatchStatus
from medeval.adapters.catalog import (
    CatalogModel,
    filter_sampling,
)
from medeval.adapters.citations import xai_citations
from medeval.adapters.retry import grpc_error, malformed_error
from medeval.errors import ConfigError

DEFAULT_TIMEOUT = 120.0


def host_of(api_host: str) -> str:
    if api_host.startswith("["):
        return api_host[1 : api_host.find("]")]
    return api_host.rsplit(":", 1)[0] if api_host.count(":") == 1 else api_host


def plaintext_allowed(api_host: str) -> bool:
    """Plaintext only to a loopback IP; `localhost:` gets the SDK's gRPC local credentials."""
    return host_of(api_host) in ("127.0.0.1", "::1")


class XAIAdapter(CatalogModel, BatchAPI):
    provider = "xai"
    web_search = True
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
        #: What each batch item submitted by this process sent and dropped, by custom id: the
        #: results carry only the reply, and the record must say what the request applied.
        self._batch_sampling: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
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

    def _chat(self, request: ChatRequest) -> tuple[Any, dict[str, Any], dict[str, Any]]:
        """The SDK chat for a request, with the sampling settings sent and dropped."""
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
        if request.web_search:
            # The SDK's server-side search tool, and the citations' places in the answer.
            options["tools"] = [web_search()]
            options["include"] = ["inline_citations"]
            sent["web_search"] = "web_search"
        if request.output_schema is not None:
            options["response_format"] = chat_pb2.ResponseFormat(
                format_type=chat_pb2.FORMAT_TYPE_JSON_SCHEMA,
                schema=json.dumps(request.output_schema.json_schema),
            )
        chat = self._channel_client().chat.create(model=self.wire_model, messages=messages, **options)
        return chat, sent, dropped

    async def generate(self, request: ChatRequest) -> ChatResponse:
        chat, sent, dropped = self._chat(request)
        started = time.perf_counter()
        try:
            response = await chat.sample()
        except grpc.aio.AioRpcError as error:
            raise grpc_error(self.spec, error.code().name, error.details() or "") from error
        latency = (time.perf_counter() - started) * 1000
        return self._response(response, latency, sent, dropped)

    def _response(
        self, response: Any, latency: float, sent: dict[str, Any], dropped: dict[str, Any]
    ) -> ChatResponse:
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
                citations=xai_citations(
                    list(proto.citations),
                    [json_format.MessageToDict(c) for out in proto.outputs for c in out.message.citations],
                ),
            )
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as error:
            raise malformed_error(self.spec, f"{type(error).__name__}: {error}") from error

    # -- batch (adapters/batch.py): the SDK's BatchMgmt service --

    async def batch_submit(self, items: list[BatchItem]) -> str:
        """Create a batch, then add the items (each the request a direct call sends, under its
        custom id as `batch_request_id`) in chunks. A failed add cancels the batch, so no half-submitted
        batch runs on unwatched."""
        client = self._channel_client()
        requests = []
        for item in items:
            chat, sent, dropped = self._chat(item.request)
            # What `chat.sample()` sends: the chat's request asking for one completion.
            completion = chat_pb2.GetCompletionsRequest()
            completion.CopyFrom(chat.proto)
            completion.n = 1
            requests.append(
                batch_pb2.BatchRequest(batch_request_id=item.custom_id, completion_request=completion)
            )
            self._batch_sampling[item.custom_id] = (sent, dropped)
        try:
            batch = await client.batch.create(batch_name=f"medeval-{len(items)}")
        except grpc.aio.AioRpcError as error:
            raise grpc_error(self.spec, error.code().name, error.details() or "") from error
        try:
            for start in range(0, len(requests), ADD_CHUNK):
                chunk = requests[start : start + ADD_CHUNK]
                await client.batch.add(batch_id=batch.batch_id, batch_requests=chunk)
        except grpc.aio.AioRpcError as error:
            with contextlib.suppress(grpc.aio.AioRpcError):
                await client.batch.cancel(batch.batch_id)
            raise grpc_error(self.spec, error.code().name, error.details() or "") from error
        return str(batch.batch_id)

    def batch_sampling(self, request: ChatRequest) -> tuple[dict[str, Any], dict[str, Any]]:
        return filter_sampling(request, self.family)

    async def batch_status(self, batch_id: str) -> BatchStatus:
        try:
            batch = await self._channel_client().batch.get(batch_id)
        except grpc.aio.AioRpcError as error:
            raise grpc_error(self.spec, error.code().name, error.details() or "") from error
        counts = batch.state
        cancelled = batch.HasField("cancel_time")
        expired = batch.HasField("expire_time") and batch.expire_time.ToDatetime(UTC) <= datetime.now(UTC)
        state: BatchState = "in_progress"
        provider_state = "processing"
        if counts.num_pending == 0 and (counts.num_requests > 0 or cancelled):
            state, provider_state = ("cancelled", "cancelled") if cancelled else ("ended", "complete")
        elif expired:
            state, provider_state = "expired", "expired"
        return BatchStatus(
            batch_id=batch_id,
            state=state,
            provider_state=provider_state,
            total=counts.num_requests,
            succeeded=counts.num_success,
            failed=counts.num_error + counts.num_cancelled,
        )

    async def batch_results(self, batch_id: str) -> list[BatchOutcome]:
        """Every result page, each result as the same response a direct call gives."""
        client = self._channel_client()
        outcomes: list[BatchOutcome] = []
        token: str | None = None
        while True:
            try:
                page = await client.batch.list_batch_results(batch_id, pagination_token=token)
            except grpc.aio.AioRpcError as error:
                raise grpc_error(self.spec, error.code().name, error.details() or "") from error
            outcomes += [self._outcome(result) for result in page.results]
            token = page.pagination_token
            if not token or not page.results:
                return outcomes

    def _outcome(self, result: Any) -> BatchOutcome:
        custom_id = str(result.batch_request_id)
        if result.has_error:
            code = CODE_NAMES.get(result.proto.error.code, "UNKNOWN")
            message = result.proto.error.message or "batch request failed"
            if code == "CANCELLED":  # never run: worth another attempt
                failure = ProviderError(
                    f"{self.spec}: batch request cancelled: {message}",
                    retryable=True,
                    status="batch_canceled",
                )
                return BatchOutcome(custom_id, error=failure)
            return BatchOutcome(custom_id, error=grpc_error(self.spec, code, message))
        sent, dropped = self._batch_sampling.get(custom_id, ({}, {}))
        try:
            return BatchOutcome(custom_id, response=self._response(result.response, 0.0, sent, dropped))
        except ProviderError as error:
            return BatchOutcome(custom_id, error=error)


#: Requests per AddBatchRequests call, well under gRPC's default 4 MiB message limit for judge
#: prompts.
ADD_CHUNK = 100
#: google.rpc.Code numbers -> gRPC status names (the retry rules are keyed by name).
CODE_NAMES = {code.value[0]: code.name for code in grpc.StatusCode}


def create(model: str) -> ModelAPI:
    return XAIAdapter(model)
