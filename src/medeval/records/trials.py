"""Reading trial records as results.jsonl holds them: which record of a trial counts, and which trials
failed. Append-only means a retried trial leaves its failed record on file; every reader must agree on
the one that counts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def target_failed(record: dict[str, Any]) -> bool:
    """A trial that could not be completed: its target failed, or the trial never ran to the end.
    `medeval run --resume RUN --retry-failed` runs exactly these again."""
    flags = record.get("flags") or {}
    return bool(flags.get("target_error")) or any(
        isinstance(u, dict) and u.get("item") == "trial" for u in record.get("unscored") or []
    )


def latest_trials(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per trial key, the last one written: a retried trial supersedes its failed record
    (results.jsonl is append-only, so the failed one stays on file)."""
    latest: dict[str, dict[str, Any]] = {}
    for record in records:
        latest[str(record.get("trial_key"))] = record
    return list(latest.values())
