"""The OpenAI wire format for the loopback server (the default dialect): `POST /v1/chat/completions`
and `POST /v1/responses`, with OpenAI's error body shape. The openai-compatible provider and the
run-engine tests use it too."""

from __future__ import annotations

from typing import Any

from medeval.adapters.base import Message
from medeval.records.hashing import sha256_text
from medeval.testing.prompt_cache import prompt_parts
from medeval.testing.wire import SEARCH_SOURCE, Dialect, Prompt, ReceivedRequest, Reply, Server, tokens


def _text_of(content: Any) -> str:
    """Chat content is a string or a list of typed parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def openai_error_body(status: int, message: str) -> dict[str, Any]:
    kind = {429: "rate_limit_exceeded", 401: "invalid_api_key", 404: "model_not_found"}.get(status, "error")
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


async def _openai_handle(request: ReceivedRequest, server: Server) -> Reply:
    body = request.body if isinstance(request.body, dict) else {}
    if request.method != "POST" or not request.path.endswith(("/chat/completions", "/responses")):
        return Reply(status=404, body=openai_error_body(404, f"no route {request.method} {request.path}"))
    model = str(body.get("model", ""))
    if model in server.unknown_models:
        message = f"The model `{model}` does not exist or you do not have access to it."
        return Reply(status=404, body=openai_error_body(404, message))
    served = server.served_model(model)
    if request.path.endswith("/chat/completions"):
        return await _openai_chat(body, model, served, request, server)
    return await _openai_responses(body, model, served, request, server)


async def _openai_chat(
    body: dict[str, Any], model: str, served: str, request: ReceivedRequest, server: Server
) -> Reply:
    messages = body.get("messages", [])
    system = "".join(_text_of(m.get("content")) for m in messages if m.get("role") in ("system", "developer"))
    turns = [
        Message(role=m["role"], content=_text_of(m.get("content")))
        for m in messages
        if m.get("role") in ("user", "assistant")
    ]
    fmt = body.get("response_format") or {}
    spec = fmt.get("json_schema") or {}
    prompt = Prompt(
        model=model,
        system=system,
        messages=turns,
        json_schema=spec.get("schema") if fmt.get("type") == "json_schema" else None,
        schema_name=spec.get("name"),
        seed=body.get("seed"),
    )
    text = await server.responder(prompt)
    prompt_tokens = tokens(system + "".join(m.content for m in turns))
    cached = min(prompt_tokens, server.prompt_cache.implicit(prompt_parts(prompt.system, prompt.messages)))
    return Reply(
        body={
            "id": f"chatcmpl-{request.index:06d}{sha256_text(text)[:8]}",
            "object": "chat.completion",
            "created": 1_790_000_000,
            "model": served,
            "system_fingerprint": server.fingerprint,
            "service_tier": "default",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": None},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": tokens(text),
                "total_tokens": prompt_tokens + tokens(text),
                "prompt_tokens_details": {"cached_tokens": cached},
                "completion_tokens_details": {"reasoning_tokens": 0},
            },
        }
    )


async def _openai_responses(
    body: dict[str, Any], model: str, served: str, request: ReceivedRequest, server: Server
) -> Reply:
    items = body.get("input", [])
    turns = [
        Message(role=i["role"], content=_text_of(i.get("content"))) for i in items if isinstance(i, dict)
    ]
    fmt = (body.get("text") or {}).get("format") or {}
    prompt = Prompt(
        model=model,
        system=str(body.get("instructions") or ""),
        messages=turns,
        json_schema=fmt.get("schema") if fmt.get("type") == "json_schema" else None,
        schema_name=fmt.get("name"),
    )
    text = await server.responder(prompt)
    prompt_tokens = tokens(prompt.system + "".join(m.content for m in turns))
    cached = min(prompt_tokens, server.prompt_cache.implicit(prompt_parts(prompt.system, prompt.messages)))
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    searched = any(t.get("type") == "web_search" for t in tools)
    # With the hosted search tool, the answer comes after a web_search_call item, its output_text
    # carrying url_citation annotations indexed within the part (OpenAI's documented shape).
    output: list[dict[str, Any]] = (
        [{"id": f"ws_{request.index:06d}", "type": "web_search_call", "status": "completed"}]
        if searched
        else []
    )
    annotations = (
        [
            {
                "type": "url_citation",
                "url": SEARCH_SOURCE[0],
                "title": SEARCH_SOURCE[1],
                "start_index": 0,
                "end_index": len(text),
            }
        ]
        if searched
        else []
    )
    output.append(
        {
            "id": f"msg_{request.index:06d}",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": annotations}],
        }
    )
    return Reply(
        body={
            "id": f"resp_{request.index:06d}{sha256_text(text)[:8]}",
            "object": "response",
            "created_at": 1_790_000_000,
            "status": "completed",
            "model": served,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": tools,
            "store": body.get("store", True),
            "usage": {
                "input_tokens": prompt_tokens,
                "output_tokens": tokens(text),
                "total_tokens": prompt_tokens + tokens(text),
                "input_tokens_details": {"cached_tokens": cached},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }
    )


OPENAI = Dialect("openai", _openai_handle, openai_error_body)
