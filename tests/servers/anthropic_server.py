"""The Anthropic Messages wire format (`POST /v1/messages`) as a loopback dialect. It accepts the
key as `Authorization: Bearer` (what SDK 2.x sends) or `x-api-key` (what older clients send), and
answers 400 to any sampling parameter, as API version 2026-10-21 does.

`anthropic_dialect(book)` adds the Message Batches API (`/v1/messages/batches`: create, retrieve,
results as JSONL) on a `BatchBook`; each item is answered by the same code as a direct call."""

from __future__ import annotations

import json
import re
from typing import Any

from medeval.adapters.base import Message
from medeval.testing.loopback import Dialect, LoopbackServer, Prompt, ReceivedRequest, Reply, tokens
from medeval.testing.wire import SEARCH_SOURCE
from tests.servers.batches import Answer, Batch, BatchBook, ItemOutcome

SAMPLING_FIELDS = ("temperature", "top_p", "top_k")


def error_body(status: int, message: str) -> dict[str, Any]:
    kind = {
        400: "invalid_request_error",
        401: "authentication_error",
        404: "not_found_error",
        429: "rate_limit_error",
        529: "overloaded_error",
    }.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": None}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(str(b.get("text", "")) for b in content or [] if isinstance(b, dict))


def _cache_parts(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """The request's text blocks in order, each with whether it carries a cache breakpoint."""
    parts: list[tuple[str, bool]] = []
    for role, content in [
        ("system", body.get("system") or ""),
        *((m.get("role"), m.get("content")) for m in body.get("messages", [])),
    ]:
        blocks = [{"text": content}] if isinstance(content, str) else content or []
        parts += [
            (f"{role}:{b.get('text', '')}", "cache_control" in b) for b in blocks if isinstance(b, dict)
        ]
    return parts


async def handle(request: ReceivedRequest, server: LoopbackServer) -> Reply:
    return await _message(request, server)


async def _message(request: ReceivedRequest, server: LoopbackServer) -> Reply:
    if request.method != "POST" or request.path != "/v1/messages":
        return Reply(status=404, body=error_body(404, f"no route {request.path}"))
    body = request.body if isinstance(request.body, dict) else {}
    for name in SAMPLING_FIELDS:
        if name in body:
            return Reply(status=400, body=error_body(400, f"{name}: Extra inputs are not permitted"))
    if "max_tokens" not in body:
        return Reply(status=400, body=error_body(400, "max_tokens: Field required"))
    model = str(body.get("model", ""))
    if model in server.unknown_models:
        return Reply(status=404, body=error_body(404, f"model: {model}"))
    system = body.get("system") or ""
    fmt = (body.get("output_config") or {}).get("format") or {}
    prompt = Prompt(
        model=model,
        system=system if isinstance(system, str) else _text(system),
        messages=[Message(role=m["role"], content=_text(m.get("content"))) for m in body.get("messages", [])],
        json_schema=fmt.get("schema") if fmt.get("type") == "json_schema" else None,
    )
    text = await server.responder(prompt)
    read, written, total = server.prompt_cache.explicit(_cache_parts(body))
    content: list[dict[str, Any]] = [{"type": "text", "text": text, "citations": None}]
    searched = any(
        isinstance(t, dict) and t.get("type") == "web_search_20250305" for t in body.get("tools") or []
    )
    if searched:
        # The server tool's call and result blocks, then the answer citing a result (documented shape).
        content = [
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {"query": "medicare"},
            },
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": [
                    {
                        "type": "web_search_result",
                        "url": SEARCH_SOURCE[0],
                        "title": SEARCH_SOURCE[1],
                        "encrypted_content": "enc",
                        "page_age": None,
                    }
                ],
            },
            {"type": "text", "text": "Here is what I found. ", "citations": None},
            {
                "type": "text",
                "text": text,
                "citations": [
                    {
                        "type": "web_search_result_location",
                        "url": SEARCH_SOURCE[0],
                        "title": SEARCH_SOURCE[1],
                        "cited_text": "You can sign up for Medicare",
                        "encrypted_index": "idx",
                    }
                ],
            },
        ]
    return Reply(
        body={
            "id": f"msg_loopback_{request.index:06d}",
            "type": "message",
            "role": "assistant",
            "model": server.served_model(model),
            "content": content,
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                # Anthropic counts cache reads and writes apart from input_tokens.
                "input_tokens": max(1, total - read - written),
                "output_tokens": tokens(text),
                "cache_creation_input_tokens": written,
                "cache_read_input_tokens": read,
                "service_tier": "standard",
            },
        }
    )


ANTHROPIC = Dialect("anthropic", handle, error_body)

CUSTOM_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def anthropic_dialect(book: BatchBook) -> Dialect:
    """The Messages API plus Message Batches on `book`."""

    async def handle_all(request: ReceivedRequest, server: LoopbackServer) -> Reply:
        if request.path.startswith("/v1/messages/batches"):
            return await _batches(book, request, server)
        return await _message(request, server)

    return Dialect("anthropic", handle_all, error_body)


async def _batches(book: BatchBook, request: ReceivedRequest, server: LoopbackServer) -> Reply:
    parts = request.path.removeprefix("/v1/messages/batches").strip("/").split("/")
    if request.method == "POST" and parts == [""]:
        return _create(book, request)
    batch = book.batches.get(parts[0])
    if batch is None:
        return Reply(status=404, body=error_body(404, f"message batch {parts[0]} not found"))
    if request.method == "GET" and len(parts) == 1:
        await book.advance(batch, _answerer(server))
        return Reply(body=_batch_body(book, batch, server))
    if request.method == "GET" and parts[1:] == ["results"] and batch.state != "in_progress":
        lines = [
            json.dumps({"custom_id": custom_id, "result": _result(outcome)})
            for custom_id, outcome in book.results(batch)
        ]
        return Reply(text="\n".join(lines) + "\n", headers={"content-type": "application/binary"})
    return Reply(status=404, body=error_body(404, f"no route {request.path}"))


def _create(book: BatchBook, request: ReceivedRequest) -> Reply:
    body = request.body if isinstance(request.body, dict) else {}
    requests = body.get("requests")
    if not isinstance(requests, list) or not requests:
        return Reply(status=400, body=error_body(400, "requests: Field required"))
    ids = [r.get("custom_id") for r in requests if isinstance(r, dict)]
    if len(ids) != len(requests) or not all(isinstance(i, str) and CUSTOM_ID.match(i) for i in ids):
        return Reply(status=400, body=error_body(400, "requests: custom_id must match ^[a-zA-Z0-9_-]{1,64}$"))
    if len(set(ids)) != len(ids):
        return Reply(status=400, body=error_body(400, "requests: custom_id values must be unique"))
    created = book.create(
        str(requests[0].get("params", {}).get("model", "")),
        [(r["custom_id"], r.get("params")) for r in requests],
        "msgbatch_loopback_",
    )
    if isinstance(created, tuple):
        return Reply(status=created[0], body=error_body(*created))
    return Reply(body=_batch_body(book, created, None))


def _answerer(server: LoopbackServer) -> Answer:
    async def answer(custom_id: str, params: Any) -> tuple[int, Any]:
        item = ReceivedRequest(index=0, method="POST", path="/v1/messages", query="", headers={}, body=params)
        reply = await _message(item, server)
        if isinstance(reply.body, dict) and reply.status == 200:
            reply.body["id"] = f"msg_loopback_{custom_id}"
            reply.body["usage"]["service_tier"] = "batch"
        return reply.status, reply.body

    return answer


def _batch_body(book: BatchBook, batch: Batch, server: LoopbackServer | None) -> dict[str, Any]:
    counts = book.counts(batch)
    ended = batch.state != "in_progress"
    return {
        "id": batch.batch_id,
        "type": "message_batch",
        "processing_status": "ended" if ended else "in_progress",
        "request_counts": {
            "processing": counts["processing"],
            "succeeded": counts["succeeded"],
            "errored": counts["errored"],
            "canceled": counts["canceled"],
            "expired": counts["expired"],
        },
        "created_at": CREATED,
        "expires_at": "2026-11-02T00:00:00Z",
        "ended_at": CREATED if ended else None,
        "cancel_initiated_at": CREATED if batch.state == "cancelled" else None,
        "archived_at": None,
        "results_url": f"{server.url}/v1/messages/batches/{batch.batch_id}/results"
        if ended and server is not None
        else None,
    }


CREATED = "2026-11-01T00:00:00Z"


def _result(outcome: ItemOutcome) -> dict[str, Any]:
    if outcome.kind == "succeeded":
        return {"type": "succeeded", "message": outcome.body}
    if outcome.kind == "errored":
        body = outcome.body if isinstance(outcome.body, dict) else error_body(outcome.status, outcome.message)
        return {"type": "errored", "error": body}
    return {"type": outcome.kind}
