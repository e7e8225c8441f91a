"""Provider calls in worker processes. One process cannot carry the SDKs' per-call CPU and the rest
of the harness at study speed (docs/performance.md): the engine keeps the limits, retries, cache and
records, and hands the call itself to a worker, which runs the same adapter in its own event loop.

Each worker is `python -m medeval.adapters.workers.serve` on a pipe. A worker starts when the
engine first builds an adapter that may run there, and builds its own copy of that adapter (its
SDK import takes about a second); until it says it is ready, the engine makes those calls itself,
so a run never waits for a worker. A call then goes to the ready worker with the fewest calls in
flight. A worker that dies fails its calls in flight with a retryable error (the gateway's retry
policy sends them again) and loses nothing already recorded; the next call starts a new one."""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import Callable

from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI, ProviderError
from medeval.adapters.workers.wire import LINE_LIMIT, prepare_line, read_answer, read_ready, request_line

#: Worker processes started per configured worker, at most, in one run: past that, a worker that
#: keeps dying is not started again and the calls are made in this process.
MAX_STARTS = 3


class _Worker:
    def __init__(self, process: asyncio.subprocess.Process, on_ready: Callable[[str], None]) -> None:
        self.process = process
        self.on_ready = on_ready
        self.ready: set[str] = set()
        self.asked: set[str] = set()
        self.pending: dict[int, asyncio.Future[ChatResponse]] = {}
        self.reading = asyncio.create_task(self._read())

    @property
    def alive(self) -> bool:
        return not self.reading.done()

    def _write(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line)

    def prepare(self, spec: str) -> None:
        if spec not in self.asked:
            self.asked.add(spec)
            self._write(prepare_line(spec))

    def send(self, call_id: int, spec: str, request_json: str) -> asyncio.Future[ChatResponse]:
        future: asyncio.Future[ChatResponse] = asyncio.get_running_loop().create_future()
        self.pending[call_id] = future
        self._write(request_line(call_id, spec, request_json))
        return future

    async def _read(self) -> None:
        assert self.process.stdout is not None
        try:
            while line := await self.process.stdout.readline():
                spec = read_ready(line)
                if spec is not None:
                    self.ready.add(spec)
                    self.on_ready(spec)
                    continue
                call_id, answer = read_answer(line)
                future = self.pending.pop(call_id, None)
                if future is None or future.done():
                    continue
                if isinstance(answer, Exception):
                    future.set_exception(answer)
                else:
                    future.set_result(answer)
        except Exception:  # a line that does not read: this worker is not trusted with more calls
            self.process.kill()
        finally:
            code = await self.process.wait()
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(
                        ProviderError(
                            f"the call worker exited (code {code}) before this call's answer",
                            retryable=True,
                            status="worker",
                        )
                    )
            self.pending.clear()

    async def aclose(self) -> None:
        if self.process.stdin is not None and not self.process.stdin.is_closing():
            self.process.stdin.close()
        if not self.ready and not self.pending and self.process.returncode is None:
            self.process.kill()  # still importing its SDK: nothing of it to wait for
        await self.reading


class CallWorkers:
    """Up to `count` worker processes for the specs prepared on them."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._workers: list[_Worker] = []
        self._specs: list[str] = []
        self._ids = itertools.count(1)
        self._starting: asyncio.Task[None] | None = None
        self._ready: dict[str, asyncio.Event] = {}
        self._starts = 0

    def _now_ready(self, spec: str) -> None:
        self._ready.setdefault(spec, asyncio.Event()).set()

    async def started(self, spec: str) -> None:
        """Wait until a worker is ready for `spec` (tests and benchmarks; runs never wait)."""
        self.prepare(spec)
        await self._ready.setdefault(spec, asyncio.Event()).wait()

    def prepare(self, spec: str) -> None:
        """Have every worker build its adapter for `spec`, starting the workers if need be. Needs a
        running event loop; without one, the first call prepares it."""
        if spec not in self._specs:
            self._specs.append(spec)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        self._workers = [w for w in self._workers if w.alive]
        for worker in self._workers:
            worker.prepare(spec)
        if (
            len(self._workers) < self.count
            and self._starts < MAX_STARTS * self.count
            and (self._starting is None or self._starting.done())
        ):
            self._starting = asyncio.create_task(self._start())

    async def _start(self) -> None:
        while len(self._workers) < self.count:
            self._starts += 1
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "medeval.adapters.workers.serve",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                limit=LINE_LIMIT,
            )
            worker = _Worker(process, self._now_ready)
            for spec in self._specs:
                worker.prepare(spec)
            self._workers.append(worker)

    async def generate(self, spec: str, request: ChatRequest, local: ModelAPI) -> ChatResponse:
        """The call through the least busy worker ready for `spec`; through `local`, in this
        process, while none is."""
        ready = [w for w in self._workers if spec in w.ready and w.alive]
        if not ready:
            self.prepare(spec)
            return await local.generate(request)
        worker = min(ready, key=lambda w: len(w.pending))
        return await worker.send(next(self._ids), spec, request.model_dump_json())

    async def aclose(self) -> None:
        if self._starting is not None:
            await self._starting
        await asyncio.gather(*(w.aclose() for w in self._workers))
        self._workers = []
