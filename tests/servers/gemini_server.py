"""The Gemini Developer API wire format (`POST /{v1,v1beta}/models/{model}:generateContent`) as a
loopback dialect: camelCase bodies, `x-goog-api-key` auth, `modelVersion` and `responseId`."""

from __future__ import annotations

import re
from typing import Any

from medeval.adapters.base import Message
from medeval.testing.loopback import Dialect, LoopbackServer, Prompt, ReceivedRequest, Reply, tokens

ROUTE = re.compile(r"^/(v1|v1beta)/models/([^/:]+):generateContent$")
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
    return Reply(
        body={
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "candidatesTokenCount": tokens(text),
                "thoughtsTokenCount": 0,
                "totalTokenCount": prompt_tokens + tokens(text),
            },
            "modelVersion": server.served_model(model),
            "responseId": f"gemini-resp-{request.index:06d}",
        }
    )


GEMINI = Dialect("gemini", handle, error_body)
