"""No secret in a run directory or the cache: a run with a known dummy key is scanned byte by byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from medeval.engine.orchestrator import run
from medeval.records.audit import verify_run
from medeval.records.redact import redact, redact_url
from medeval.testing.loopback import Fault, LoopbackServer
from tests.conftest import medeval
from tests.engine_support import DUMMY_KEY, LOOP_TARGET, SCENARIO_001, loop_config, only_run, point_at


def files_under(*roots: Path) -> list[Path]:
    return [p for root in roots for p in root.rglob("*") if p.is_file()]


def test_the_api_key_reaches_the_server_and_no_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with LoopbackServer(api_key=DUMMY_KEY) as server:
        point_at(server, monkeypatch, cache)
        result = run(loop_config(tmp_path / "runs"))
        run(loop_config(tmp_path / "runs"))  # a second run, answered from the cache
    # The key really was sent (so its absence below means something) ...
    assert server.requests and all(r.key_header == "authorization" for r in server.requests)
    # ... and is nowhere on disk: not raw, not in any file of the runs or the cache.
    written = files_under(tmp_path / "runs", cache)
    assert result.store.directory / "calls.jsonl" in written
    assert any(p.suffix == ".sqlite3" for p in written)
    for path in written:
        assert DUMMY_KEY.encode() not in path.read_bytes(), path


PASSWORD = "proxy-pass-7f3a9c1e"


def test_a_401_that_echoes_the_key_and_a_password_in_the_base_url_reach_no_artifact(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    echo = Fault.error(401, f"Incorrect API key provided: {DUMMY_KEY}. Find your key at https://example.test")
    with LoopbackServer(faults=[echo] * 40) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        credentialed = server.base_url.replace("http://", f"http://shopper:{PASSWORD}@") + "?token=abc123xyz"
        monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", credentialed)
        ran = medeval(
            "run", "-q", "-s", str(SCENARIO_001), "-t", LOOP_TARGET, "-j", "rules", "--out", "runs",
            cwd=tmp_path,
        )  # fmt: skip
    assert server.requests, "the key never reached the server, so its absence proves nothing"
    run_dir = only_run(tmp_path / "runs")
    reported = medeval("report", str(run_dir), cwd=tmp_path)
    models = medeval("models", cwd=tmp_path)
    printed = [p.stdout + p.stderr for p in (ran, reported, models)]
    assert "Incorrect API key provided: <redacted>" in (run_dir / "calls.jsonl").read_text(encoding="utf-8")
    assert (run_dir / "report" / "report.html").is_file()
    for secret in (DUMMY_KEY, PASSWORD, "abc123xyz"):
        for path in files_under(tmp_path / "runs", tmp_path / "cache"):
            assert secret.encode() not in path.read_bytes(), (secret, path)
        for text in printed:
            assert secret not in text
    assert "http://127.0.0.1:" in models.stdout  # the endpoint is still shown, without its userinfo
    assert [f.severity for f in verify_run(run_dir)] == ["ok"]  # redacted records still chain


def test_redact_replaces_key_values_and_url_userinfo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-0123456789")
    monkeypatch.setenv("HTTPS_PROXY", "http://me:hunter2hunter2@proxy:3128")
    monkeypatch.setenv("SHORT_TOKEN", "abc")  # too short to redact without garbling text
    text = "bad key sk-ant-0123456789 via http://me:hunter2hunter2@proxy:3128 and abc"
    assert redact(text) == "bad key <redacted> via http://proxy:3128 and abc"
    assert redact_url("https://u:p@host.test:8443/v1?key=zzz#frag") == "https://host.test:8443/v1"
    # In a JSON record an answer's escaped newline ends a URL: an email on the next line stays.
    escaped = '"see https://medicare.gov\\nhelp@example.org"'
    assert redact(escaped, []) == escaped


def test_a_key_set_or_changed_after_the_first_redaction_is_redacted_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The environment's secrets are remembered between records; any change must be seen.
    monkeypatch.delenv("LATE_API_KEY", raising=False)
    assert redact("uses late-key-0123456789") == "uses late-key-0123456789"
    monkeypatch.setenv("LATE_API_KEY", "late-key-0123456789")
    assert redact("uses late-key-0123456789") == "uses <redacted>"
    monkeypatch.setenv("LATE_API_KEY", "other-key-9876543210")
    both = "uses late-key-0123456789 and other-key-9876543210"
    assert redact(both) == "uses late-key-0123456789 and <redacted>"
