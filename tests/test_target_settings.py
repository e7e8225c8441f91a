"""Per-target settings: max output tokens, system prompt and reasoning effort, on the command line
and in the configuration, recorded in the manifest, every trial and every call (sent and dropped)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from medeval.adapters.base import Sampling
from medeval.adapters.openai_api import OpenAIAdapter
from medeval.cli import settings as target_cli
from medeval.engine.config import RunConfig, SystemPrompt, TargetSettings
from medeval.engine.orchestrator import run
from medeval.errors import UserError
from medeval.records.hashing import sha256_text
from medeval.records.storage import read_jsonl
from medeval.testing.loopback import LoopbackServer
from tests.servers.helpers import SECRET, chat

from .conftest import SCENARIOS, medeval, only_run

TODAY = date(2026, 11, 22)
SCENARIO_001 = SCENARIOS / "scenario_001.json"


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(api_key=SECRET) as running:
        yield running


def with_effort(level: str) -> object:
    request = chat()
    return request.model_copy(
        update={"sampling": request.sampling.model_copy(update={"reasoning_effort": level})}
    )


def test_reasoning_effort_is_sent_to_a_reasoning_model(server: LoopbackServer) -> None:
    subject = OpenAIAdapter("gpt-6-luna", api_key=SECRET, base_url=server.base_url, today=TODAY)
    response = asyncio.run(subject.generate(with_effort("high")))  # type: ignore[arg-type]
    assert server.requests[0].body["reasoning_effort"] == "high"
    assert response.sampling_sent["reasoning_effort"] == "high"


def test_reasoning_effort_goes_in_the_responses_api_reasoning_object(server: LoopbackServer) -> None:
    subject = OpenAIAdapter("o3-pro", api_key=SECRET, base_url=server.base_url, today=TODAY)
    asyncio.run(subject.generate(with_effort("low")))  # type: ignore[arg-type]
    assert server.requests[0].body["reasoning"] == {"effort": "low"}


def test_a_model_without_reasoning_effort_records_it_as_dropped(server: LoopbackServer) -> None:
    subject = OpenAIAdapter("gpt-4o-mini", api_key=SECRET, base_url=server.base_url, today=TODAY)
    response = asyncio.run(subject.generate(with_effort("high")))  # type: ignore[arg-type]
    assert "reasoning_effort" not in server.requests[0].body
    assert response.sampling_dropped["reasoning_effort"]["value"] == "high"
    assert "reasoning effort" in response.sampling_dropped["reasoning_effort"]["reason"]


def test_an_unset_reasoning_effort_leaves_the_recorded_request_as_it_was() -> None:
    # Cache keys hash the dumped request: a field nobody set must not change them.
    assert Sampling(temperature=0.0).model_dump() == {
        "temperature": 0.0,
        "top_p": None,
        "max_output_tokens": None,
    }


def test_per_target_overrides_and_variant_prompt_win(tmp_path: Path) -> None:
    own = SystemPrompt.of("Be brief.")
    config = RunConfig(
        scenarios=[SCENARIO_001],
        targets=["fake:accurate", "fake:incomplete"],
        max_output_tokens=2048,
        system_prompt=SystemPrompt.of("Be kind."),
        target_settings={"fake:incomplete": TargetSettings(system_prompt=own, max_output_tokens=64)},
    )
    assert config.settings_for("fake:accurate").system_prompt == "Be kind."
    assert config.settings_for("fake:accurate").max_output_tokens == 2048
    assert config.settings_for("fake:incomplete").system_prompt == "Be brief."
    assert config.settings_for("fake:incomplete").max_output_tokens == 64


def test_command_line_values_for_all_or_one_target(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("You are a Medicare helper.", encoding="utf-8")
    run_wide, own = target_cli.target_settings(
        ["fake:accurate", "openai:gpt-5"],
        max_output_tokens=["2048", "openai:gpt-5=16000"],
        system_prompt=[str(prompt)],
        reasoning_effort=["openai:gpt-5=high"],
        target_temperature=None,
    )
    assert run_wide["max_output_tokens"] == 2048
    assert run_wide["system_prompt"].text == "You are a Medicare helper."
    assert own == {"openai:gpt-5": TargetSettings(max_output_tokens=16000, reasoning_effort="high")}
    with pytest.raises(UserError, match="not one of the run's targets"):
        target_cli.target_settings(
            ["fake:accurate"],
            max_output_tokens=["fake:other=10"],
            system_prompt=None,
            reasoning_effort=None,
            target_temperature=None,
        )
    with pytest.raises(UserError, match="not one of none, minimal"):
        target_cli.per_target("--reasoning-effort", ["extreme"], ["fake:accurate"], target_cli.effort)


def test_settings_are_recorded_in_manifest_trials_and_calls(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("You are a Medicare helper.", encoding="utf-8")
    done = medeval(
        "run",
        "--scenario",
        str(SCENARIO_001),
        "--target",
        "fake:accurate",
        "--max-output-tokens",
        "4096",
        "--system-prompt",
        str(prompt),
        "--reasoning-effort",
        "medium",
        "--out",
        str(tmp_path / "runs"),
        "--quiet",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    run_dir = only_run(tmp_path / "runs")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    recorded = manifest["targets"]["fake:accurate"][""]
    assert recorded["max_output_tokens"] == 4096
    assert recorded["reasoning_effort"] == "medium"
    assert recorded["system_prompt_sha256"] == sha256_text("You are a Medicare helper.")
    assert recorded["system_prompt_path"] == str(prompt)
    (trial,) = read_jsonl(run_dir / "results.jsonl")
    assert trial["target"]["settings"] == recorded
    (call,) = read_jsonl(run_dir / "calls.jsonl")
    assert call["request"]["system"] == "You are a Medicare helper."
    assert call["request"]["sampling"]["max_output_tokens"] == 4096
    assert call["request"]["sampling"]["reasoning_effort"] == "medium"
    assert call["response"]["sampling_sent"]["reasoning_effort"] == "medium"


def test_a_missing_system_prompt_file_is_one_line(tmp_path: Path) -> None:
    done = medeval(
        "run", "-s", str(SCENARIO_001), "-t", "fake:accurate", "--system-prompt", "nope.txt", cwd=tmp_path
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "nope.txt: no such file; pass the system prompt file" in done.stderr


def test_default_run_sends_no_system_prompt_and_1024_tokens(tmp_path: Path) -> None:
    result = run(RunConfig(scenarios=[SCENARIO_001], targets=["fake:accurate"], out=tmp_path))
    (call,) = read_jsonl(result.store.directory / "calls.jsonl")
    assert call["request"]["system"] == ""
    assert call["request"]["sampling"] == {"temperature": 0.0, "top_p": None, "max_output_tokens": 1024}
