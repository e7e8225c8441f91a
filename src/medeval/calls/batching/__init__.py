"""Batch judging: the judge roles' requests collected per model and sent as provider batches
(see docs/architecture.md, "Batch judging"). The gateway uses `Batcher`; the orchestrator holds
each trial's slot through `TrialSlot`, so a trial waiting on a batch lets others run."""

from medeval.calls.batching.batcher import BATCH_ROLES, Batcher, Delivered
from medeval.calls.batching.settings import BatchSettings
from medeval.calls.batching.slots import TrialSlot
from medeval.records.batch_events import (
    InflightBatch,
    is_batch_event,
    unanswered_submissions,
    unfinished_batches,
)

__all__ = [
    "BATCH_ROLES",
    "BatchSettings",
    "Batcher",
    "Delivered",
    "InflightBatch",
    "TrialSlot",
    "is_batch_event",
    "unanswered_submissions",
    "unfinished_batches",
]
