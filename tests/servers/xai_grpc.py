"""An in-process gRPC server implementing the xAI Chat service (`/xai_api.Chat/GetCompletion`) from
the stubs shipped in `xai_sdk.proto`, on 127.0.0.1:<free port>. Faults are scripted as gRPC
status codes (RESOURCE_EXHAUSTED, UNAVAILABLE, NOT_FOUND...), a slow answer, or an empty answer.

It also serves the batch service (`/xai_api.BatchMgmt/*`) on a `BatchBook`: each batch item is
answered by the same code as a direct call, and results are listed a page at a time."""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from collections.abc import Iterable
from concurrent import futures
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import grpc
from google.protobuf import empty_pb2
from xai_sdk.proto import batch_pb2, batch_pb2_grpc, chat_pb2, chat_pb2_grpc, sample_pb2, usage_pb2

from medeval.adapters.base import Message
from medeval.testing.loopback import REDACTED, SNAPSHOT, Prompt, default_responder, tokens
from medeval.testing.prompt_cache import PromptCache, prompt_parts
from medeval.testing.wire import SEARCH_SOURCE
from tests.servers.batches import Batch, BatchBook


@dataclass(frozen=True)
class GrpcFault:
    code: grpc.StatusCode | None = None
    details: str = "injected fault"
    delay: float = 0.0
    empty: bool = False


@dataclass
class GrpcCall:
    request: Any  # chat_pb2.GetCompletionsRequest
    metadata: dict[str, str]
    key_seen: bool


class _Chat(chat_pb2_grpc.ChatServicer):  # type: ignore[misc]
    def __init__(self, server: XAIServer) -> None:
        self.server = server

    def GetCompletion(self, request: Any, context: grpc.ServicerContext) -> Any:
        fault = self.server._record(request, context)
        if self.server.api_key and not self.server.calls[-1].key_seen:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "invalid or missing API key")
        if fault is not None and fault.delay:
            # Hold the call until the client has timed out; released at once when the server stops.
            self.server.stopping.wait(fault.delay)
        if fault is not None and fault.code is not None:
            context.abort(fault.code, fault.details)
        if request.model in self.server.unknown_models:
            context.abort(grpc.StatusCode.NOT_FOUND, f"The model {request.model} does not exist")
        if fault is not None and fault.empty:
            return chat_pb2.GetChatCompletionResponse(id="empty", model=request.model)
        return complete(request, f"xai-resp-{len(self.server.calls):06d}", self.server)


def complete(request: Any, response_id: str, server: XAIServer | None = None) -> Any:
    return asyncio.run(acomplete(request, response_id, server))


async def acomplete(request: Any, response_id: str, server: XAIServer | None = None) -> Any:
    """The answer to a GetCompletionsRequest, for a direct call or a batch item alike."""
    roles = {
        chat_pb2.ROLE_SYSTEM: "system",
        chat_pb2.ROLE_USER: "user",
        chat_pb2.ROLE_ASSISTANT: "assistant",
    }
    system = ""
    messages: list[Message] = []
    for message in request.messages:
        text = "".join(c.text for c in message.content)
        role = roles.get(message.role)
        if role == "system":
            system += text
        elif role in ("user", "assistant"):
            messages.append(Message(role=role, content=text))
    schema = None
    if request.response_format.format_type == chat_pb2.FORMAT_TYPE_JSON_SCHEMA:
        schema = json.loads(request.response_format.schema)
    prompt = Prompt(
        model=request.model, system=system, messages=messages, json_schema=schema, seed=request.seed
    )
    text = await default_responder(prompt)
    prompt_tokens = tokens(system + "".join(m.content for m in messages))
    cached = 0
    if server is not None:  # a direct call reads the server's prompt cache; a thread per call
        with server._lock:
            cached = min(prompt_tokens, server.prompt_cache.implicit(prompt_parts(system, messages)))
    searched = any(tool.HasField("web_search") for tool in request.tools)
    inline = (
        [
            chat_pb2.InlineCitation(
                id="1", start_index=0, end_index=len(text), web_citation={"url": SEARCH_SOURCE[0]}
            )
        ]
        if searched and chat_pb2.IncludeOption.Value("INCLUDE_OPTION_INLINE_CITATIONS") in request.include
        else []
    )
    return chat_pb2.GetChatCompletionResponse(
        id=response_id,
        model=f"{request.model}-{SNAPSHOT}",
        system_fingerprint=f"fp_xai_{SNAPSHOT}",
        # With the search tool: every source in `citations`, and where asked, inline citations.
        citations=[SEARCH_SOURCE[0], "https://www.ssa.gov/medicare/"] if searched else [],
        outputs=[
            chat_pb2.CompletionOutput(
                finish_reason=sample_pb2.REASON_STOP,
                index=0,
                message=chat_pb2.CompletionMessage(
                    content=text, role=chat_pb2.ROLE_ASSISTANT, citations=inline
                ),
            )
        ],
        usage=usage_pb2.SamplingUsage(
            prompt_tokens=prompt_tokens,
            completion_tokens=tokens(text),
            total_tokens=prompt_tokens + tokens(text),
            reasoning_tokens=0,
            cached_prompt_text_tokens=cached,
        ),
    )


#: HTTP statuses of scripted item errors as google.rpc codes.
RPC_CODES = {400: 3, 404: 5, 429: 8, 500: 13, 503: 14, 504: 4}


class _BatchMgmt(batch_pb2_grpc.BatchMgmtServicer):  # type: ignore[misc]
    """The batch service on the server's `BatchBook`: create, add, get, cancel, list results
    (paged, `page_size` at a time, so a client must follow the pagination token)."""

    def __init__(self, server: XAIServer) -> None:
        self.server = server

    def _batch(self, batch_id: str, context: grpc.ServicerContext) -> Batch:
        self.server._record(batch_id, context, take_fault=False)
        if self.server.api_key and not self.server.calls[-1].key_seen:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "invalid or missing API key")
        batch = self.server.book.batches.get(batch_id)
        if batch is None:
            context.abort(grpc.StatusCode.NOT_FOUND, f"batch {batch_id} not found")
        return batch  # type: ignore[return-value]

    def CreateBatch(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.server._record(request, context, take_fault=False)
        if self.server.api_key and not self.server.calls[-1].key_seen:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "invalid or missing API key")
        created = self.server.book.create("", [], "batch_loopback_")
        if isinstance(created, tuple):
            code = {v.value[0]: v for v in grpc.StatusCode}.get(RPC_CODES.get(created[0], 13))
            context.abort(code, created[1])
        return self._proto(created)  # type: ignore[arg-type]

    def AddBatchRequests(self, request: Any, context: grpc.ServicerContext) -> Any:
        batch = self._batch(request.batch_id, context)
        self.server.added.append(request)
        if self.server.fail_adds:
            self.server.fail_adds -= 1
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "injected add failure")
        for item in request.batch_requests:
            batch.model = item.completion_request.model
            batch.items.append((item.batch_request_id, item.completion_request))
        return empty_pb2.Empty()

    def GetBatch(self, request: Any, context: grpc.ServicerContext) -> Any:
        batch = self._batch(request.batch_id, context)

        async def answer(custom_id: str, item: Any) -> tuple[int, Any]:
            return 200, await acomplete(item, f"xai-batch-{custom_id}")

        if batch.items:
            asyncio.run(self.server.book.advance(batch, answer))
        return self._proto(batch)

    def CancelBatch(self, request: Any, context: grpc.ServicerContext) -> Any:
        batch = self._batch(request.batch_id, context)
        self.server.cancels.append(batch.batch_id)
        if batch.state == "in_progress":
            self.server.book.end_as(batch.batch_id, "cancelled")
        return self._proto(batch)

    def ListBatchResults(self, request: Any, context: grpc.ServicerContext) -> Any:
        batch = self._batch(request.batch_id, context)
        results = self.server.book.results(batch)
        start = int(request.pagination_token or 0)
        size = request.limit or self.server.page_size
        page = []
        for custom_id, outcome in results[start : start + size]:
            if outcome.kind == "succeeded":
                data = batch_pb2.BatchResultData(completion_response=outcome.body)
                page.append(batch_pb2.BatchResult(batch_request_id=custom_id, response=data))
            else:
                code = {"errored": RPC_CODES.get(outcome.status, 13), "expired": 4, "canceled": 1}[
                    outcome.kind
                ]
                message = outcome.message or outcome.kind
                page.append(
                    batch_pb2.BatchResult(
                        batch_request_id=custom_id, error={"code": code, "message": message}
                    )
                )
        more = start + size < len(results)
        return batch_pb2.ListBatchResultsResponse(
            results=page, pagination_token=str(start + size) if more else ""
        )

    def _proto(self, batch: Batch) -> Any:
        counts = self.server.book.counts(batch)
        proto = batch_pb2.Batch(
            batch_id=batch.batch_id,
            name="loopback",
            state=batch_pb2.BatchState(
                num_requests=counts["total"],
                num_pending=counts["processing"],
                num_success=counts["succeeded"],
                num_error=counts["errored"] + counts["expired"],
                num_cancelled=counts["canceled"],
            ),
        )
        if batch.state == "cancelled":
            proto.cancel_time.FromSeconds(1_793_000_000)
        if batch.state == "expired":
            proto.expire_time.FromSeconds(1_700_000_000)  # in the past
        return proto


class XAIServer:
    def __init__(
        self,
        *,
        api_key: str | None = None,
        faults: Iterable[GrpcFault | None] = (),
        unknown_models: Iterable[str] = (),
        book: BatchBook | None = None,
        page_size: int = 2,
    ) -> None:
        self.api_key = api_key
        #: The batch service's batches (a fresh book unless one is given).
        self.book = book if book is not None else BatchBook()
        self.page_size = page_size
        #: AddBatchRequests calls received, CancelBatch ids, and how many adds to refuse.
        self.added: list[Any] = []
        self.cancels: list[str] = []
        self.fail_adds = 0
        self.unknown_models = set(unknown_models)
        self.calls: list[GrpcCall] = []
        self.prompt_cache = PromptCache()
        self._faults: deque[GrpcFault | None] = deque(faults)
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        chat_pb2_grpc.add_ChatServicer_to_server(_Chat(self), self._server)
        batch_pb2_grpc.add_BatchMgmtServicer_to_server(_BatchMgmt(self), self._server)
        self.port = self._server.add_insecure_port("127.0.0.1:0")

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def script(self, *faults: GrpcFault | None) -> None:
        with self._lock:
            self._faults.extend(faults)

    def _record(
        self, request: Any, context: grpc.ServicerContext, take_fault: bool = True
    ) -> GrpcFault | None:
        metadata = {k: v for k, v in context.invocation_metadata() if isinstance(v, str)}
        expected = f"Bearer {self.api_key}" if self.api_key else None
        key_seen = expected is not None and metadata.get("authorization") == expected
        safe = {k: (REDACTED if k == "authorization" else v) for k, v in metadata.items()}
        with self._lock:
            self.calls.append(GrpcCall(request=request, metadata=safe, key_seen=key_seen))
            return self._faults.popleft() if self._faults and take_fault else None

    def __enter__(self) -> XAIServer:
        self._server.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stopping.set()
        self._server.stop(grace=None)
