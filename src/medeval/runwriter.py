"""What a run appends to its directory, and the end-of-session summary of it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from medeval.batching.events import COLLECTED, SUBMITTED, is_batch_event
from medeval.cost import cost_totals
from medeval.errors import EXIT_STORAGE, UserError
from medeval.progress import RunProgress
from medeval.schemas import TrialRecord
from medeval.storage import RunStore, StorageError, utc_now

#: Seconds between checkpoints while trials complete (and one always at the end).
CHECKPOINT_INTERVAL = 1.0


class Writer:
    """Everything a run appends to its directory. The first failed write (a full disk) stops the
    run: no new trial starts, a trial whose calls could not all be recorded is not written, and
    what is already on disk stays valid and resumable."""

    def __init__(self, store: RunStore, progress: RunProgress) -> None:
        self.store = store
        self.progress = progress
        self.failure: StorageError | None = None

    @property
    def run_id(self) -> str:
        return self.store.run_id

    def call(self, record: dict[str, Any]) -> None:
        if self.failure is not None:
            raise self.failure
        try:
            self.store.append_call(record)
        except StorageError as error:
            self.failure = error
            raise
        if not is_batch_event(record):
            self.progress.call(record)

    def trial(self, record: TrialRecord) -> bool:
        """Append one finished trial; False when it was not written."""
        if self.failure is not None:
            return False
        try:
            self.store.append_trial(record.model_dump(mode="json"))
            self.store.write_checkpoint(min_interval=CHECKPOINT_INTERVAL)
        except StorageError as error:
            self.failure = error
            return False
        self.progress.trial(record)
        return True

    def finish(self, planned: int, outcome: str, extra: dict[str, Any] | None = None) -> None:
        try:
            self.store.write_checkpoint()
            self.store.write_summary({**run_summary(self.store, planned, outcome), **(extra or {})})
        except StorageError as error:
            self.failure = self.failure or error


class RunStorageFailed(UserError):
    """A write to the run directory failed; what was written before it stays and can be resumed."""

    exit_code = EXIT_STORAGE

    def __init__(self, directory: Path, error: StorageError, *, written: int, resumable: bool = True) -> None:
        then = f"continue with: medeval run --resume {directory}" if resumable else "run it again"
        super().__init__(
            f"stopped: {error}; {written} trial(s) are safely written in {directory}; free some space "
            f"(or fix the folder), then {then}"
        )


def run_summary(store: RunStore, planned: int, outcome: str) -> dict[str, Any]:
    """End-of-session totals, computed from the files, so a resumed run's summary covers it all."""
    statuses = Counter(str(t.get("status")) for t in store.trials())
    calls: list[dict[str, Any]] = []
    batch_events: list[dict[str, Any]] = []
    for record in store.call_records():
        (batch_events if is_batch_event(record) else calls).append(record)
    summary = {
        "run_id": store.run_id,
        "written_at": utc_now(),
        "outcome": outcome,
        "trials_planned": planned,
        "trials_written": sum(statuses.values()),
        "trials_by_status": dict(sorted(statuses.items())),
        "calls": {
            "records": len(calls),
            "cache_hits": sum(c.get("cache") == "hit" for c in calls),
            "errors": sum("error" in c for c in calls),
        },
        "cost": cost_totals(calls),
        "chains": {"results": store.results.head(), "calls": store.calls.head()},
    }
    if batch_events:
        summary["batches"] = {
            "submitted": sum(e.get("event") == SUBMITTED for e in batch_events),
            "collected": sum(e.get("event") == COLLECTED for e in batch_events),
            "batched_calls": sum(bool(c.get("batch_id")) for c in calls),
        }
    return summary


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
