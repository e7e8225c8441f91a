"""Test hygiene: no real endpoint, key or proxy from the developer's environment leaks in."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from medeval.schemas import Scenario

from . import rules_support

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = REPO / "scenarios" / "v1"

# Fields that legitimately differ between two runs of the same configuration.
VOLATILE = {"trial_id", "run_id", "started_at", "finished_at", "hash", "prev_hash"}


def stable(record: dict[str, Any]) -> dict[str, Any]:
    """A trial record without the fields that differ between identical runs."""
    return {k: v for k, v in record.items() if k not in VOLATILE}


def rules_benchmark() -> ModuleType:
    """benchmarks/rules_agreement.py loaded as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "rules_agreement", REPO / "benchmarks" / "rules_agreement.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def only_run(parent: Path) -> Path:
    """The single run directory a test made under `parent`."""
    runs = [p for p in parent.iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]


def in_process(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    """The command line in this process (a subprocess costs seconds of imports): its exit code."""
    from medeval.cli import main

    monkeypatch.setattr(sys, "argv", ["medeval", *args])
    try:
        main()
    except SystemExit as done:
        return int(done.code or 0)
    return 0


def medeval(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command line in a subprocess, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "medeval", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


_LEAKY_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "OPENAI_CUSTOM_HEADERS",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_CONFIG_DIR",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_GENAI_USE_ENTERPRISE",
    "GOOGLE_GENAI_API_VERSION",
    "GOOGLE_GENAI_HTTP_CLIENT",
    "XAI_API_KEY",
    "XAI_API_HOST",
    "OPENAI_COMPATIBLE_BASE_URL",
    "OPENAI_COMPATIBLE_API_KEY",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in _LEAKY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost,::1")
    # Never the developer's response cache or price table.
    monkeypatch.setenv("MEDEVAL_CACHE_DIR", str(tmp_path / "medeval-cache"))
    monkeypatch.delenv("MEDEVAL_PRICES", raising=False)
    # A stray .env in the developer's checkout must not reach the tests.
    monkeypatch.chdir(tmp_path)


# The bundled 2026 SHIP keys, for the rules coder's minimal-pair tests.
@pytest.fixture(scope="module")
def dual() -> Scenario:
    return rules_support.key("ship_dual_eligible")


@pytest.fixture(scope="module")
def medicare_only() -> Scenario:
    return rules_support.key("ship_medicare_only")
