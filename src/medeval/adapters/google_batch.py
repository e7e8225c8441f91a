"""Gemini batch mode's wire format, for `GoogleAdapter`'s batch methods: the input line's request
body (built by the SDK's own converter, so it is the body a direct call sends), the job's state,
and the keyed result lines.

The SDK converters used here (`models._GenerateContentParameters_to_mldev` and
`_GenerateContentResponse_from_mldev`) are private; they are the code the SDK runs for
`generate_content`, which is exactly what an input line must equal. The adapter tests compare the
two wire bodies, so an SDK change that breaks this fails there.
"""

from __future__ import annotations

import json
from typing import Any

from google import genai
from google.genai import _common, models, types

from medeval.adapters.base import ProviderError
from medeval.adapters.batch import BatchState, BatchStatus
from medeval.adapters.retry import http_error, malformed_error

#: Job states (the SDK's spelling of the service's BATCH_STATE_*) that end a batch; the rest
#: (pending, queued, running, paused, updating, cancelling) are still in progress.
TERMINAL: dict[str, BatchState] = {
    "JOB_STATE_SUCCEEDED": "ended",
    "JOB_STATE_PARTIALLY_SUCCEEDED": "ended",
    "JOB_STATE_FAILED": "failed",
    "JOB_STATE_CANCELLED": "cancelled",
    "JOB_STATE_EXPIRED": "expired",
}

#: google.rpc.Code -> the HTTP status a direct call reports for it (the standard mapping), so a
#: batch item's error is retried by the same rules as a direct call's.
RPC_TO_HTTP = {
    2: 500,  # UNKNOWN
    3: 400,  # INVALID_ARGUMENT
    4: 504,  # DEADLINE_EXCEEDED
    5: 404,  # NOT_FOUND
    6: 409,  # ALREADY_EXISTS
    7: 403,  # PERMISSION_DENIED
    8: 429,  # RESOURCE_EXHAUSTED
    9: 400,  # FAILED_PRECONDITION
    10: 409,  # ABORTED
    11: 400,  # OUT_OF_RANGE
    12: 501,  # UNIMPLEMENTED
    13: 500,  # INTERNAL
    14: 503,  # UNAVAILABLE
    15: 500,  # DATA_LOSS
    16: 401,  # UNAUTHENTICATED
}
CANCELLED = 1


def request_body(
    client: genai.Client, model: str, contents: list[types.Content], config: types.GenerateContentConfig
) -> dict[str, Any]:
    """The generateContent body (contents, systemInstruction, generationConfig) as the SDK would
    send it for this call; the model is the batch's, in the URL, as for a direct call."""
    parameters = types._GenerateContentParameters(model=model, contents=contents, config=config)
    body = models._GenerateContentParameters_to_mldev(client._api_client, parameters)
    body.pop("config", None)
    body = _common.encode_unserializable_types(_common.convert_to_dict(body))
    return {key: value for key, value in body.items() if not key.startswith("_")}


def status(batch_id: str, job: types.BatchJob, payload: dict[str, Any]) -> BatchStatus:
    provider_state = job.state.value if job.state is not None else "JOB_STATE_UNSPECIFIED"
    stats = (payload.get("metadata") or {}).get("batchStats") or {}

    def count(name: str) -> int | None:
        value = stats.get(name)
        return int(value) if value is not None else None

    return BatchStatus(
        batch_id=batch_id,
        state=TERMINAL.get(provider_state, "in_progress"),
        provider_state=provider_state,
        total=count("requestCount"),
        succeeded=count("successfulRequestCount"),
        failed=count("failedRequestCount"),
    )


def file_entries(spec: str, data: bytes) -> list[dict[str, Any]]:
    """The results file: one `{"key", "response" | "error"}` object per line."""
    entries: list[dict[str, Any]] = []
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError as error:
            raise malformed_error(spec, f"batch results line {number}: {error}") from error
        if isinstance(entry, dict) and isinstance(entry.get("key"), str):
            entries.append(entry)
    return entries


def inline_entries(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Inline responses that carry their key in `metadata`, as keyed entries; the others are left
    out (they cannot be told apart)."""
    entries: list[dict[str, Any]] = []
    for holder in (payload.get("metadata") or {}).get("output"), payload.get("response"):
        inlined = ((holder or {}).get("inlinedResponses") or {}).get("inlinedResponses") or []
        for item in inlined:
            key = (item.get("metadata") or {}).get("key") if isinstance(item, dict) else None
            if isinstance(key, str):
                entries.append({"key": key, "response": item.get("response"), "error": item.get("error")})
        if entries:
            break
    return entries


def parse_response(payload: dict[str, Any]) -> types.GenerateContentResponse:
    """A result line's response as the SDK parses a direct call's body."""
    if not isinstance(payload, dict):
        raise TypeError("the response is not an object")
    converted = models._GenerateContentResponse_from_mldev(payload)
    return types.GenerateContentResponse._from_response(response=converted, kwargs={})


def item_error(spec: str, error: Any) -> ProviderError:
    """A failed item (a google.rpc.Status): its gRPC code read as the HTTP status a direct call
    gets, so the retry rules are the same. A cancelled item was never run: retryable."""
    error = error if isinstance(error, dict) else {}
    code = error.get("code")
    message = str(error.get("message") or "batch request failed")
    if code == CANCELLED:
        text = f"{spec}: batch request cancelled: {message}"
        return ProviderError(text, retryable=True, status="batch_canceled")
    if isinstance(code, int) and code >= 100:  # some responses carry the HTTP status itself
        return http_error(spec, code, message)
    return http_error(spec, RPC_TO_HTTP.get(code, 500) if isinstance(code, int) else 500, message)
