"""What a run appends to its directory, and the end-of-session summary of it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from medeval.calls.cost import CostTotals
from medeval.engine.progress import RunProgress
from medeval.errors import EXIT_STORAGE, UserError
from medeval.records.batch_events import COLLECTED, SUBMITTED, is_batch_event
from medeval.records.storage import RunStore, StorageError, utc_now
from medeval.schemas import TrialRecord

#: Seconds between checkpoints while trials complete (and one always at the end).
CHECKPOINT_INTERVAL = 1.0


class Writer:
    """Everything a run appends to its directory. The first failed write (a full disk) stops the
    run: no new trial starts, a trial whose calls could not all be recorded is not written, and
    what is already on disk stays valid and resumable."""

    def __init__(self, store: RunStore, progress: RunProgress, tally: Tally | None = None) -> None:
        self.store = store
        self.progress = progress
        self.failure: StorageError | None = None
        # What the summary counts, kept as records are written: a run directory already holding
        # records (a resumed run) is read once (by the caller, or here), never again at the end.
        if tally is None:
            tally = Tally.from_files(store) if _has_records(store) else Tally()
        self.tally = tally

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
        self.tally.call(record)
        if not is_batch_event(record):
            self.progress.call(record)

    def trial(self, record: TrialRecord) -> bool:
        """Append one finished trial; False when it was not written."""
        if self.failure is not None:
            return False
        try:
            self.store.append_trial(record.model_dump(mode="json"))
        except StorageError as error:
            self.failure = error
            return False
        self.tally.trial(record.status)
        try:
            self.store.write_checkpoint(min_interval=CHECKPOINT_INTERVAL)
        except StorageError as error:
            self.failure = error
            return False
        self.progress.trial(record)
        return True

    def finish(self, planned: int, outcome: str, extra: dict[str, Any] | None = None) -> None:
        try:
            self.store.write_checkpoint()
            self.store.write_summary({**self.tally.summary(self.store, planned, outcome), **(extra or {})})
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


class Tally:
    """The counts of a run's summary, one written record at a time."""

    def __init__(self) -> None:
        self.statuses: Counter[str] = Counter()
        self.calls = 0
        self.cache_hits = 0
        self.errors = 0
        self.costs = CostTotals()
        self.batch_events = Counter[str]()
        #: The batch lines themselves (a few per batch): what a resumed run re-attaches to.
        self.batch_lines: list[dict[str, Any]] = []
        self.batched_calls = 0

    @classmethod
    def from_files(cls, store: RunStore) -> Tally:
        tally = cls()
        for trial in store.trials():
            tally.trial(trial.get("status"))
        for record in store.call_records():
            tally.call(record)
        return tally

    def trial(self, status: object) -> None:
        self.statuses[str(status)] += 1

    def call(self, record: dict[str, Any]) -> None:
        if is_batch_event(record):
            self.batch_events[str(record.get("event"))] += 1
            self.batch_lines.append(record)
            return
        self.calls += 1
        self.cache_hits += record.get("cache") == "hit"
        self.errors += "error" in record
        self.batched_calls += bool(record.get("batch_id"))
        self.costs.add(record)

    def summary(self, store: RunStore, planned: int, outcome: str) -> dict[str, Any]:
        summary = {
            "run_id": store.run_id,
            "written_at": utc_now(),
            "outcome": outcome,
            "trials_planned": planned,
            "trials_written": sum(self.statuses.values()),
            "trials_by_status": dict(sorted(self.statuses.items())),
            "calls": {"records": self.calls, "cache_hits": self.cache_hits, "errors": self.errors},
            "cost": self.costs.totals(),
            "chains": {"results": store.results.head(), "calls": store.calls.head()},
        }
        if self.batch_events:
            summary["batches"] = {
                "submitted": self.batch_events[SUBMITTED],
                "collected": self.batch_events[COLLECTED],
                "batched_calls": self.batched_calls,
            }
        return summary


def run_summary(store: RunStore, planned: int, outcome: str) -> dict[str, Any]:
    """End-of-session totals, computed from the files (what the writer's tally must equal)."""
    return Tally.from_files(store).summary(store, planned, outcome)


def _has_records(store: RunStore) -> bool:
    return bool(store.results.head()["records"] or store.calls.head()["records"])
