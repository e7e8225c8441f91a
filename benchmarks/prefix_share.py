"""How much of a verifier request a provider's prefix cache can serve (a benchmark that prints
figures; not a test).

    .venv/bin/python benchmarks/prefix_share.py

It runs the demo (the bundled scenarios, the five offline fake targets) with two model-backed
verifiers (`fake:judge`, so no call leaves the machine) twice: once with the verifier requests
laid out as before issue 16 (one data block list, one nonce over all of it) and once as now (the
answer key and the group's checklist first, in a part of their own whose nonce depends on them
alone). For every verifier request it takes the longest prefix it shares, byte for byte, with the
request of another trial of the same scenario, group and judge: what a prefix cache could serve.
It prints, for both layouts, that prefix's share of all verifier request characters, and the share
the stable part (system prompt, key, checklist) takes of a request.
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any

from medeval.agents import verifier
from medeval.agents.boundary import DataMessage, data_message
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run
from medeval.records.storage import CALLS, read_jsonl
from medeval.scenarios.load import bundled_scenarios_dir

TARGETS = ("fake:accurate", "fake:incomplete", "fake:outdated", "fake:invented", "fake:refusal")


def old_layout(stable: Any, varying: Any) -> DataMessage:
    """The verifier message before issue 16: every block under one nonce over the whole message."""
    return DataMessage(data_message([*stable, *varying]))


def verifier_texts(out: Path) -> dict[tuple[str, str, int], list[tuple[str, int]]]:
    """Verifier requests (system + first message) per scenario, group and judge, with where their
    stable part ends (0 when unmarked)."""
    config = RunConfig(
        scenarios=[bundled_scenarios_dir()],
        targets=list(TARGETS),
        judges=["fake:judge"],
        extractor="rules",
        judge_count=2,
        seed=42,
        out=out,
    )
    result = run(config)
    groups: dict[tuple[str, str, int], list[tuple[str, int]]] = defaultdict(list)
    for call in read_jsonl(result.store.directory / CALLS):
        if call.get("role") != "verifier" or call.get("attempt") != 1:
            continue
        request = call["request"]
        text = request["system"] + "\n" + request["messages"][0]["content"]
        stable = len(request["system"]) + 1 + int(request.get("stable_prefix") or 0)
        key = (str(call.get("scenario_id")), str(call.get("turn_id")), int(call.get("judge_index") or 0))
        groups[key].append((text, stable if request.get("stable_prefix") else 0))
    return groups


def common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def figures(groups: dict[tuple[str, str, int], list[tuple[str, int]]]) -> tuple[int, int, int, int]:
    """(requests, characters, characters shared with another trial's request, stable characters)."""
    requests = chars = shared = stable = 0
    for texts in groups.values():
        for i, (text, marked) in enumerate(texts):
            others = [t for j, (t, _) in enumerate(texts) if j != i]
            requests += 1
            chars += len(text)
            shared += max((common_prefix(text, o) for o in others), default=0)
            stable += marked
    return requests, chars, shared, stable


def main() -> None:
    warnings.simplefilter("ignore")  # the one-model panel warning says nothing about prefixes
    os.environ.setdefault("MEDEVAL_CACHE_DIR", tempfile.mkdtemp(prefix="medeval-bench-cache-"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        real = verifier.prefixed_message
        verifier.prefixed_message = old_layout  # type: ignore[assignment]
        try:
            before = figures(verifier_texts(Path(tmp) / "before"))
        finally:
            verifier.prefixed_message = real  # type: ignore[assignment]
        after = figures(verifier_texts(Path(tmp) / "after"))
        rows = [("before (one nonce)", before), ("after (stable part first)", after)]
    print(f"{'layout':<28}{'requests':>9}{'chars/request':>15}{'shared prefix':>15}{'stable part':>13}")
    for name, (requests, chars, shared, stable) in rows:
        print(
            f"{name:<28}{requests:>9}{chars / requests:>15,.0f}{shared / chars:>15.1%}"
            f"{(stable / chars if stable else 0):>13.1%}"
        )
    print("shared prefix: the share of verifier request characters equal, from the first, to another")
    print("trial's request for the same scenario, group and judge (what a prefix cache can serve).")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
