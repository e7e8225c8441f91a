"""An in-process gRPC server implementing the xAI Chat service (`/xai_api.Chat/GetCompletion`) from
the stubs shipped in `xai_sdk.proto`, on 127.0.0.1:<free port>. Faults are scripted as gRPC
status codes (RESOURCE_EXHAUSTED, UNAVAILABLE, NOT_FOUND...), a slow answer, or an empty answer."""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Iterable
from concurrent import futures
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import grpc
from xai_sdk.proto import chat_pb2, chat_pb2_grpc, sample_pb2, usage_pb2

from medeval.adapters.base import Message
from medeval.testing.loopback import REDACTED, SNAPSHOT, Prompt, default_responder, tokens


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
            import json

            schema = json.loads(request.response_format.schema)
        prompt = Prompt(
            model=request.model, system=system, messages=messages, json_schema=schema, seed=request.seed
        )
        text = asyncio.run(default_responder(prompt))
        prompt_tokens = tokens(system + "".join(m.content for m in messages))
        return chat_pb2.GetChatCompletionResponse(
            id=f"xai-resp-{len(self.server.calls):06d}",
            model=f"{request.model}-{SNAPSHOT}",
            system_fingerprint=f"fp_xai_{SNAPSHOT}",
            outputs=[
                chat_pb2.CompletionOutput(
                    finish_reason=sample_pb2.REASON_STOP,
                    index=0,
                    message=chat_pb2.CompletionMessage(content=text, role=chat_pb2.ROLE_ASSISTANT),
                )
            ],
            usage=usage_pb2.SamplingUsage(
                prompt_tokens=prompt_tokens,
                completion_tokens=tokens(text),
                total_tokens=prompt_tokens + tokens(text),
                reasoning_tokens=0,
                cached_prompt_text_tokens=0,
            ),
        )


class XAIServer:
    def __init__(
        self,
        *,
        api_key: str | None = None,
        faults: Iterable[GrpcFault | None] = (),
        unknown_models: Iterable[str] = (),
    ) -> None:
        self.api_key = api_key
        self.unknown_models = set(unknown_models)
        self.calls: list[GrpcCall] = []
        self._faults: deque[GrpcFault | None] = deque(faults)
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        chat_pb2_grpc.add_ChatServicer_to_server(_Chat(self), self._server)
        self.port = self._server.add_insecure_port("127.0.0.1:0")

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def script(self, *faults: GrpcFault | None) -> None:
        with self._lock:
            self._faults.extend(faults)

    def _record(self, request: Any, context: grpc.ServicerContext) -> GrpcFault | None:
        metadata = {k: v for k, v in context.invocation_metadata() if isinstance(v, str)}
        expected = f"Bearer {self.api_key}" if self.api_key else None
        key_seen = expected is not None and metadata.get("authorization") == expected
        safe = {k: (REDACTED if k == "authorization" else v) for k, v in metadata.items()}
        with self._lock:
            self.calls.append(GrpcCall(request=request, metadata=safe, key_seen=key_seen))
            return self._faults.popleft() if self._faults else None

    def __enter__(self) -> XAIServer:
        self._server.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stopping.set()
        self._server.stop(grace=None)
