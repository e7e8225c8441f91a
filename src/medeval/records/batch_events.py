"""Batch events in calls.jsonl: one line each time a batch is submitted, changes state, or has its
results collected, written as it happens (so a killed run knows what is in flight), hash-chained
with the call records. An event line has `event` and no `role`, `response` or `error`: readers of
call records skip it with `is_batch_event`.

    {"event": "batch_submitting", "spec", "custom_ids": [...], "attempt", ...}  (before the request)
    {"event": "batch_submitted", "batch_id", "spec", "custom_ids": [...], "items", ...}
    {"event": "batch_status", "batch_id", "spec", "state", "provider_state", "counts", ...}
    {"event": "batch_collected", "batch_id", "spec", "succeeded", "failed", "missing", ...}
    {"event": "batch_submit_failed", "spec", "custom_ids", "problem", ...}
    {"event": "batch_abandoned", "batch_id", "spec", "problem", ...}  (status unreadable; resumable)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict

SUBMITTING = "batch_submitting"
SUBMITTED = "batch_submitted"
STATUS = "batch_status"
COLLECTED = "batch_collected"
SUBMIT_FAILED = "batch_submit_failed"
ABANDONED = "batch_abandoned"


def is_batch_event(record: dict[str, Any]) -> bool:
    return "event" in record and str(record["event"]).startswith("batch_")


class InflightBatch(BaseModel):
    """A batch a run submitted and never collected: `--resume` waits for it instead of paying again."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    batch_id: str
    spec: str
    custom_ids: tuple[str, ...]


def unfinished_batches(records: Iterable[dict[str, Any]]) -> list[InflightBatch]:
    """Batches with a `batch_submitted` line and no `batch_collected` line, in submission order."""
    submitted: dict[str, InflightBatch] = {}
    for record in records:
        event = record.get("event")
        if event == SUBMITTED and record.get("batch_id"):
            submitted[str(record["batch_id"])] = InflightBatch(
                batch_id=str(record["batch_id"]),
                spec=str(record.get("spec")),
                custom_ids=tuple(str(c) for c in record.get("custom_ids") or []),
            )
        elif event == COLLECTED:
            submitted.pop(str(record.get("batch_id")), None)
    return list(submitted.values())


def unanswered_submissions(records: Iterable[dict[str, Any]]) -> dict[str, list[str]]:
    """Spec -> custom ids whose submission was written as begun and never as accepted or failed:
    the run stopped while the provider was taking them, so a batch of them may exist that the run
    never heard of. They are sent again; this says which, so nobody pays twice unawares."""
    begun: dict[tuple[str, tuple[str, ...]], None] = {}
    for record in records:
        event = record.get("event")
        key = (str(record.get("spec")), tuple(str(c) for c in record.get("custom_ids") or []))
        if event == SUBMITTING:
            begun[key] = None
        elif event in (SUBMITTED, SUBMIT_FAILED):
            begun.pop(key, None)
    out: dict[str, list[str]] = {}
    for spec, ids in begun:
        out.setdefault(spec, []).extend(ids)
    return out
