"""`openai:` and `openai-compatible:` on the official `openai` SDK (3.x, httpx2 transport).

Chat Completions by default (it takes `seed` and returns `system_fingerprint`); the Responses API
for families that need it, always with `store=False`. SDK retries are off (`max_retries=0`): the
gateway's one retry policy sees and records every attempt.
"""

from __future__ import annotations

import json
import time
from datetime import date
from typing import Any

import httpx2
import openai
from openai import AsyncOpenAI

from medeval.adapters import openai_batch
from medeval.adapters.apikeys import endpoint, find_key, require_key
from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI
from medeval.adapters.batch import BatchAPI, BatchItem, BatchOutcome, BatchStatus
from medeval.adapters.catalog import (
    CatalogModel,
    filter_sampling,
    provider_info,
)
from medeval.adapters.citations import OPENAI_TOOL, openai_citations
from medeval.adapters.openai_replies import from_chat, from_response
from medeval.adapters.ratelimits import rate_limits
from medeval.adapters.retry import connection_error, http_error, malformed_error, timeout_error
from medeval.adapters.transport import connection_failure, sdk_http_client
from medeval.errors import ConfigError
from medeval.records.hashing import sha256_text

DEFAULT_TIMEOUT = 120.0
#: Sent when an openai-compatible server needs no key (Ollama, llama.cpp): the SDK insists on one.
NO_KEY_PLACEHOLDER = "not-needed"


def strict_compatible(schema: dict[str, Any]) -> bool:
    """OpenAI strict mode needs every object closed and every property required; a pydantic
    schema with defaults is not, so it is sent non-strict (and re-validated by the harness)."""
    if schema.get("type") == "object" or "properties" in schema:
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False or set(schema.get("required", [])) != set(props):
            return False
    children: list[Any] = [*schema.get("properties", {}).values(), *schema.get("$defs", {}).values()]
    for key in ("items", "anyOf", "oneOf", "allOf"):
        value = schema.get(key)
        children.extend(value if isinstance(value, list) else [value] if value else [])
    return all(strict_compatible(c) for c in children if isinstance(c, dict))


class OpenAIAdapter(CatalogModel, BatchAPI):
    provider = "openai"
    web_search = True
    key_variables = ("OPENAI_API_KEY",)
    #: OpenAI's Batch API costs half the direct price.
    batch_discount = 0.5

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        today: date | None = None,
        http_client: httpx2.AsyncClient | None = None,
    ) -> None:
        super().__init__(model, timeout=timeout, today=today)
        info = self.info
        key = api_key or self._key()
        url = base_url or endpoint(info.endpoint_variable) or info.default_endpoint
        self._client = AsyncOpenAI(
            api_key=key,
            base_url=url,
            max_retries=0,
            timeout=httpx2.Timeout(timeout, connect=min(timeout, 10.0)),
            http_client=http_client or sdk_http_client(openai, url or ""),
        )
        #: custom id -> (sampling sent, sampling dropped) of each batched request, for its response.
        self._batch_sampling: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}

    def _key(self) -> str:
        return require_key(self.spec, self.key_variables)

    def settings(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model_id": self.wire_model,
            "family": self.family.family,
            "api": self.family.api,
            "base_url": str(self._client.base_url),
            "sdk": f"openai {openai.__version__}",
            "sdk_max_retries": 0,
            "timeout_s": self.timeout,
            "store": False if self.family.api == "responses" else None,
        }

    async def aclose(self) -> None:
        await self._client.close()

    async def generate(self, request: ChatRequest) -> ChatResponse:
        sent, dropped = filter_sampling(request, self.family)
        if request.stable_prefix is not None and self.provider == "openai":
            # OpenAI routes by the first few hundred tokens, the same judge system prompt in every
            # call; a key per stable prefix (one scenario's key and group) spreads the judges'
            # calls over machines that each hold one prefix. Other servers may refuse the field.
            sent["prompt_cache_key"] = prompt_cache_key(request)
        # OpenAI's web search tool is a Responses API tool: a search-enabled call goes there.
        responses = self.family.api == "responses" or request.web_search
        body = self._responses_body(request, sent) if responses else self._chat_body(request, sent)
        started = time.perf_counter()
        try:
            # The client's own request path (auth, headers, timeout, error classes), without the
            # typed `create` wrapper: it re-walks the body's TypedDict annotations on every call
            # (about a fifth of this adapter's CPU) to rename fields that our plain JSON body does not
            # use, and builds a typed response object we would only read back into ours.
            http = await self._client.post(
                "/responses" if responses else "/chat/completions",
                cast_to=httpx2.Response,
                body=body,
                options={"security": {"bearer_auth": True}},
            )
        except openai.APITimeoutError as error:
            failed = connection_failure(error)
            if failed is not None:
                raise connection_error(self.spec, f"{error} ({failed})") from error
            raise timeout_error(self.spec, f"no response within {self.timeout:g} s") from error
        except openai.APIConnectionError as error:
            raise connection_error(self.spec, str(error)) from error
        except openai.APIStatusError as error:
            raise http_error(
                self.spec,
                error.status_code,
                _provider_message(error),
                error.response.headers,
                error.request_id,
            ) from error
        latency = (time.perf_counter() - started) * 1000
        request_id = http.headers.get("x-request-id")
        try:
            payload = json.loads(http.content)
            if not isinstance(payload, dict):
                raise ValueError("top level is not an object")
        except ValueError as error:
            raise malformed_error(self.spec, str(error), request_id) from error
        base = {
            "requested_model": self.wire_model,  # the id actually asked for, aliases resolved
            "request_id": request_id,
            "latency_ms": latency,
            "sampling_sent": sent,
            "sampling_dropped": dropped,
            "raw": payload,
            "rate_limits": rate_limits(http.headers),
        }
        try:
            cited = openai_citations(payload) if responses and request.web_search else []
            read = from_response(payload) if responses else from_chat(payload)
            return ChatResponse(**base, **read, citations=cited)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as error:
            raise malformed_error(self.spec, f"{type(error).__name__}: {error}", request_id) from error

    async def batch_submit(self, items: list[BatchItem]) -> str:
        return await openai_batch.submit(self, items)

    async def batch_status(self, batch_id: str) -> BatchStatus:
        return await openai_batch.status(self, batch_id)

    async def batch_results(self, batch_id: str) -> list[BatchOutcome]:
        return await openai_batch.results(self, batch_id)

    def _chat_body(self, request: ChatRequest, sent: dict[str, Any]) -> dict[str, Any]:
        messages: list[dict[str, str]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.extend({"role": m.role, "content": m.content} for m in request.messages)
        body: dict[str, Any] = {"model": self.wire_model, "messages": messages}
        for knob in ("temperature", "top_p", "seed"):
            if knob in sent:
                body[knob] = sent[knob]
        if "max_output_tokens" in sent:
            body[self.family.max_tokens_field] = sent["max_output_tokens"]
        if "reasoning_effort" in sent:
            body["reasoning_effort"] = sent["reasoning_effort"]
        if "prompt_cache_key" in sent:
            body["prompt_cache_key"] = sent["prompt_cache_key"]
        if request.output_schema is not None:
            schema = request.output_schema.json_schema
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": request.output_schema.name,
                    "schema": schema,
                    "strict": strict_compatible(schema),
                },
            }
        return body

    def _responses_body(self, request: ChatRequest, sent: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.wire_model,
            "input": [{"role": m.role, "content": m.content} for m in request.messages],
            "store": False,  # the default (true) keeps prompts at OpenAI for 30 days
        }
        if request.system:
            body["instructions"] = request.system
        if request.web_search:
            body["tools"] = [OPENAI_TOOL]
            sent["web_search"] = OPENAI_TOOL["type"]
        for knob in ("temperature", "top_p"):
            if knob in sent:
                body[knob] = sent[knob]
        if "max_output_tokens" in sent:
            body["max_output_tokens"] = sent["max_output_tokens"]
        if "reasoning_effort" in sent:
            body["reasoning"] = {"effort": sent["reasoning_effort"]}
        if "prompt_cache_key" in sent:
            body["prompt_cache_key"] = sent["prompt_cache_key"]
        if request.output_schema is not None:
            schema = request.output_schema.json_schema
            body["text"] = {
                "format": {
                    "type": "json_schema",
                    "name": request.output_schema.name,
                    "schema": schema,
                    "strict": strict_compatible(schema),
                }
            }
        return body


class OpenAICompatibleAdapter(OpenAIAdapter):
    """Any server that speaks the OpenAI API (OpenRouter, Ollama, vLLM, llama.cpp server)."""

    provider = "openai-compatible"
    #: A server speaking the OpenAI API has no search tool medeval can count on.
    web_search = False
    key_variables = ("OPENAI_COMPATIBLE_API_KEY",)

    def __init__(self, model: str, *, base_url: str | None = None, **kwargs: Any) -> None:
        info = provider_info(self.provider)
        base_url = base_url or endpoint(info.endpoint_variable)
        if not base_url:
            raise ConfigError(
                f"openai-compatible:{model} needs a server: set {info.endpoint_variable} "
                "(e.g. http://localhost:11434/v1 for Ollama)"
            )
        super().__init__(model, base_url=base_url, **kwargs)

    def _key(self) -> str:
        # Local servers need no key; OpenRouter and hosted vLLM do, through the same variable.
        return find_key(self.key_variables) or NO_KEY_PLACEHOLDER


def prompt_cache_key(request: ChatRequest) -> str:
    """A routing key naming the request's stable prefix (system prompt and the first message's
    stable part): a hash, so nothing of the prompt itself is sent twice."""
    stable, _ = request.split_first_message()
    return "medeval-" + sha256_text(f"{request.system}\x1e{stable}")[:24]


def _provider_message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    return error.message


def create(model: str) -> ModelAPI:
    return OpenAIAdapter(model)


def create_compatible(model: str) -> ModelAPI:
    return OpenAICompatibleAdapter(model)
