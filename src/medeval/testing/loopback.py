"""A fake model server on 127.0.0.1 for offline tests and benchmarks.

It speaks the OpenAI wire format (`POST /v1/chat/completions` and `POST /v1/responses`, in
`openai_dialect`) by default; other providers' formats plug in as a `Dialect`. It runs an
asyncio HTTP/1.1 server (keep-alive, no thread per request) in a background thread, so a
benchmark at concurrency 64 with 50 ms latency measures the client, not the fake.

Faults are scripted by schedule (the n-th request gets the n-th fault) or by a seeded rate:
429 with Retry-After, 500, 503, 529, slow responses (past a client timeout) and malformed JSON.
Every request is counted and recorded with its key-bearing headers redacted.

    with LoopbackServer(latency=0.05, faults=[Fault.rate_limited(), None]) as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0)
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from medeval.testing.prompt_cache import PromptCache
from medeval.testing.wire import (
    REDACTED,
    SECRET_HEADERS,
    SNAPSHOT,
    TARGET_ANSWER,
    Dialect,
    Fault,
    Handler,
    Prompt,
    ReceivedRequest,
    Reply,
    Responder,
    default_responder,
    judge_schema_name,
    tokens,
)

__all__ = [
    "REDACTED",
    "SECRET_HEADERS",
    "SNAPSHOT",
    "TARGET_ANSWER",
    "Dialect",
    "Fault",
    "Handler",
    "LoopbackServer",
    "Prompt",
    "ReceivedRequest",
    "Reply",
    "Responder",
    "default_responder",
    "judge_schema_name",
    "tokens",
]


@dataclass
class _Schedule:
    scheduled: deque[Fault | None] = field(default_factory=deque)
    rate: float = 0.0
    rate_faults: tuple[Fault, ...] = ()
    rng: random.Random = field(default_factory=random.Random)


class LoopbackServer:
    """A fake provider on 127.0.0.1:<free port>, in a background thread. Use as a context manager."""

    def __init__(
        self,
        dialect: Dialect | None = None,
        *,
        latency: float = 0.0,
        jitter: float = 0.0,
        faults: Iterable[Fault | None] = (),
        fault_rate: float = 0.0,
        rate_faults: Sequence[Fault] = (Fault(status=500),),
        seed: int = 0,
        api_key: str | None = None,
        responder: Responder = default_responder,
        snapshot: str = SNAPSHOT,
        unknown_models: Iterable[str] = (),
        record_bodies: bool = True,
        keep_requests: bool = True,
        reply_headers: Callable[[ReceivedRequest], dict[str, str]] | None = None,
    ) -> None:
        if dialect is None:
            from medeval.testing.openai_dialect import OPENAI

            dialect = OPENAI
        self.dialect = dialect
        self.latency = latency
        #: Each reply waits latency x uniform(1 - jitter, 1 + jitter): the same mean, in no lockstep.
        self.jitter = jitter
        self.api_key = api_key
        self.responder = responder
        self.snapshot = snapshot
        self.fingerprint = f"fp_loopback_{snapshot}"
        self.unknown_models = set(unknown_models)
        self.record_bodies = record_bodies
        #: False for long benchmarks: count requests without keeping a record of each.
        self.keep_requests = keep_requests
        #: Headers added to every reply, from the request (rate-limit headers, say).
        self.reply_headers = reply_headers
        self.requests: list[ReceivedRequest] = []
        #: Prefixes seen so far, so replies report cached input tokens as a provider would.
        self.prompt_cache = PromptCache()
        self._schedule = _Schedule(deque(faults), fault_rate, tuple(rate_faults), random.Random(seed))
        self._lock = threading.Lock()
        self._count = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # -- public API --

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (with /v1)."""
        return f"{self.url}/v1"

    @property
    def request_count(self) -> int:
        with self._lock:
            return self._count

    def script(self, *faults: Fault | None) -> None:
        """Queue faults for the next requests, in order (None = answer normally)."""
        with self._lock:
            self._schedule.scheduled.extend(faults)

    def clear(self) -> None:
        """Forget recorded requests and pending scheduled faults (the counter keeps counting)."""
        with self._lock:
            self.requests.clear()
            self._schedule.scheduled.clear()

    def served_model(self, requested: str) -> str:
        """The model id the fake reports: a dated snapshot of the requested one."""
        return f"{requested}-{self.snapshot}"

    def start(self) -> LoopbackServer:
        ready = threading.Event()
        failure: list[BaseException] = []
        loop = asyncio.new_event_loop()
        self._loop = loop

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                server = loop.run_until_complete(
                    asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=512)
                )
            except BaseException as error:  # surfaced to the starting thread
                failure.append(error)
                ready.set()
                return
            self.port = server.sockets[0].getsockname()[1]
            ready.set()
            try:
                loop.run_forever()
            finally:
                server.close()
                pending = asyncio.all_tasks(loop)
                for task in pending:
                    task.cancel()
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                loop.close()

        self._thread = threading.Thread(target=run, name="loopback-server", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- internals --

    def _next_fault(self) -> tuple[int, Fault | None]:
        with self._lock:
            self._count += 1
            index = self._count
            schedule = self._schedule
            if schedule.scheduled:
                return index, schedule.scheduled.popleft()
            if schedule.rate and schedule.rng.random() < schedule.rate:
                return index, schedule.rng.choice(schedule.rate_faults)
            return index, None

    def _redact(self, headers: dict[str, str]) -> tuple[dict[str, str], str | None]:
        """Drop secrets from the record; note which header carried the expected key."""
        redacted: dict[str, str] = {}
        key_header = None
        for name, value in headers.items():
            carries_key = bool(self.api_key) and value in (self.api_key, f"Bearer {self.api_key}")
            if carries_key and key_header is None:
                key_header = name
            leaked = bool(self.api_key) and len(self.api_key or "") >= 8 and (self.api_key or "") in value
            if name in SECRET_HEADERS or carries_key or leaked:
                scheme = value.split(" ", 1)[0] + " " if name == "authorization" and " " in value else ""
                redacted[name] = scheme + REDACTED
            else:
                redacted[name] = value
        return redacted, key_header

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                request_line = await reader.readline()
                if not request_line.strip():
                    break
                method, target, _ = request_line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while True:
                    line = await reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = line.decode("latin-1").partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length") or 0)
                payload = await reader.readexactly(length) if length else b""
                status, reply_headers, data = await self._answer(method, target, headers, payload)
                head = [f"HTTP/1.1 {status} {_reason(status)}"]
                head += [f"{k}: {v}" for k, v in reply_headers.items()]
                head += [f"content-length: {len(data)}", "", ""]
                writer.write("\r\n".join(head).encode("latin-1") + data)
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        except asyncio.CancelledError:
            # Shutdown with a client still connected: end quietly (a cancelled connection
            # task makes asyncio log a spurious traceback).
            pass
        finally:
            writer.close()

    async def _answer(
        self, method: str, target: str, headers: dict[str, str], payload: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        index, fault = self._next_fault()
        parts = urlsplit(target)
        try:
            body: Any = json.loads(payload) if payload else None
        except ValueError:
            # Not JSON (a multipart file upload): kept as text for the dialect to read.
            body = payload.decode("utf-8", "replace")
        safe_headers, key_header = self._redact(headers)
        received = ReceivedRequest(
            index=index,
            method=method,
            path=parts.path,
            query=parts.query,
            headers=safe_headers,
            body=body if self.record_bodies else None,
            key_header=key_header,
            raw=payload if self.record_bodies else None,
        )
        if self.keep_requests:
            with self._lock:
                self.requests.append(received)
        delay = self.latency + (fault.delay if fault else 0.0)
        if self.jitter:
            with self._lock:
                delay += self.latency * self._schedule.rng.uniform(-self.jitter, self.jitter)
        if delay:
            await asyncio.sleep(delay)
        base = {"content-type": "application/json", "x-request-id": f"req_loopback_{index:06d}"}
        base["request-id"] = base["x-request-id"]
        if self.reply_headers is not None:
            base.update(self.reply_headers(received))
        keyless = self.dialect.keyless is not None and self.dialect.keyless(parts.path, parts.query)
        if self.api_key and key_header is None and not keyless:
            return self._error(401, "invalid or missing API key", base)
        if fault is not None and fault.kind == "status":
            extra = {"retry-after": fault.retry_after} if fault.retry_after is not None else {}
            return self._error(fault.status, fault.message, {**base, **extra, **fault.headers})
        if fault is not None and fault.kind == "malformed":
            return 200, base, b'{"id": "broken", "choices": [{"message": '
        reply = await self.dialect.handle(received, self)
        text = reply.text if reply.text is not None else json.dumps(reply.body)
        return reply.status, {**base, **reply.headers}, text.encode("utf-8")

    def _error(self, status: int, message: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        return status, headers, json.dumps(self.dialect.error_body(status, message)).encode("utf-8")


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Overloaded" if status == 529 else "Error"
