"""Model-backed judge calls with a schema: validate every output, retry invalid output a bounded
number of times (each attempt recorded by the gateway), then give up as *unscored*, never as a
silent right or wrong."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from medeval.adapters.base import ChatRequest, ChatResponse, Message, OutputSchema, Sampling
from medeval.calls.gateway import CallContext, CallFailed, Gateway
from medeval.prompts import load_prompt

T = TypeVar("T", bound=BaseModel)

INVALID_OUTPUT_FEEDBACK = (
    "Your previous reply was not valid for the required JSON schema ({problem}). "
    "Reply again with JSON only, matching the schema exactly."
)
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


@dataclass
class StructuredResult(Generic[T]):
    value: T | None
    attempts: int
    error: str | None = None
    responses: list[ChatResponse] = field(default_factory=list)


@functools.cache
def output_schema(name: str, model: type[BaseModel]) -> OutputSchema:
    """Built once per (name, model class): generating a JSON schema costs about as much CPU as the
    rest of a judge call. Every request shares the one object, so nothing may modify it."""
    return OutputSchema(name=name, json_schema=model.model_json_schema())


def role_request(
    role: str,
    content: str,
    schema: tuple[str, type[BaseModel]],
    *,
    seed: int,
    metadata: dict[str, str],
    temperature: float = 0.0,
    stable_prefix: int | None = None,
) -> ChatRequest:
    """A model-backed role's request: its own system prompt, one user message holding the material
    as delimited data, and the JSON schema its answer must follow. `stable_prefix` says how much of
    the message repeats across calls (agents/boundary.prefixed_message), for prompt caching."""
    return ChatRequest(
        system=load_prompt(role),
        messages=[Message(role="user", content=content)],
        sampling=Sampling(temperature=temperature),
        seed=seed,
        output_schema=output_schema(*schema),
        metadata={"role": role, **metadata},
        stable_prefix=stable_prefix,
    )


def parse_output(text: str, model: type[T]) -> T:
    """Parse a model's JSON reply; tolerate a Markdown code fence, nothing else."""
    fenced = _FENCE.match(text)
    return model.model_validate_json(fenced.group(1) if fenced else text.strip())


def describe_invalid(error: Exception) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        return f"{error.error_count()} error(s), first at {where}: {first['msg']}"
    if isinstance(error, json.JSONDecodeError):
        return f"invalid JSON: {error.msg} at character {error.pos}"
    return str(error)


async def call_structured(
    gateway: Gateway,
    spec: str,
    request: ChatRequest,
    model: type[T],
    ctx: CallContext,
    *,
    max_attempts: int = 3,
) -> StructuredResult[T]:
    responses: list[ChatResponse] = []
    problem = ""
    for attempt in range(1, max_attempts + 1):
        try:
            response = await gateway.complete(spec, request, ctx)
        except CallFailed as failure:
            return StructuredResult(None, attempt, f"call failed: {failure}", responses)
        responses.append(response)
        try:
            return StructuredResult(parse_output(response.text, model), attempt, None, responses)
        except (ValidationError, ValueError) as error:
            problem = describe_invalid(error)
        request = request.model_copy(
            update={
                "messages": [
                    *request.messages,
                    Message(role="assistant", content=response.text or "(empty)"),
                    Message(role="user", content=INVALID_OUTPUT_FEEDBACK.format(problem=problem)),
                ]
            }
        )
    return StructuredResult(
        None, max_attempts, f"invalid output after {max_attempts} attempts: {problem}", responses
    )
