"""Collects the judge roles' requests per model spec and sends them as provider batches.

A request joins its spec's queue under a custom id derived from its cache key (so a resumed run
recognises it). The queue is sent as one batch when it holds `max_items` requests, or when no new
request has joined it for `idle_seconds`. Each batch is followed by a task that polls its status
every `poll_seconds`, then collects the results and hands each waiting request its own outcome by
custom id. Retrying a failed item (in a later batch) and recording each attempt are the
gateway's business, exactly as for a direct call; this module only moves requests and outcomes.

Every wait goes through the injected sleeper, so tests never sleep."""

from __future__ import annotations

import asyncio
import random
import time
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from medeval.adapters.base import ChatRequest, ModelAPI, ProviderError
from medeval.adapters.batch import TERMINAL_STATES, BatchAPI, BatchItem, BatchOutcome, BatchStatus
from medeval.adapters.retry import RetryPolicy, Sleeper
from medeval.calls.batching.settings import BatchSettings
from medeval.calls.batching.slots import slot_released
from medeval.records import batch_events as events
from medeval.records.batch_events import InflightBatch
from medeval.records.hashing import derive_seed

#: Roles whose requests go through a batch: the judges and their invalid-output retries. Target
#: turns and the questioner stay direct (each depends on the reply before it).
BATCH_ROLES = frozenset({"extractor", "verifier", "adjudicator"})

EventSink = Callable[[dict[str, Any]], object]
T = TypeVar("T")


class BatchFallbackWarning(UserWarning):
    """--batch asked for a model whose provider has no batch API: its judge calls go direct."""


class BatchResubmitWarning(UserWarning):
    """A resumed run sends again requests whose submission a kill interrupted."""


@dataclass
class Delivered:
    """What a waiting request gets: its outcome, the batch it came from, and how long it waited."""

    outcome: BatchOutcome
    batch_id: str | None
    waited_ms: float


@dataclass
class _Queue:
    items: dict[str, ChatRequest] = field(default_factory=dict)
    arrivals: int = 0
    timer: asyncio.Task[None] | None = None


class Batcher:
    def __init__(
        self,
        settings: BatchSettings,
        emit: EventSink,
        *,
        sleep: Sleeper,
        retry: RetryPolicy,
        seed: int = 0,
    ) -> None:
        self.settings = settings
        self._emit = emit
        self._sleep = sleep
        self._retry = retry
        self._seed = seed
        self._queues: dict[str, _Queue] = {}
        self._apis: dict[str, BatchAPI] = {}
        #: custom id -> futures of the requests waiting for it (one per caller).
        self._waiting: dict[str, list[asyncio.Future[Delivered]]] = {}
        #: custom id -> batch id ("" while being submitted), for requests sent and not collected.
        self._inflight: dict[str, str] = {}
        #: Outcomes collected from a re-attached batch before anyone asked for them again.
        self._ready: dict[str, Delivered] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._warned: set[str] = set()
        #: spec -> custom ids an interrupted submission may have left at the provider (--resume).
        self._unanswered: dict[str, set[str]] = {}
        #: Batches this session submitted (tests and the summary count them).
        self.submitted: list[str] = []

    # -- which specs batch --

    def api_for(self, spec: str, adapter: ModelAPI) -> BatchAPI | None:
        """The adapter's batch API, or None (with one warning per spec) when it has none."""
        if isinstance(adapter, BatchAPI):
            self._apis[spec] = adapter
            return adapter
        if spec not in self._warned:
            self._warned.add(spec)
            warnings.warn(
                f"--batch: {spec} has no batch API in medeval; its judge calls go direct, at full price",
                BatchFallbackWarning,
                stacklevel=2,
            )
        return None

    # -- the caller's side --

    async def request(self, spec: str, api: BatchAPI, custom_id: str, request: ChatRequest) -> Delivered:
        """Wait for this request's outcome from a batch; the trial's slot is free meanwhile."""
        self._apis[spec] = api
        ready = self._ready.pop(custom_id, None)
        if ready is not None:
            return ready
        future: asyncio.Future[Delivered] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(custom_id, []).append(future)
        queue = self._queues.setdefault(spec, _Queue())
        if custom_id not in self._inflight and custom_id not in queue.items:
            queue.items[custom_id] = request
            queue.arrivals += 1
            if len(queue.items) >= self.settings.max_items:
                self._flush(spec)
            elif queue.timer is None:
                queue.timer = self._spawn(self._idle_flush(spec))
        async with slot_released():
            return await future

    def warn_unanswered(self, unanswered: dict[str, list[str]]) -> None:
        """`--resume` after a kill mid-submission: remember which requests may already be at the
        provider. The warning comes when one of them is actually sent again, with the exact count
        sent (a request whose trial is already written, or that two interrupted submissions
        shared, is never counted)."""
        for spec, ids in unanswered.items():
            self._unanswered.setdefault(spec, set()).update(ids)

    def _warn_resent(self, spec: str, ids: list[str]) -> None:
        pending = self._unanswered.get(spec)
        if not pending:
            return
        again = pending.intersection(ids)
        if not again:
            return
        pending.difference_update(again)
        warnings.warn(
            f"{len(again)} judge request(s) were being submitted to {spec}'s batch API when the run "
            "stopped, and no answer was recorded; they are sent again now, and if the provider had "
            f"already accepted them these {len(again)} are paid twice (check its batch list; the "
            "custom ids are in calls.jsonl's batch_submitting line)",
            BatchResubmitWarning,
            stacklevel=2,
        )

    def attach(self, batches: list[InflightBatch], adapter: Callable[[str], ModelAPI]) -> None:
        """`--resume`: follow the batches a killed session left in flight; a request whose custom
        id is in one waits for it instead of being submitted again."""
        for batch in batches:
            api = self.api_for(batch.spec, adapter(batch.spec))
            if api is None:
                continue
            for custom_id in batch.custom_ids:
                self._inflight[custom_id] = batch.batch_id
            self._spawn(self._guarded(batch.spec, batch.custom_ids, self._follow(batch.spec, api, batch)))

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    # -- sending --

    def _spawn(self, work: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _idle_flush(self, spec: str) -> None:
        queue = self._queues[spec]
        while True:
            seen = queue.arrivals
            await asyncio.sleep(0)  # let requests that are ready now join first
            await self._sleep(self.settings.idle_seconds)
            if queue.arrivals == seen:
                break
        queue.timer = None
        if queue.items:
            self._flush(spec)

    def _flush(self, spec: str) -> None:
        queue = self._queues[spec]
        items = [BatchItem(custom_id=c, request=r) for c, r in queue.items.items()]
        queue.items = {}
        if queue.timer is not None and queue.timer is not asyncio.current_task():
            queue.timer.cancel()
        queue.timer = None
        for item in items:
            self._inflight[item.custom_id] = ""
        ids = tuple(i.custom_id for i in items)
        self._spawn(self._guarded(spec, ids, self._send(spec, self._apis[spec], items)))

    async def _guarded(self, spec: str, custom_ids: tuple[str, ...], work: Any) -> None:
        """No waiting request may hang: whatever goes wrong in the engine fails the batch's items."""
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception as error:
            failure = ProviderError(f"{spec}: batch engine: {type(error).__name__}: {error}", retryable=False)
            for custom_id in custom_ids:
                if custom_id in self._inflight:
                    self._deliver(
                        custom_id, BatchOutcome(custom_id, error=failure), None, time.perf_counter()
                    )

    async def _send(self, spec: str, api: BatchAPI, items: list[BatchItem]) -> None:
        started = time.perf_counter()
        ids = [i.custom_id for i in items]
        batch_id = await self._submit(spec, api, items)
        if batch_id is None:
            return
        for custom_id in ids:
            self._inflight[custom_id] = batch_id
        await self._follow(
            spec, api, InflightBatch(batch_id=batch_id, spec=spec, custom_ids=tuple(ids)), started
        )

    async def _submit(self, spec: str, api: BatchAPI, items: list[BatchItem]) -> str | None:
        ids = [i.custom_id for i in items]
        rng = random.Random(derive_seed(self._seed, spec, ids[0]))
        self._warn_resent(spec, ids)
        attempt = 0
        while True:
            attempt += 1
            # Written first: a kill while the provider takes the batch leaves this line without
            # its answer, and the resumed run says those requests may already be at the provider.
            self._event(events.SUBMITTING, spec, custom_ids=ids, attempt=attempt)
            try:
                batch_id = await api.batch_submit(items)
            except ProviderError as error:
                retrying = self._retry.should_retry(attempt, error)
                self._event(
                    events.SUBMIT_FAILED,
                    spec,
                    custom_ids=ids,
                    attempt=attempt,
                    problem=str(error),
                    retrying=retrying,
                )
                if retrying:
                    await self._sleep(self._retry.delay(attempt, error, rng))
                    continue
                for custom_id in ids:
                    self._deliver(custom_id, BatchOutcome(custom_id, error=error), None, time.perf_counter())
                return None
            self.submitted.append(batch_id)
            self._event(events.SUBMITTED, spec, batch_id=batch_id, custom_ids=ids, items=len(ids))
            return batch_id

    async def _follow(
        self, spec: str, api: BatchAPI, batch: InflightBatch, started: float | None = None
    ) -> None:
        """Poll the batch until it is terminal, then collect and deliver its results."""
        started = time.perf_counter() if started is None else started
        status = await self._poll(spec, api, batch)
        if status is None:
            return
        outcomes = await self._read(spec, batch, lambda: api.batch_results(batch.batch_id))
        if outcomes is None:
            return
        wanted = set(batch.custom_ids)
        by_id = {o.custom_id: o for o in outcomes if o.custom_id in wanted}
        succeeded = sum(o.response is not None for o in by_id.values())
        self._event(
            events.COLLECTED,
            spec,
            batch_id=batch.batch_id,
            state=status.state,
            succeeded=succeeded,
            failed=len(by_id) - succeeded,
            missing=len(wanted) - len(by_id),
        )
        for custom_id in batch.custom_ids:
            outcome = by_id.get(custom_id) or BatchOutcome(
                custom_id,
                error=ProviderError(
                    f"{spec}: batch {batch.batch_id} ended {status.provider_state} without a result "
                    "for this request",
                    retryable=True,
                    status="batch_missing",
                ),
            )
            self._deliver(custom_id, outcome, batch.batch_id, started)

    async def _poll(self, spec: str, api: BatchAPI, batch: InflightBatch) -> BatchStatus | None:
        last: tuple[str, str] | None = None
        while True:
            status = await self._read(spec, batch, lambda: api.batch_status(batch.batch_id))
            if status is None:
                return None
            if (status.state, status.provider_state) != last:
                last = (status.state, status.provider_state)
                self._event(
                    events.STATUS,
                    spec,
                    batch_id=batch.batch_id,
                    state=status.state,
                    provider_state=status.provider_state,
                    counts={"total": status.total, "succeeded": status.succeeded, "failed": status.failed},
                )
            if status.state in TERMINAL_STATES:
                return status
            await asyncio.sleep(0)  # a sleeper that does not wait still lets the run move on
            await self._sleep(self.settings.poll_seconds)

    async def _read(self, spec: str, batch: InflightBatch, call: Callable[[], Awaitable[T]]) -> T | None:
        """A status or results read, retried by the retry policy. When it finally fails, the
        batch's requests fail without being sent again (the batch may still finish; a resumed run
        re-attaches to it)."""
        rng = random.Random(derive_seed(self._seed, spec, batch.batch_id))
        attempt = 0
        while True:
            attempt += 1
            try:
                return await call()
            except ProviderError as error:
                if self._retry.should_retry(attempt, error):
                    await self._sleep(self._retry.delay(attempt, error, rng))
                    continue
                self._event(events.ABANDONED, spec, batch_id=batch.batch_id, problem=str(error))
                # A batch the provider does not know (404: deleted, past its retention, or the
                # fake's in a new process) holds nothing to wait for: its requests go again.
                gone = error.status in (404, "NOT_FOUND")  # HTTP, or gRPC (xAI)
                failure = ProviderError(
                    f"{spec}: batch {batch.batch_id} could not be read: {error}",
                    retryable=gone,
                    status="batch_gone" if gone else error.status,
                )
                for custom_id in batch.custom_ids:
                    self._deliver(
                        custom_id, BatchOutcome(custom_id, error=failure), batch.batch_id, time.perf_counter()
                    )
                return None

    # -- delivering --

    def _deliver(self, custom_id: str, outcome: BatchOutcome, batch_id: str | None, started: float) -> None:
        self._inflight.pop(custom_id, None)
        delivered = Delivered(outcome, batch_id, (time.perf_counter() - started) * 1000)
        futures = [f for f in self._waiting.pop(custom_id, []) if not f.done()]
        if not futures:
            self._ready[custom_id] = delivered  # a re-attached batch's result, asked for later
            return
        for future in futures:
            future.set_result(delivered)

    def _event(self, event: str, spec: str, **fields: Any) -> None:
        self._emit({"event": event, "spec": spec, **fields})
