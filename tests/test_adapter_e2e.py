"""End to end, once per provider: `medeval run` with the target on that provider and the judges on
another, every endpoint a loopback fake reached through the documented environment variables,
through the real SDKs. The results must carry the served model version; calls.jsonl every role."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from medeval.testing.loopback import LoopbackServer
from medeval.testing.openai_dialect import OPENAI
from tests.conftest import SCENARIOS, in_process
from tests.servers.anthropic_server import ANTHROPIC
from tests.servers.gemini_server import GEMINI
from tests.servers.xai_grpc import XAIServer

KEYS = {
    "OPENAI_API_KEY": "sk-e2e-openai-0123456789",
    "ANTHROPIC_API_KEY": "sk-ant-e2e-0123456789",
    "GOOGLE_API_KEY": "AIza-e2e-0123456789",
    "XAI_API_KEY": "xai-e2e-0123456789",
}
SCENARIO = SCENARIOS / "employer_coverage_followup.json"  # multi-turn: history goes over the wire


class Endpoints:
    def __init__(
        self, openai: LoopbackServer, anthropic: LoopbackServer, google: LoopbackServer, xai: XAIServer
    ):
        self.servers = {"openai": openai, "anthropic": anthropic, "google": google}
        self.xai = xai

    def count(self, provider: str) -> int:
        return len(self.xai.calls) if provider == "xai" else self.servers[provider].request_count


@pytest.fixture
def endpoints(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoints]:
    with (
        LoopbackServer(OPENAI, api_key=KEYS["OPENAI_API_KEY"]) as openai,
        LoopbackServer(ANTHROPIC, api_key=KEYS["ANTHROPIC_API_KEY"]) as anthropic,
        LoopbackServer(GEMINI, api_key=KEYS["GOOGLE_API_KEY"]) as google,
        XAIServer(api_key=KEYS["XAI_API_KEY"]) as xai,
    ):
        for name, value in KEYS.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("OPENAI_BASE_URL", openai.base_url)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic.url)
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", google.url)
        monkeypatch.setenv("XAI_API_HOST", xai.host)
        yield Endpoints(openai, anthropic, google, xai)


def read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("target", "judge"),
    [
        ("openai:gpt-6-luna", "anthropic:claude-sonnet-5-5"),
        ("anthropic:claude-sonnet-5-5", "google:gemini-3.8-flash"),
        ("google:gemini-3.8-flash", "anthropic:claude-sonnet-5-5"),
        ("xai:grok-4.6", "openai:gpt-6-luna"),
    ],
)
def test_run_against_loopback_providers(
    endpoints: Endpoints, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, target: str, judge: str
) -> None:
    out = tmp_path / "runs"
    code = in_process(
        monkeypatch,
        *("run", "--scenario", str(SCENARIO), "--target", target, "--judge", judge),
        *("--out", str(out), "--no-cache", "--quiet"),
    )
    assert code == 0
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    records = read_jsonl(run_dir / "results.jsonl")
    calls = read_jsonl(run_dir / "calls.jsonl")
    target_provider, target_model = target.split(":", 1)
    judge_provider = judge.split(":", 1)[0]

    assert records
    for record in records:
        block = record["target"]
        assert isinstance(block, dict)
        assert block["served_models"] == [f"{target_model}-2026-11-01"]
        assert record["flags"]["served_model_mismatch"] is False  # type: ignore[index]
        assert not record["flags"]["target_error"]  # type: ignore[index]
        assert record["verdicts"] and all(v["status"] == "ok" for v in record["verdicts"])  # type: ignore[union-attr]
        if target_provider == "anthropic":
            assert "temperature" in block["sampling_dropped"]
        else:
            assert (
                block["sampling_sent"].get("temperature") == 0.0 or "temperature" in block["sampling_dropped"]
            )

    roles = {str(c["role"]): str(c["spec"]) for c in calls}
    assert roles["target"] == target
    assert roles["extractor"] == judge and roles["verifier"] == judge
    target_calls = [c for c in calls if c["role"] == "target"]
    assert len(target_calls) >= 2  # a multi-turn conversation
    judge_calls = [c for c in calls if c["role"] != "target"]
    assert endpoints.count(target_provider) == len(target_calls)
    assert endpoints.count(judge_provider) == len(judge_calls)
    assert all(c["response"]["served_model"] for c in calls)  # type: ignore[index]
    # no key anywhere in the run directory
    for path in run_dir.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert not any(key in text for key in KEYS.values()), path


def test_retired_target_stops_before_any_call(
    endpoints: Endpoints, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs"
    code = in_process(
        monkeypatch,
        *("run", "--scenario", str(SCENARIO), "--target", "anthropic:claude-3-opus"),
        *("--judge", "openai:gpt-6-luna", "--out", str(out), "--no-cache", "--quiet"),
    )
    assert code == 2
    error = capsys.readouterr().err
    assert "claude-3-opus" in error and "2026-01-05" in error and "claude-opus-5-5" in error
    assert "Traceback" not in error
    assert sum(endpoints.count(p) for p in ("openai", "anthropic", "google", "xai")) == 0
    assert not out.exists() or not any(out.iterdir())


def test_judge_that_is_the_target_under_an_alias_is_refused(
    endpoints: Endpoints, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = in_process(
        monkeypatch,
        *("run", "--scenario", str(SCENARIO), "--target", "openai:gpt-4.1"),
        *("--judge", "openai:gpt-4.1-2025-04-14", "--out", str(tmp_path / "runs"), "--quiet"),
    )
    assert code == 2
    assert "same model as target" in capsys.readouterr().err
    assert endpoints.count("openai") == 0


def test_missing_key_is_one_line_before_any_work(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = in_process(
        monkeypatch,
        *("run", "--scenario", str(SCENARIO), "--target", "xai:grok-4.6", "--judge", "rules"),
        *("--out", str(tmp_path / "runs"), "--quiet"),
    )
    assert code == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert lines == [
        "error: xai:grok-4.6 needs an API key: set XAI_API_KEY in the environment or in a .env file"
    ]
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_models_command_shows_key_presence_never_the_value(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS["ANTHROPIC_API_KEY"])
    monkeypatch.setenv("COLUMNS", "250")
    assert in_process(monkeypatch, "models", "--as-of", "2026-11-22") == 0
    shown = capsys.readouterr().out
    assert KEYS["ANTHROPIC_API_KEY"] not in shown
    assert "set (ANTHROPIC_API_KEY)" in shown and "missing: set XAI_API_KEY" in shown
    for name in ("gpt-4.1", "gpt-4.1-mini", "claude-3.5-sonnet", "claude-3-opus", "gemini-1.5-pro", "grok-2"):
        assert name in shown
    assert "claude-3-5-sonnet-20241022" in shown and "retired" in shown and "deprecated" in shown


def test_keys_come_from_a_dotenv_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # conftest chdirs into tmp_path; cli.main loads ./.env without overriding the environment.
    (tmp_path / ".env").write_text(f"XAI_API_KEY={KEYS['XAI_API_KEY']}\n")
    monkeypatch.setenv("COLUMNS", "250")
    assert in_process(monkeypatch, "models") == 0
    shown = capsys.readouterr().out
    assert "set (XAI_API_KEY)" in shown and KEYS["XAI_API_KEY"] not in shown
