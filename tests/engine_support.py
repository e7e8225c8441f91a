"""Shared set-up for the run-engine tests: a loopback provider the real openai SDK talks to."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from medeval.adapters.batch import BatchItem, BatchStatus
from medeval.engine.config import RunConfig
from medeval.fakes.provider import FakeJudge
from medeval.testing.loopback import LoopbackServer
from tests.conftest import SCENARIOS, only_run, stable

__all__ = ["SCENARIOS", "only_run", "stable"]  # shared with the engine tests through this module

SCENARIO_001 = SCENARIOS / "scenario_001.json"
FOLLOWUP = SCENARIOS / "employer_coverage_followup.json"
LOOP_TARGET = "openai-compatible:shopper-target"
LOOP_JUDGE = "openai-compatible:shopper-judge"
#: A key that exists only here, so finding it anywhere in a run directory or cache is a leak.
DUMMY_KEY = "sk-medeval-dummy-4c1e8f2b9a7d"
#: Fields that legitimately differ between two runs of the same configuration.


def point_at(server: LoopbackServer, monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", DUMMY_KEY)
    monkeypatch.setenv("MEDEVAL_CACHE_DIR", str(cache_dir))


def loop_config(out: Path, **overrides: Any) -> RunConfig:
    values: dict[str, Any] = {
        "scenarios": [SCENARIO_001, FOLLOWUP],
        "targets": [LOOP_TARGET],
        "judges": [LOOP_JUDGE],
        "out": out,
        **overrides,
    }
    return RunConfig(**values)


async def instant(seconds: float) -> None:
    """The retry policy's and limiter's sleeper in tests: no real waiting."""


def strict_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a JSONL file, each of which must parse."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


# -- batch judging (issue 16) ---------------------------------------------------------------------


async def settle(seconds: float) -> None:
    """A sleeper for batch tests: no real waiting, but every task that can run now runs first, so
    a batch's idle window closes only once the run has nothing more to add to it."""
    for _ in range(200):
        await asyncio.sleep(0)


class HeldBatchJudge(FakeJudge):
    """`fake:judge` whose batches stay in progress until the test releases them, and which counts
    every submission (so a test can prove that a resumed run did not pay for a batch twice)."""

    def __init__(self, model: str = "judge") -> None:
        super().__init__(model)
        self.held = False
        self.submissions: list[list[str]] = []
        self.submitted = asyncio.Event()

    async def batch_submit(self, items: list[BatchItem]) -> str:
        self.submissions.append([i.custom_id for i in items])
        self.submitted.set()
        return await super().batch_submit(items)

    async def batch_status(self, batch_id: str) -> BatchStatus:
        status = await super().batch_status(batch_id)
        if self.held:
            return status.model_copy(update={"state": "in_progress", "provider_state": "in_progress"})
        return status


def batch_events(run_dir: Path, event: str | None = None) -> list[dict[str, Any]]:
    """The batch event lines of a run's calls.jsonl (all, or one kind: "batch_submitted"...)."""
    lines = strict_lines(run_dir / "calls.jsonl")
    return [r for r in lines if str(r.get("event", "")).startswith("batch_") and event in (None, r["event"])]


def judged_trials(run_dir: Path) -> dict[str, Any]:
    """What a batch run must reproduce of a direct run, by trial key: each group's category and
    every judge's output (claims, verdicts, checklists)."""
    out: dict[str, Any] = {}
    for record in strict_lines(run_dir / "results.jsonl"):
        kept = stable(record)
        out[str(record["trial_key"])] = {
            "groups": [(g["question_group"], g["ship_category"]) for g in kept.get("groups", [])],
            "claims": kept.get("claims"),
            "verdicts": kept.get("verdicts"),
            "final_claims": kept.get("final_claims"),
            "status": kept.get("status"),
        }
    return out


def direct_and_batched(
    out: Path, config: RunConfig, adapters: dict[str, Any] | None = None
) -> tuple[Path, Path]:
    """The same configuration run directly and with batch judging (the cache off, so both reach
    the provider): the two run directories, for `judged_trials(a) == judged_trials(b)`. Point the
    provider's endpoint at a loopback batch server first (as `point_at` does)."""
    from medeval.calls.batching import BatchSettings
    from medeval.calls.cache import CacheMode
    from medeval.engine.orchestrator import build_gateway, execute

    runs = []
    for name, batch in (
        ("direct", BatchSettings()),
        ("batched", BatchSettings(enabled=True, idle_seconds=0.0)),
    ):
        this = config.model_copy(update={"out": out / name, "cache": CacheMode.OFF, "batch": batch})
        gateway = build_gateway(this, adapters=adapters, sleep=settle)
        runs.append(asyncio.run(execute(this, gateway)).store.directory)
    return runs[0], runs[1]


class Clock:
    """A clock the fake sleeper advances: the limiter's waits take no real time."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
