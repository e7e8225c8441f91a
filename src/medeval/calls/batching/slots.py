"""A trial's concurrency slot that it gives up while it waits on a batch.

Without this a trial waiting hours for its verifier batch would hold one of the `--max-concurrency`
slots, and each batch could hold only that many trials' requests. Released while any of the
trial's requests waits on a batch, and taken again (waiting like any new trial) once none does."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar, Token
from types import TracebackType

_CURRENT: ContextVar[TrialSlot | None] = ContextVar("medeval_trial_slot", default=None)


class TrialSlot:
    def __init__(self, semaphore: asyncio.Semaphore) -> None:
        self._semaphore = semaphore
        self._held = False
        self._waiting = 0
        self._lock = asyncio.Lock()
        self._token: Token[TrialSlot | None] | None = None

    async def __aenter__(self) -> TrialSlot:
        await self._semaphore.acquire()
        self._held = True
        self._token = _CURRENT.set(self)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._token is not None:
            _CURRENT.reset(self._token)
        if self._held:  # not held when cancelled while taking it back
            self._held = False
            self._semaphore.release()

    @asynccontextmanager
    async def released(self) -> AsyncIterator[None]:
        self._waiting += 1
        if self._held:
            self._held = False
            self._semaphore.release()
        try:
            yield
        finally:
            self._waiting -= 1
            if self._waiting == 0 and not self._held:
                # The lock keeps two requests of one trial (two verifiers) from taking two slots.
                async with self._lock:
                    if self._waiting == 0 and not self._held:
                        await self._semaphore.acquire()
                        self._held = True


@asynccontextmanager
async def slot_released() -> AsyncIterator[None]:
    """Give up the current trial's slot (if the caller runs inside one) for the duration."""
    slot = _CURRENT.get()
    if slot is None:
        yield
        return
    async with slot.released():
        yield
