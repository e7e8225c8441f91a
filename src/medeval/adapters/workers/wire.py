"""The lines the engine and its call workers exchange over a pipe. Tab-separated: JSON escapes
tabs and newlines inside strings, so neither appears in a JSON text.

    engine -> worker   id TAB spec TAB request-json
                       "-" TAB spec                       (build the adapter for spec)
    worker -> engine   "-" TAB "ready" TAB spec           (built: calls to spec may come)
    worker -> engine   id TAB "ok" TAB response-json TAB rate-limits-json
                       id TAB "error" TAB provider-error-json
                       id TAB "crash" TAB message-json
"""

from __future__ import annotations

import json

from medeval.adapters.base import ChatResponse, ProviderError, RateLimits

#: Longest line either side reads: a response carries the provider's raw JSON.
LINE_LIMIT = 256 * 1024 * 1024


def request_line(call_id: int, spec: str, request_json: str) -> bytes:
    return f"{call_id}\t{spec}\t{request_json}\n".encode()


def prepare_line(spec: str) -> bytes:
    return f"-\t{spec}\n".encode()


def ready_line(spec: str) -> bytes:
    return f"-\tready\t{spec}\n".encode()


def _fields(line: bytes, count: int) -> list[bytes]:
    return line.rstrip(b"\n").split(b"\t", count - 1)


def read_request(line: bytes) -> tuple[str, bytes | None, bytes]:
    """What the engine sent: (spec, None, b"") to build its adapter, or (spec, call id, request
    JSON) for a call."""
    if line.startswith(b"-\t"):
        return _fields(line, 2)[1].decode(), None, b""
    call_id, spec, body = _fields(line, 3)
    return spec.decode(), call_id, body


def read_ready(line: bytes) -> str | None:
    """The spec a worker says it is ready for, or None for any other line."""
    if not line.startswith(b"-\t"):
        return None
    return _fields(line, 3)[2].decode()


def succeeded(call_id: bytes, response: ChatResponse) -> bytes:
    limits = response.rate_limits.model_dump_json() if response.rate_limits is not None else "null"
    return b"%s\tok\t%s\t%s\n" % (call_id, response.model_dump_json().encode(), limits.encode())


def failed(call_id: bytes, error: ProviderError) -> bytes:
    fields = {
        "message": str(error),
        "retryable": error.retryable,
        "status": error.status,
        "retry_after": error.retry_after,
        "request_id": error.request_id,
        "rate_limits": error.rate_limits.model_dump() if error.rate_limits is not None else None,
    }
    return b"%s\terror\t%s\n" % (call_id, json.dumps(fields).encode())


def crashed(call_id: bytes, error: Exception) -> bytes:
    return b"%s\tcrash\t%s\n" % (call_id, json.dumps(f"{type(error).__name__}: {error}").encode())


def read_answer(line: bytes) -> tuple[int, ChatResponse | Exception]:
    """The call id of a worker's line, and its response or the exception to raise in the engine."""
    call_id, kind, rest = _fields(line, 3)
    if kind == b"ok":
        body, limits = rest.rsplit(b"\t", 1)
        response = ChatResponse.model_validate_json(body)
        if limits != b"null":
            response.rate_limits = RateLimits.model_validate_json(limits)
        return int(call_id), response
    if kind == b"error":
        fields = json.loads(rest)
        reported = fields.pop("rate_limits")
        message = fields.pop("message")
        error = ProviderError(
            message, **fields, rate_limits=RateLimits.model_validate(reported) if reported else None
        )
        return int(call_id), error
    return int(call_id), RuntimeError(json.loads(rest))
