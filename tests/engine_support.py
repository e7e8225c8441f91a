"""Shared set-up for the run-engine tests: a loopback provider the real openai SDK talks to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medeval.config import RunConfig
from medeval.loopback import LoopbackServer
from tests.conftest import SCENARIOS

SCENARIO_001 = SCENARIOS / "scenario_001.json"
FOLLOWUP = SCENARIOS / "employer_coverage_followup.json"
LOOP_TARGET = "openai-compatible:shopper-target"
LOOP_JUDGE = "openai-compatible:shopper-judge"
#: A key that exists only here, so finding it anywhere in a run directory or cache is a leak.
DUMMY_KEY = "sk-medeval-dummy-4c1e8f2b9a7d"
#: Fields that legitimately differ between two runs of the same configuration.
VOLATILE = {"trial_id", "run_id", "started_at", "finished_at", "hash", "prev_hash"}


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


def stable(trial: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in trial.items() if k not in VOLATILE}


def only_run(parent: Path) -> Path:
    runs = [p for p in parent.iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]
