"""Reading OpenAI's reply bodies (Chat Completions and Responses) into a ChatResponse's fields: one
reader for the direct calls (openai_api) and the batch results (openai_batch)."""

from __future__ import annotations

from typing import Any

from medeval.adapters.base import Usage


def usage_from(usage: Any, prompt: str, completion: str) -> Usage:
    """Usage from the JSON body; the two APIs name the same counts differently."""
    if not isinstance(usage, dict):
        return Usage()
    return Usage(
        input_tokens=usage.get(f"{prompt}_tokens"),
        output_tokens=usage.get(f"{completion}_tokens"),
        reasoning_tokens=(usage.get(f"{completion}_tokens_details") or {}).get("reasoning_tokens"),
        cached_tokens=(usage.get(f"{prompt}_tokens_details") or {}).get("cached_tokens"),
    )


def from_chat(payload: dict[str, Any]) -> dict[str, Any]:
    choice = payload["choices"][0]
    message = choice["message"]
    return {
        "text": message.get("content") or message.get("refusal") or "",
        "served_model": payload.get("model"),
        "fingerprint": payload.get("system_fingerprint"),
        "response_id": payload.get("id"),
        "finish_reason": choice.get("finish_reason"),
        "usage": usage_from(payload.get("usage"), "prompt", "completion"),
    }


def from_response(payload: dict[str, Any]) -> dict[str, Any]:
    # output_text as the SDK's property builds it: every output_text part of every message item.
    text = "".join(
        part["text"]
        for item in payload.get("output") or []
        if item.get("type") == "message"
        for part in item.get("content") or []
        if part.get("type") == "output_text" and part.get("text") is not None
    )
    incomplete = payload.get("incomplete_details") or {}
    return {
        "text": text,
        "served_model": payload.get("model"),
        "fingerprint": None,  # the Responses API reports none
        "response_id": payload.get("id"),
        "finish_reason": incomplete.get("reason") or payload.get("status"),
        "usage": usage_from(payload.get("usage"), "input", "output"),
    }
