"""The Gemini Developer API wire format (`POST /{v1,v1beta}/models/{model}:generateContent`) as a
loopback dialect: camelCase bodies, `x-goog-api-key` auth, `modelVersion` and `responseId`.

`gemini_dialect(book)` adds batch mode on a `BatchBook`: the resumable file upload
(`/upload/{version}/files`), `models/{model}:batchGenerateContent` from an uploaded JSONL file of
`{"key", "request"}` lines, `batches/{id}` (an operation whose metadata carries the state and, once
done, the output) and the results file's download, one `{"key", "response" | "error"}` line per
request. With `inline_output` the output comes inline instead, each response carrying its key in
`metadata` (or not, with `echo_keys=False`, as the real service has been seen to do)."""

from __future__ import annotations

import json
import re
from typing import Any

from medeval.adapters.base import Message
from medeval.testing.loopback import Dialect, LoopbackServer, Prompt, ReceivedRequest, Reply, tokens
from medeval.testing.prompt_cache import prompt_parts
from medeval.testing.wire import SEARCH_SOURCE
from tests.servers.batches import Answer, Batch, BatchBook, ItemOutcome

ROUTE = re.compile(r"^/(v1|v1beta)/models/([^/:]+):generateContent$")
BATCH_CREATE = re.compile(r"^/(v1|v1beta)/models/([^/:]+):batchGenerateContent$")
BATCH_GET = re.compile(r"^/(v1|v1beta)/batches/([^/:]+)$")
UPLOAD = re.compile(r"^/upload/(v1|v1beta)/files$")
DOWNLOAD = re.compile(r"^/(?:download/)?(v1|v1beta)/files/([^/:]+):download$")
#: google.rpc.Code numbers for the HTTP statuses a scripted item error uses.
RPC_CODES = {400: 3, 401: 16, 403: 7, 404: 5, 429: 8, 500: 13, 503: 14, 504: 4}
STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def error_body(status: int, message: str) -> dict[str, Any]:
    return {"error": {"code": status, "message": message, "status": STATUS_NAMES.get(status, "UNKNOWN")}}


def _text(parts: Any) -> str:
    return "".join(str(p.get("text", "")) for p in parts or [] if isinstance(p, dict))


async def handle(request: ReceivedRequest, server: LoopbackServer) -> Reply:
    return await _generate(request, server)


async def _generate(request: ReceivedRequest, server: LoopbackServer) -> Reply:
    route = ROUTE.match(request.path)
    if request.method != "POST" or route is None:
        return Reply(status=404, body=error_body(404, f"no route {request.path}"))
    model = route.group(2)
    if model in server.unknown_models:
        return Reply(
            status=404, body=error_body(404, f"models/{model} is not found for API version {route[1]}")
        )
    body = request.body if isinstance(request.body, dict) else {}
    config = body.get("generationConfig") or {}
    system = _text((body.get("systemInstruction") or {}).get("parts"))
    prompt = Prompt(
        model=model,
        system=system,
        messages=[
            Message(role="assistant" if c.get("role") == "model" else "user", content=_text(c.get("parts")))
            for c in body.get("contents", [])
        ],
        json_schema=config.get("responseJsonSchema")
        if config.get("responseMimeType") == "application/json"
        else None,
        seed=config.get("seed"),
    )
    text = await server.responder(prompt)
    prompt_tokens = tokens(system + "".join(m.content for m in prompt.messages))
    cached = min(prompt_tokens, server.prompt_cache.implicit(prompt_parts(system, prompt.messages)))
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"text": text}]},
        "finishReason": "STOP",
        "index": 0,
    }
    if any(isinstance(t, dict) and "googleSearch" in t for t in body.get("tools") or []):
        # Grounding with Google Search: sources as chunks, supports tying a segment (UTF-8 byte
        # offsets, and its text) to them (documented shape).
        first = text.split(".")[0]
        candidate["groundingMetadata"] = {
            "webSearchQueries": ["medicare enrollment"],
            "groundingChunks": [{"web": {"uri": SEARCH_SOURCE[0], "title": SEARCH_SOURCE[1]}}],
            "groundingSupports": [
                {
                    "segment": {"startIndex": 0, "endIndex": len(first.encode("utf-8")), "text": first},
                    "groundingChunkIndices": [0],
                }
            ],
        }
    return Reply(
        body={
            "candidates": [candidate],
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "candidatesTokenCount": tokens(text),
                "thoughtsTokenCount": 0,
                "cachedContentTokenCount": cached,
                "totalTokenCount": prompt_tokens + tokens(text),
            },
            "modelVersion": server.served_model(model),
            "responseId": f"gemini-resp-{request.index:06d}",
        }
    )


GEMINI = Dialect("gemini", handle, error_body)


class _Files:
    def __init__(self) -> None:
        self.uploads: dict[str, bytes] = {}
        self.sessions: set[str] = set()
        self.count = 0


def gemini_dialect(book: BatchBook, *, inline_output: bool = False, echo_keys: bool = True) -> Dialect:
    """generateContent plus batch mode (file input) on `book`."""
    files = _Files()

    async def handle_all(request: ReceivedRequest, server: LoopbackServer) -> Reply:
        if UPLOAD.match(request.path):
            return _upload(files, request, server)
        if (route := DOWNLOAD.match(request.path)) and request.method == "GET":
            data = files.uploads.get(f"files/{route[2]}")
            if data is None:
                return Reply(status=404, body=error_body(404, f"files/{route[2]} not found"))
            return Reply(text=data.decode(), headers={"content-type": "application/octet-stream"})
        if (route := BATCH_CREATE.match(request.path)) and request.method == "POST":
            return _create(book, files, route[2], request)
        if (route := BATCH_GET.match(request.path)) and request.method == "GET":
            batch = book.batches.get(f"batches/{route[2]}")
            if batch is None:
                return Reply(status=404, body=error_body(404, f"batches/{route[2]} not found"))
            await book.advance(batch, _answerer(server, batch.model))
            return Reply(body=_operation(book, files, batch, inline_output, echo_keys))
        return await _generate(request, server)

    def keyless(path: str, query: str) -> bool:
        # The upload session URL is the credential of the bytes' leg, as with the real service.
        return bool(UPLOAD.match(path)) and query.removeprefix("upload_id=") in files.sessions

    return Dialect("gemini", handle_all, error_body, keyless)


def _upload(files: _Files, request: ReceivedRequest, server: LoopbackServer) -> Reply:
    """The two legs of the resumable upload: start (answer the upload URL), then the bytes."""
    command = request.headers.get("x-goog-upload-command", "")
    if "upload_id=" not in request.query:
        files.count += 1
        files.sessions.add(str(files.count))
        url = f"{server.url}{request.path}?upload_id={files.count}"
        return Reply(body={}, headers={"x-goog-upload-url": url, "x-goog-upload-status": "active"})
    session = request.query.removeprefix("upload_id=")
    status = {"x-goog-upload-status": "final"}  # without it the SDK retries after a real sleep
    if session not in files.sessions or "finalize" not in command:
        return Reply(
            status=400, body=error_body(400, "unknown upload session or more than one chunk"), headers=status
        )
    files.sessions.discard(session)
    name = f"files/upload{session}"
    files.uploads[name] = request.raw or b""
    file = {"name": name, "mimeType": "jsonl", "sizeBytes": str(len(files.uploads[name])), "state": "ACTIVE"}
    return Reply(body={"file": file}, headers=status)


def _create(book: BatchBook, files: _Files, model: str, request: ReceivedRequest) -> Reply:
    body = request.body if isinstance(request.body, dict) else {}
    source = (body.get("batch") or {}).get("inputConfig") or {}
    data = files.uploads.get(str(source.get("fileName")))
    if data is None:
        return Reply(status=400, body=error_body(400, "batch.inputConfig: an uploaded fileName is required"))
    try:
        lines = [json.loads(line) for line in data.decode().splitlines() if line.strip()]
        items = [(str(line["key"]), line["request"]) for line in lines]
    except (KeyError, TypeError, ValueError):
        return Reply(status=400, body=error_body(400, "input file: each line needs a key and a request"))
    created = book.create(model, items, "batches/loopback")
    if isinstance(created, tuple):
        return Reply(status=created[0], body=error_body(*created))
    return Reply(body=_operation(book, files, created, False, True))


def _answerer(server: LoopbackServer, model: str) -> Answer:
    async def answer(custom_id: str, request: Any) -> tuple[int, Any]:
        del custom_id
        path = f"/v1beta/models/{model}:generateContent"
        item = ReceivedRequest(index=0, method="POST", path=path, query="", headers={}, body=request)
        reply = await _generate(item, server)
        return reply.status, reply.body

    return answer


STATES = {
    "in_progress": "BATCH_STATE_RUNNING",
    "ended": "BATCH_STATE_SUCCEEDED",
    "expired": "BATCH_STATE_EXPIRED",
    "cancelled": "BATCH_STATE_CANCELLED",
    "failed": "BATCH_STATE_FAILED",
}


def _operation(book: BatchBook, files: _Files, batch: Batch, inline: bool, echo_keys: bool) -> dict[str, Any]:
    counts = book.counts(batch)
    failed = counts["errored"] + counts["expired"] + counts["canceled"]
    metadata: dict[str, Any] = {
        "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
        "model": f"models/{batch.model}",
        "displayName": "loopback",
        "createTime": "2026-11-01T00:00:00Z",
        "state": STATES[batch.state],
        "batchStats": {
            "requestCount": str(counts["total"]),
            "successfulRequestCount": str(counts["succeeded"]),
            "failedRequestCount": str(failed),
            "pendingRequestCount": str(counts["processing"]),
        },
    }
    done = batch.state != "in_progress"
    if done and batch.state != "failed":
        lines = [_line(key, outcome) for key, outcome in book.results(batch)]
        if inline:
            for line in lines:
                key = line.pop("key")
                if echo_keys:
                    line["metadata"] = {"key": key}
            metadata["output"] = {"inlinedResponses": {"inlinedResponses": lines}}
        else:
            name = f"files/{batch.batch_id.removeprefix('batches/')}out"
            files.uploads[name] = "".join(json.dumps(line) + "\n" for line in lines).encode()
            metadata["output"] = {"responsesFile": name}
    return {"name": batch.batch_id, "metadata": metadata, "done": done}


def _line(key: str, outcome: ItemOutcome) -> dict[str, Any]:
    if outcome.kind == "succeeded":
        return {"key": key, "response": outcome.body}
    if outcome.kind == "errored":
        code = RPC_CODES.get(outcome.status, 2)
        return {"key": key, "error": {"code": code, "message": outcome.message}}
    # expired or cancelled items: no answer, the rpc status says why
    return {"key": key, "error": {"code": 4 if outcome.kind == "expired" else 1, "message": outcome.kind}}
