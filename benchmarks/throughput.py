"""Run-engine throughput against the loopback fake provider (a benchmark that prints figures; not a
test).

    .venv/bin/python benchmarks/throughput.py --trials 256 --latency 0.05 --concurrency 64

It runs N trials of one scenario (N epochs) against `openai-compatible:` on a loopback server with
a fixed latency per call, through the real openai SDK and the whole harness (gateway, limits,
hash-chained calls.jsonl and results.jsonl, checkpoints), with the cache off. The server runs in its
own process by default, so it does not compete with the harness for the GIL. It prints:

- ideal time: calls x latency / concurrency (every slot busy all the time, zero overhead);
- actual time and the ratio ideal / actual (1.0 is perfect);
- harness overhead per trial: a second run at zero latency, wall time / trials;
- harness CPU per trial: this process's CPU time (process_time) during the timed run / trials. It
  counts only the harness (the server has its own process), and it moves less than wall time when
  other work shares the machine;
- peak memory of this process (ru_maxrss).

`--client bare` (or `all`) adds a reference row: the same calls, in trials of the same shape (each
trial's turns one after another, `concurrency` trials at once), made through the adapter and SDK
alone with no harness. It is the ceiling of this machine and SDK: the harness can only lose to it.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import itertools
import os
import pstats
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from medeval.adapters.base import ChatRequest, ChatResponse, Message, ModelAPI, Usage
from medeval.adapters.openai_api import create_compatible  # imported here: no run times the SDK's import
from medeval.adapters.registry import register_provider
from medeval.calls.cache import CacheMode
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import build_gateway, execute
from medeval.records.storage import CALLS, read_jsonl
from medeval.scenarios.load import load_scenario
from medeval.testing.loopback import TARGET_ANSWER, Prompt, default_responder

REPO = Path(__file__).resolve().parent.parent
SCENARIO = REPO / "src" / "medeval" / "scenarios" / "v1" / "employer_coverage_followup.json"
TARGET = "openai-compatible:bench-target"
SLEEPING_TARGET = "sleep:bench-target"
SERVER = """
import itertools, sys
from medeval.testing.loopback import LoopbackServer
sys.path.insert(0, sys.argv[2])
from throughput import target_or_judge
counter = itertools.count()
async def responder(prompt):
    return await target_or_judge(prompt, counter)
latency, jitter = float(sys.argv[1]), float(sys.argv[3])
with LoopbackServer(latency=latency, jitter=jitter, record_bodies=False, responder=responder) as server:
    print(server.base_url, flush=True)
    sys.stdin.read()  # serve until the benchmark closes our stdin
"""
_LETTERS = "bdfgklmnprstvz"
_VOWELS = "aeiou"


def distinct_answer(n: int) -> str:
    """The loopback's Medicare answer with a closing pleasantry that names a made-up caller, unique
    per call: no two answers of a run are the same text, as in a real study, so nothing the harness
    keeps per answer (the rules coder's sentence split, say) is reused across calls. The pleasantry
    is filler to the rules coder and changes no code."""
    name = ""
    n += 1
    while n:
        n, rest = divmod(n, len(_LETTERS) * len(_VOWELS))
        name += _LETTERS[rest // len(_VOWELS)] + _VOWELS[rest % len(_VOWELS)]
    return f"{TARGET_ANSWER} Hope this helps, {name.capitalize()}!"


async def target_or_judge(prompt: Prompt, counter: Iterator[int]) -> str:
    """A distinct answer for the target; schema-valid JSON for a model judge (`--judge
    openai-compatible:...`), as the loopback's own responder gives."""
    if prompt.json_schema is not None:
        return await default_responder(prompt)
    return distinct_answer(next(counter))


@contextmanager
def loopback(latency: float, in_process: bool, jitter: float = 0.0) -> Iterator[str]:
    if in_process:
        from medeval.testing.loopback import LoopbackServer

        counter = itertools.count()

        async def responder(prompt: Prompt) -> str:
            return await target_or_judge(prompt, counter)

        with LoopbackServer(
            latency=latency, jitter=jitter, record_bodies=False, responder=responder
        ) as server:
            yield server.base_url
        return
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(latency), str(Path(__file__).parent), str(jitter)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip()
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=10)


class SleepingTarget(ModelAPI):
    """No HTTP and no SDK: waits `latency` and answers. Isolates the harness's own cost."""

    provider = "sleep"

    def __init__(self, model: str, latency: float = 0.0, jitter: float = 0.0) -> None:
        super().__init__(model)
        self.latency = latency
        self.jitter = jitter
        self.counter = itertools.count()
        self.rng = random.Random(0)

    async def generate(self, request: ChatRequest) -> ChatResponse:
        await asyncio.sleep(self.latency * (1 + self.rng.uniform(-self.jitter, self.jitter)))
        return ChatResponse(
            text=distinct_answer(next(self.counter)),
            requested_model=self.model,
            served_model=self.model,
            usage=Usage(input_tokens=100, output_tokens=60),
        )


def create_sleeping(model: str) -> ModelAPI:
    return SleepingTarget(model)


def measure(
    trials: int,
    latency: float,
    concurrency: int,
    judge: str,
    client: str,
    in_process: bool,
    jitter: float = 0.0,
    call_workers: int = 0,
) -> tuple[float, float, int]:
    """Wall seconds and this process's CPU seconds for `trials` trials, and the provider calls
    they made. With call workers, their CPU is not in this process's."""
    with loopback(latency, in_process, jitter) as base_url, tempfile.TemporaryDirectory() as out:
        os.environ["OPENAI_COMPATIBLE_BASE_URL"] = base_url
        os.environ.setdefault("OPENAI_COMPATIBLE_API_KEY", "benchmark-dummy-key")
        target = TARGET if client == "sdk" else SLEEPING_TARGET
        config = RunConfig(
            scenarios=[SCENARIO],
            targets=[target],
            judges=[judge],
            epochs=trials,
            max_concurrency=concurrency,
            out=Path(out),
            cache=CacheMode.OFF,
            call_workers=call_workers,
        )
        adapters: dict[str, ModelAPI] = (
            {} if client == "sdk" else {SLEEPING_TARGET: SleepingTarget(SLEEPING_TARGET, latency, jitter)}
        )
        started, cpu_started = time.perf_counter(), time.process_time()
        result = asyncio.run(execute(config, build_gateway(config, adapters=adapters)))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        calls = sum(1 for c in read_jsonl(result.store.directory / CALLS) if "response" in c)
        assert len(result.records) == trials
    return elapsed, cpu, calls


def measure_bare(
    trials: int, latency: float, concurrency: int, in_process: bool, jitter: float = 0.0
) -> tuple[float, float, int]:
    """`measure` without the harness: each trial asks the scenario's turns one after another
    through the adapter alone, with the same slots and server."""
    scenario = load_scenario(SCENARIO)
    # The opening statement, then every scripted turn: the four target calls a harness trial makes.
    turns = [scenario.opening_statement or "", *(t.user_message for t in scenario.scripted_turns)]

    async def trials_at_once() -> None:
        adapter = create_compatible(TARGET.partition(":")[2])
        slots = asyncio.Semaphore(concurrency)

        async def trial() -> None:
            async with slots:
                messages: list[Message] = []
                for turn in turns:
                    messages.append(Message(role="user", content=turn))
                    request = ChatRequest(system="You are helpful.", messages=list(messages))
                    response = await adapter.generate(request)
                    messages.append(Message(role="assistant", content=response.text))

        try:
            await asyncio.gather(*(trial() for _ in range(trials)))
        finally:
            await adapter.aclose()

    with loopback(latency, in_process, jitter) as base_url:
        os.environ["OPENAI_COMPATIBLE_BASE_URL"] = base_url
        os.environ.setdefault("OPENAI_COMPATIBLE_API_KEY", "benchmark-dummy-key")
        started, cpu_started = time.perf_counter(), time.process_time()
        asyncio.run(trials_at_once())
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return elapsed, cpu, trials * len(turns)


def profiled(run: Callable[[], object], top: int) -> None:
    """Run once under cProfile and print where this process's CPU went: per package, then the
    functions with the most time of their own. cProfile slows Python code down, so read the shares,
    not the seconds."""
    profile = cProfile.Profile()
    profile.runcall(run)
    stats = pstats.Stats(profile)
    total = sum(row[2] for row in stats.stats.values())  # type: ignore[attr-defined]
    packages: dict[str, float] = {}
    for (filename, _, _), row in stats.stats.items():  # type: ignore[attr-defined]
        packages[_package(filename)] = packages.get(_package(filename), 0.0) + row[2]
    print(f"profile: {total:.2f} s of own time; share by package")
    for name, seconds in sorted(packages.items(), key=lambda item: -item[1])[:12]:
        print(f"  {seconds / total:6.1%}  {name}")
    print(f"top {top} functions by own time")
    stats.sort_stats("tottime").print_stats(top)
    if os.environ.get("PROFILE_CUMULATIVE"):
        stats.sort_stats("cumulative").print_stats(os.environ["PROFILE_CUMULATIVE"], top)


def _package(filename: str) -> str:
    if filename.startswith("~") or filename.startswith("<"):
        return "builtins (C)"
    parts = Path(filename).parts
    for anchor in ("site-packages", "medeval"):
        if anchor in parts:
            index = parts.index(anchor)
            rest = parts[index + 1 :] if anchor == "site-packages" else parts[index:]
            return "/".join(rest[:2]) if rest and rest[0] == "medeval" else (rest[0] if rest else anchor)
    return "stdlib: " + Path(filename).stem


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=256)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per call at the server")
    parser.add_argument(
        "--jitter",
        type=float,
        default=0.0,
        help="each call waits latency x uniform(1 - J, 1 + J): the same mean latency, but calls that "
        "return at different times as a real provider's do (default 0: every call the same, lockstep)",
    )
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--judge", default="rules", help="judge spec (default: rules, no judge calls)")
    parser.add_argument(
        "--client",
        choices=("sdk", "none", "bare", "both", "all"),
        default="both",
        help="sdk: openai-compatible over loopback HTTP; none: an in-process provider that only sleeps; "
        "bare: the SDK alone, no harness (the ceiling); both: sdk and none; all: the three",
    )
    parser.add_argument(
        "--call-workers",
        type=int,
        default=0,
        help="provider calls in N worker processes (medeval run --call-workers; default 0)",
    )
    parser.add_argument("--in-process-server", action="store_true", help="run the loopback in this process")
    parser.add_argument(
        "--profile",
        type=int,
        metavar="TOP",
        help="instead of timing: one run of the first client under cProfile, printing TOP functions",
    )
    args = parser.parse_args()
    register_provider("sleep", f"{__name__}:create_sleeping")

    def timed(client: str, latency: float) -> tuple[float, float, int]:
        if client == "bare":
            return measure_bare(args.trials, latency, args.concurrency, args.in_process_server, args.jitter)
        return measure(
            args.trials,
            latency,
            args.concurrency,
            args.judge,
            client,
            args.in_process_server,
            args.jitter,
            args.call_workers,
        )

    if args.profile:
        client = "sdk" if args.client in ("sdk", "both") else "none"
        print(
            f"profiling {client}: trials {args.trials}, latency {args.latency * 1000:g} ms, "
            f"concurrency {args.concurrency}"
        )
        profiled(lambda: timed(client, args.latency), args.profile)
        return
    clients = {"both": ("sdk", "none"), "all": ("sdk", "none", "bare")}.get(args.client, (args.client,))
    print(
        f"trials {args.trials}, latency {args.latency * 1000:g} ms (jitter {args.jitter:g}), "
        f"concurrency {args.concurrency}, "
        f"judge {args.judge}, server {'in-process' if args.in_process_server else 'own process'}, "
        f"call workers {args.call_workers}"
    )
    print(
        f"{'client':<8}{'calls':>7}{'ideal s':>9}{'actual s':>10}{'ratio':>7}{'overhead/trial ms':>19}"
        f"{'cpu/trial ms':>14}"
    )
    for client in clients:
        elapsed, cpu, calls = timed(client, args.latency)
        ideal = calls * args.latency / args.concurrency
        idle, _, _ = timed(client, 0.0)
        print(
            f"{client:<8}{calls:>7}{ideal:>9.2f}{elapsed:>10.2f}{ideal / elapsed:>7.2f}"
            f"{idle / args.trials * 1000:>19.2f}{cpu / args.trials * 1000:>14.2f}"
        )
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak_mib:.1f} MiB (ru_maxrss of the harness process, all runs above)")


if __name__ == "__main__":
    main()
