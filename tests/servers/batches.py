"""The provider-neutral half of the loopback batch servers: a book of batches with a lifecycle the
test controls. Each provider's fake (anthropic_server, gemini_server, xai_grpc) speaks its own wire
format on top of it and answers each item with the same code that answers a direct call, so a
batch item's reply equals the direct reply.

Lifecycle: a batch is `in_progress` from creation until it is released (at once when `hold` is
off, which is the default), then `ended` with one outcome per item. Tests can script item outcomes
(`script`: an error status, `expired`, `canceled`, or `missing` from the results), expire or cancel
a batch (items not yet answered get that outcome), fail a batch as a whole, and count creations
(a resumed run must not submit a finished batch twice).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

BookState = Literal["in_progress", "ended", "expired", "cancelled", "failed"]
OutcomeKind = Literal["succeeded", "errored", "expired", "canceled", "missing"]


@dataclass(frozen=True)
class ItemScript:
    """How one item ends: `errored` with an HTTP status, or not answered at all."""

    kind: OutcomeKind = "errored"
    status: int = 500
    message: str = "injected item error"

    @classmethod
    def error(cls, status: int, message: str = "injected item error") -> ItemScript:
        return cls("errored", status, message)


@dataclass
class ItemOutcome:
    kind: OutcomeKind
    #: The provider's reply body for `succeeded`; (status, message) for `errored`.
    body: Any = None
    status: int = 0
    message: str = ""


@dataclass
class Batch:
    batch_id: str
    model: str
    #: (custom id, the provider-specific request as received), in submission order.
    items: list[tuple[str, Any]]
    state: BookState = "in_progress"
    outcomes: dict[str, ItemOutcome] = field(default_factory=dict)
    released: bool = False
    polls: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


#: Answers one item: (custom id, request) -> (HTTP status, reply body) as a direct call would.
Answer = Callable[[str, Any], Awaitable[tuple[int, Any]]]


class BatchBook:
    def __init__(self, *, hold: bool = False, reverse_results: bool = True) -> None:
        self.hold = hold
        #: Results come back in the reverse of submission order, so matching by position fails.
        self.reverse_results = reverse_results
        self.batches: dict[str, Batch] = {}
        self.creations = 0
        self.fail_creation: deque[tuple[int, str]] = deque()
        self._by_id: dict[str, ItemScript] = {}
        self._next: deque[ItemScript | None] = deque()
        self._lock = threading.Lock()
        #: Set at the first status read of any batch (a test can kill a run there).
        self.polled = threading.Event()

    # -- test controls --

    def script(self, custom_id: str, outcome: ItemScript) -> None:
        """The item with this custom id (in any batch) ends this way."""
        with self._lock:
            self._by_id[custom_id] = outcome

    def script_next(self, *outcomes: ItemScript | None) -> None:
        """The next items answered, in submission order, end these ways (None = normally)."""
        with self._lock:
            self._next.extend(outcomes)

    def refuse_next_creation(self, status: int, message: str = "injected batch refusal") -> None:
        with self._lock:
            self.fail_creation.append((status, message))

    def release(self, batch_id: str | None = None) -> None:
        """Let a held batch (or all of them) finish at its next status read."""
        with self._lock:
            for batch in self.batches.values():
                if batch_id is None or batch.batch_id == batch_id:
                    batch.released = True

    def end_as(self, batch_id: str, state: Literal["expired", "cancelled", "failed"]) -> None:
        """End a batch early: its items get no answer (`expired`/`canceled`), or nothing at all."""
        with self._lock:
            batch = self.batches[batch_id]
            batch.state = state
            if state != "failed":
                kind: OutcomeKind = "expired" if state == "expired" else "canceled"
                for custom_id, _ in batch.items:
                    batch.outcomes.setdefault(custom_id, ItemOutcome(kind))

    @property
    def only(self) -> Batch:
        (batch,) = self.batches.values()
        return batch

    # -- used by the provider fakes --

    def create(self, model: str, items: list[tuple[str, Any]], prefix: str) -> Batch | tuple[int, str]:
        """A new batch, or the (status, message) of a scripted refusal."""
        with self._lock:
            if self.fail_creation:
                return self.fail_creation.popleft()
            self.creations += 1
            batch = Batch(f"{prefix}{self.creations:04d}", model, items, released=not self.hold)
            self.batches[batch.batch_id] = batch
            return batch

    async def advance(self, batch: Batch, answer: Answer) -> Batch:
        """Called on every status read: a released batch in progress is answered and ends."""
        self.polled.set()
        with self._lock:
            batch.polls += 1
            due = batch.state == "in_progress" and batch.released
            if due:
                scripts = [self._script_for(custom_id) for custom_id, _ in batch.items]
        if not due:
            return batch
        outcomes: dict[str, ItemOutcome] = {}
        for (custom_id, request), scripted in zip(batch.items, scripts, strict=True):
            if scripted is not None and scripted.kind == "errored":
                outcomes[custom_id] = ItemOutcome("errored", status=scripted.status, message=scripted.message)
            elif scripted is not None:
                outcomes[custom_id] = ItemOutcome(scripted.kind)
            else:
                status, body = await answer(custom_id, request)
                if status == 200:
                    outcomes[custom_id] = ItemOutcome("succeeded", body=body)
                else:
                    outcomes[custom_id] = ItemOutcome("errored", body=body, status=status, message=str(body))
        with self._lock:
            if batch.state == "in_progress":
                batch.outcomes = outcomes
                batch.state = "ended"
        return batch

    def results(self, batch: Batch) -> list[tuple[str, ItemOutcome]]:
        """The outcomes a provider reports (scripted `missing` ones left out), in result order."""
        with self._lock:
            listed = [
                (custom_id, batch.outcomes[custom_id])
                for custom_id, _ in batch.items
                if custom_id in batch.outcomes and batch.outcomes[custom_id].kind != "missing"
            ]
        return listed[::-1] if self.reverse_results else listed

    def counts(self, batch: Batch) -> dict[str, int]:
        with self._lock:
            kinds = [o.kind for o in batch.outcomes.values()]
        return {
            "total": len(batch.items),
            "processing": len(batch.items) - len(kinds),
            **{kind: kinds.count(kind) for kind in ("succeeded", "errored", "expired", "canceled")},
        }

    def _script_for(self, custom_id: str) -> ItemScript | None:
        if custom_id in self._by_id:
            return self._by_id.pop(custom_id)
        return self._next.popleft() if self._next else None
