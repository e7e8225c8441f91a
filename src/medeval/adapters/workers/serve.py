"""The call worker process: `python -m medeval.adapters.workers.serve`.

It reads requests from stdin, one line each (`id TAB spec TAB request-json`), makes each call with
its own adapter for the spec (built from the spec and the environment, as the engine builds its own),
and writes one line per call to stdout as it finishes (see `wire.py`). Calls run concurrently: the
engine's limits decide how many are in flight. It exits when stdin closes, after its last answer."""

from __future__ import annotations

import asyncio
import sys

from medeval.adapters.base import ChatRequest, ModelAPI, ProviderError
from medeval.adapters.registry import create_adapter
from medeval.adapters.workers.wire import LINE_LIMIT, crashed, failed, read_request, ready_line, succeeded


class Server:
    def __init__(self, out: asyncio.StreamWriter) -> None:
        self.out = out
        self.adapters: dict[str, ModelAPI] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    def adapter(self, spec: str) -> ModelAPI:
        if spec not in self.adapters:
            self.adapters[spec] = create_adapter(spec)
        return self.adapters[spec]

    def start(self, line: bytes) -> None:
        spec, call_id, body = read_request(line)
        if call_id is None:
            # Build the adapter now (its SDK import is the slow part) and say so.
            try:
                self.adapter(spec)
            except Exception:  # never ready for it: the engine goes on making those calls itself
                return
            self.out.write(ready_line(spec))
            return
        task = asyncio.create_task(self.call(spec, call_id, body))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def call(self, spec: str, call_id: bytes, body: bytes) -> None:
        try:
            response = await self.adapter(spec).generate(ChatRequest.model_validate_json(body))
            answer = succeeded(call_id, response)
        except ProviderError as error:
            answer = failed(call_id, error)
        except Exception as error:  # an adapter bug fails this call, as in the engine
            answer = crashed(call_id, error)
        self.out.write(answer)

    async def aclose(self) -> None:
        if self.tasks:
            await asyncio.gather(*self.tasks)
        for adapter in self.adapters.values():
            await adapter.aclose()
        await self.out.drain()


async def serve() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, sys.stdout)
    server = Server(asyncio.StreamWriter(transport, protocol, None, loop))
    while line := await reader.readline():
        server.start(line)
    await server.aclose()


if __name__ == "__main__":
    try:
        asyncio.run(serve())
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group: the engine reports it
        sys.exit(130)
