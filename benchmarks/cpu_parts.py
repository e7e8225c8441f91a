"""CPU of the parts of a throughput.py trial, each on its own (a benchmark that prints figures; not a
test).

    .venv/bin/python benchmarks/cpu_parts.py

- rules judge: what `judging` asks of the rules coder for one trial of throughput.py's scenario
  (extract each turn's claims; code each group's answer and label its claims, sharing one reading
  per sentence), over distinct answers;
- openai adapter: `generate()` of `openai-compatible:` through the real openai SDK (the client path
  and aiohttp transport the adapter uses) against the loopback server in its own process, 64 calls
  in flight, latency 0;
- raw aiohttp: the same request and JSON parse with aiohttp alone, the floor under any SDK.

Each figure is this process's CPU time (process_time) divided by the work done.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).parent))
from throughput import SCENARIO, distinct_answer, loopback

from medeval.adapters.base import ChatRequest, Message
from medeval.adapters.openai_api import create_compatible
from medeval.agents import rules
from medeval.scenarios.load import load_scenario

QUESTION = "When can I sign up for Part B, and is there a penalty if I wait? " * 3


def rules_per_trial(trials: int) -> float:
    scenario = load_scenario(SCENARIO)
    groups = scenario.groups()
    n = 0
    started = time.process_time()
    for _ in range(trials):
        for group, turns in groups.items():
            answers = [distinct_answer(n + i) for i in range(len(turns))]
            n += len(turns)
            claims = [c for i, a in enumerate(answers) for c in rules.extract_claims(a, f"t{i}")]
            memo: rules.Memo = {}
            rules.code_answer(scenario, group, "\n\n".join(answers), memo)
            rules.label_claims(claims, scenario, memo)
    return (time.process_time() - started) / trials * 1000


async def per_call(call: Callable[[], Awaitable[object]], calls: int, concurrency: int) -> float:
    for _ in range(50):  # connections open, caches warm
        await call()
    slots = asyncio.Semaphore(concurrency)

    async def one() -> None:
        async with slots:
            await call()

    started = time.process_time()
    await asyncio.gather(*(one() for _ in range(calls)))
    return (time.process_time() - started) / calls * 1000


async def http_per_call(base_url: str, calls: int, concurrency: int) -> tuple[float, float]:
    adapter = create_compatible("bench-target")
    request = ChatRequest(
        system="You are a helpful assistant.", messages=[Message(role="user", content=QUESTION)]
    )
    sdk = await per_call(lambda: adapter.generate(request), calls, concurrency)
    await adapter.aclose()
    body = {
        "model": "bench-target",
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": QUESTION},
        ],
    }
    async with aiohttp.ClientSession() as session:

        async def post() -> None:
            headers = {"Authorization": "Bearer benchmark-dummy-key"}
            async with session.post(f"{base_url}/chat/completions", json=body, headers=headers) as reply:
                json.loads(await reply.read())

        raw = await per_call(post, calls, concurrency)
    return sdk, raw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=300, help="rules-judge trials")
    parser.add_argument("--calls", type=int, default=2000, help="HTTP calls per client")
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    print(f"rules judge      {rules_per_trial(args.trials):6.2f} ms CPU per trial ({args.trials} trials)")
    with loopback(0.0, in_process=False) as base_url:
        os.environ["OPENAI_COMPATIBLE_BASE_URL"] = base_url
        os.environ.setdefault("OPENAI_COMPATIBLE_API_KEY", "benchmark-dummy-key")
        sdk, raw = asyncio.run(http_per_call(base_url, args.calls, args.concurrency))
    print(f"openai adapter   {sdk:6.3f} ms CPU per call ({args.calls} calls, {args.concurrency} in flight)")
    print(f"raw aiohttp      {raw:6.3f} ms CPU per call (the same request, no SDK)")


if __name__ == "__main__":
    main()
