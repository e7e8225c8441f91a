"""The OpenAI Batch API for `openai:` and `openai-compatible:` judges: the requests go up as one
JSONL file (purpose "batch"), each line's body built exactly like the direct call's, to the
endpoint the family uses (/v1/chat/completions or /v1/responses); the results come back as the
batch's output file (successes) and error file (failed or expired items), matched by custom id.

An openai-compatible server without the batch endpoints answers 404: the submission fails with a
message that says so, and the judge calls it held are not scored (run without --batch there)."""

from __future__ import annotations

import json
from typing import Any, Protocol

import openai
from openai import AsyncOpenAI

from medeval.adapters.base import ChatRequest, ChatResponse, ProviderError
from medeval.adapters.batch import BatchItem, BatchOutcome, BatchState, BatchStatus
from medeval.adapters.catalog import Family, filter_sampling
from medeval.adapters.openai_replies import from_chat, from_response
from medeval.adapters.retry import connection_error, http_error, malformed_error, timeout_error


class BatchHost(Protocol):
    """What the batch calls use of the OpenAI adapter (openai_api.OpenAIAdapter), named here so the
    two modules do not import each other."""

    @property
    def spec(self) -> str: ...

    wire_model: str
    timeout: float
    family: Family
    _client: AsyncOpenAI
    _batch_sampling: dict[str, tuple[dict[str, Any], dict[str, Any]]]

    def _chat_body(self, request: ChatRequest, sent: dict[str, Any]) -> dict[str, Any]: ...

    def _responses_body(self, request: ChatRequest, sent: dict[str, Any]) -> dict[str, Any]: ...


#: OpenAI's batch states -> the contract's.
STATES: dict[str, BatchState] = {
    "validating": "in_progress",
    "in_progress": "in_progress",
    "finalizing": "in_progress",
    "cancelling": "in_progress",
    "completed": "ended",
    "failed": "failed",
    "expired": "expired",
    "cancelled": "cancelled",
}
#: Per-item error codes worth a place in a later batch (the item itself was fine).
RETRYABLE_ITEM_CODES = frozenset({"batch_expired", "batch_cancelled", "server_error", "rate_limit_exceeded"})


def _endpoint(adapter: BatchHost) -> str:
    return "/v1/responses" if adapter.family.api == "responses" else "/v1/chat/completions"


async def submit(adapter: BatchHost, items: list[BatchItem]) -> str:
    endpoint = _endpoint(adapter)
    lines = []
    for item in items:
        sent, dropped = filter_sampling(item.request, adapter.family)
        adapter._batch_sampling[item.custom_id] = (sent, dropped)
        body = (
            adapter._responses_body(item.request, sent)
            if adapter.family.api == "responses"
            else adapter._chat_body(item.request, sent)
        )
        lines.append(
            json.dumps({"custom_id": item.custom_id, "method": "POST", "url": endpoint, "body": body})
        )
    data = ("\n".join(lines) + "\n").encode("utf-8")
    try:
        upload = await adapter._client.files.create(
            file=("medeval-batch.jsonl", data, "application/jsonl"), purpose="batch"
        )
        batch = await adapter._client.batches.create(
            input_file_id=upload.id,
            endpoint=endpoint,  # type: ignore[arg-type]
            completion_window="24h",
        )
    except openai.APIError as error:
        raise _mapped(adapter, error, "submitting a batch") from error
    return batch.id


async def status(adapter: BatchHost, batch_id: str) -> BatchStatus:
    try:
        batch = await adapter._client.batches.retrieve(batch_id)
    except openai.APIError as error:
        raise _mapped(adapter, error, f"reading batch {batch_id}") from error
    counts = batch.request_counts
    return BatchStatus(
        batch_id=batch.id,
        state=STATES.get(batch.status, "in_progress"),
        provider_state=batch.status,
        total=counts.total if counts else None,
        succeeded=counts.completed if counts else None,
        failed=counts.failed if counts else None,
    )


async def results(adapter: BatchHost, batch_id: str) -> list[BatchOutcome]:
    try:
        batch = await adapter._client.batches.retrieve(batch_id)
        texts = [
            (await adapter._client.files.content(file_id)).text
            for file_id in (batch.output_file_id, batch.error_file_id)
            if file_id
        ]
        if any(i not in adapter._batch_sampling for i in _ids(texts)):
            # A resumed run: what was sent is in the batch's own input file.
            _learn_sampling(adapter, (await adapter._client.files.content(batch.input_file_id)).text)
    except openai.APIError as error:
        raise _mapped(adapter, error, f"reading batch {batch_id}'s results") from error
    outcomes = []
    for text in texts:
        for line in text.splitlines():
            if line.strip():
                outcomes.append(_outcome(adapter, json.loads(line)))
    return outcomes


def _learn_sampling(adapter: BatchHost, input_text: str) -> None:
    knobs = {
        "temperature": "temperature",
        "top_p": "top_p",
        "seed": "seed",
        "max_tokens": "max_output_tokens",
        "max_completion_tokens": "max_output_tokens",
        "max_output_tokens": "max_output_tokens",
    }
    for line in input_text.splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        body = entry.get("body") or {}
        sent = {ours: body[theirs] for theirs, ours in knobs.items() if theirs in body}
        effort = body.get("reasoning_effort") or (body.get("reasoning") or {}).get("effort")
        if effort:
            sent["reasoning_effort"] = effort
        adapter._batch_sampling.setdefault(str(entry.get("custom_id")), (sent, {}))


def _outcome(adapter: BatchHost, line: dict[str, Any]) -> BatchOutcome:
    custom_id = str(line.get("custom_id"))
    response = line.get("response") or {}
    error = line.get("error") or {}
    request_id = response.get("request_id")
    body = response.get("body")
    status = response.get("status_code")
    if error or status is None:
        code = str(error.get("code") or "batch_item_failed")
        failure = ProviderError(
            f"{adapter.spec} batch item {code}: {error.get('message') or 'no result'}",
            retryable=code in RETRYABLE_ITEM_CODES,
            status=code,
            request_id=request_id,
        )
        return BatchOutcome(custom_id, error=failure)
    if status != 200:
        message = ((body or {}).get("error") or {}).get("message") if isinstance(body, dict) else None
        return BatchOutcome(
            custom_id, error=http_error(adapter.spec, int(status), str(message or body), {}, request_id)
        )
    sent, dropped = adapter._batch_sampling.get(custom_id, ({}, {}))
    try:
        if not isinstance(body, dict):
            raise ValueError("the item's body is not an object")
        parsed = from_response(body) if adapter.family.api == "responses" else from_chat(body)
        chat = ChatResponse(
            requested_model=adapter.wire_model,
            request_id=request_id,
            sampling_sent=sent,
            sampling_dropped=dropped,
            raw=body,
            **parsed,
        )
    except (AttributeError, IndexError, KeyError, TypeError, ValueError) as problem:
        failure = malformed_error(adapter.spec, f"{type(problem).__name__}: {problem}", request_id)
        return BatchOutcome(custom_id, error=failure)
    return BatchOutcome(custom_id, response=chat)


def _ids(texts: list[str]) -> list[str]:
    return [
        str(json.loads(line).get("custom_id")) for text in texts for line in text.splitlines() if line.strip()
    ]


def _mapped(adapter: BatchHost, error: openai.APIError, doing: str) -> ProviderError:
    if isinstance(error, openai.APITimeoutError):
        return timeout_error(adapter.spec, f"{doing}: no response within {adapter.timeout:g} s")
    if isinstance(error, openai.APIConnectionError):
        return connection_error(adapter.spec, f"{doing}: {error}")
    if isinstance(error, openai.APIStatusError):
        message = f"{doing}: {error.message}"
        if error.status_code == 404:
            message += " (does this server offer the Batch API? if not, run without --batch)"
        return http_error(adapter.spec, error.status_code, message, error.response.headers, error.request_id)
    return ProviderError(f"{adapter.spec}: {doing}: {error}", retryable=False)
