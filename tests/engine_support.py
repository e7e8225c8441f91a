"""Shared set-up for the run-engine tests: a loopback provider the real openai SDK talks to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medeval.config import RunConfig
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
