"""The Anthropic Messages wire format (`POST /v1/messages`) as a loopback dialect. It accepts the
key as `Authorization: Bearer` (what SDK 2.x sends) or `x-api-key` (what older clients send), and
answers 400 to any sampling parameter, as API version 2026-10-21 does."""

from __future__ import annotations

from typing import Any

from medeval.adapters.base import Message
from medeval.testing.loopback import Dialect, LoopbackServer, Prompt, ReceivedRequest, Reply, tokens

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


async def handle(request: ReceivedRequest, server: LoopbackServer) -> Reply:
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
    return Reply(
        body={
            "id": f"msg_loopback_{request.index:06d}",
            "type": "message",
            "role": "assistant",
            "model": server.served_model(model),
            "content": [{"type": "text", "text": text, "citations": None}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": tokens(prompt.system + "".join(m.content for m in prompt.messages)),
                "output_tokens": tokens(text),
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "service_tier": "standard",
            },
        }
    )


ANTHROPIC = Dialect("anthropic", handle, error_body)
