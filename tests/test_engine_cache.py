"""The response cache, against a loopback provider that counts every request it receives."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from medeval.adapters.base import ChatRequest, Message
from medeval.calls.cache import CacheMode, CacheWarning, ResponseCache, cache_key
from medeval.engine.orchestrator import run
from medeval.errors import ConfigError
from medeval.records.storage import CALLS, RESULTS
from medeval.testing.loopback import Fault, LoopbackServer
from tests.engine_support import loop_config, only_run, point_at, stable, strict_lines


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as running:
        yield running


def test_second_identical_run_makes_no_provider_call_and_yields_identical_trials(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    point_at(server, monkeypatch, tmp_path / "cache")
    first = run(loop_config(tmp_path / "a", epochs=2))
    sent = server.request_count
    assert sent > 0
    second = run(loop_config(tmp_path / "b", epochs=2))

    assert server.request_count == sent
    a, b = only_run(tmp_path / "a"), only_run(tmp_path / "b")

    def trials(run_dir: Path) -> list[dict[str, object]]:
        # Trials are appended as they finish, so compare them in key order.
        return sorted((stable(t) for t in strict_lines(run_dir / RESULTS)), key=lambda t: str(t["trial_key"]))

    assert trials(a) == trials(b)
    calls = strict_lines(b / CALLS)
    # The auditor still sees every response the second run used, each marked as a hit.
    assert len(calls) == len([c for c in strict_lines(a / CALLS) if "response" in c])
    assert {c["cache"] for c in calls} == {"hit"}
    assert all(c["cost_usd"] == 0.0 for c in calls)
    assert len(first.records) == len(second.records) == 4


def test_refresh_calls_again_and_no_cache_bypasses(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    point_at(server, monkeypatch, tmp_path / "cache")
    run(loop_config(tmp_path / "a"))
    once = server.request_count
    run(loop_config(tmp_path / "b", cache=CacheMode.REFRESH))
    assert server.request_count == 2 * once
    run(loop_config(tmp_path / "c", cache=CacheMode.OFF, cache_dir=tmp_path / "other"))
    assert server.request_count == 3 * once
    assert not (tmp_path / "other").exists()
    run(loop_config(tmp_path / "d"))
    assert server.request_count == 3 * once


def test_errors_are_never_cached(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    point_at(server, monkeypatch, tmp_path / "cache")
    # Every attempt of the first target call fails with a non-retryable 400.
    server.script(Fault.error(400, "bad request"))
    first = run(loop_config(tmp_path / "a", scenarios=[loop_config(tmp_path).scenarios[0]]))
    assert first.records[0].flags.target_error
    failed_at = server.request_count
    second = run(loop_config(tmp_path / "b", scenarios=[loop_config(tmp_path).scenarios[0]]))
    assert second.records[0].flags.target_error is None
    assert server.request_count > failed_at  # the failed call was made again, not replayed


def test_key_covers_model_base_url_messages_sampling_schema_prompt_and_epoch() -> None:
    request = ChatRequest(system="prompt v1", messages=[Message(role="user", content="Is Part B free?")])
    base = cache_key("openai:gpt-x", {"base_url": "https://a"}, request, 1)
    variants = [
        cache_key("openai:gpt-y", {"base_url": "https://a"}, request, 1),
        cache_key("openai:gpt-x", {"base_url": "https://b"}, request, 1),
        cache_key("openai:gpt-x", {"base_url": "https://a"}, request, 2),
        cache_key("openai:gpt-x", {"base_url": "https://a"}, request.model_copy(update={"system": "v2"}), 1),
        cache_key(
            "openai:gpt-x",
            {"base_url": "https://a"},
            request.model_copy(
                update={"messages": [*request.messages, Message(role="assistant", content="No")]}
            ),
            1,
        ),
        cache_key(
            "openai:gpt-x",
            {"base_url": "https://a"},
            request.model_copy(update={"sampling": request.sampling.model_copy(update={"temperature": 1.0})}),
            1,
        ),
        cache_key("openai:gpt-x", {"base_url": "https://a"}, request.model_copy(update={"seed": 7}), 1),
    ]
    assert len({base, *variants}) == len(variants) + 1
    assert cache_key("openai:gpt-x", {"base_url": "https://a"}, request, 1) == base


def test_fake_provider_is_not_cached(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    assert not cache.applies_to("fake")
    assert cache.applies_to("openai")
    assert not ResponseCache(tmp_path, CacheMode.OFF).applies_to("openai")


def test_an_unusable_cache_directory_stops_the_run_before_any_call(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    point_at(server, monkeypatch, blocker / "cache")
    with pytest.raises(ConfigError, match=r"cannot open the response cache .* or run with --no-cache"):
        run(loop_config(tmp_path / "runs"))
    assert server.request_count == 0
    assert not (tmp_path / "runs").exists()


def test_an_unreadable_cache_entry_is_a_miss_that_the_provider_answers(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    point_at(server, monkeypatch, tmp_path / "cache")
    run(loop_config(tmp_path / "a"))
    sent = server.request_count
    database = tmp_path / "cache" / "responses.sqlite3"
    with sqlite3.connect(database) as db:
        db.execute(
            "UPDATE responses SET response = '{not json' WHERE rowid = (SELECT min(rowid) FROM responses)"
        )
    db.close()
    with pytest.warns(CacheWarning, match="unreadable entry; dropped it"):
        second = run(loop_config(tmp_path / "b"))
    assert server.request_count == sent + 1  # that one call, and only it, went to the provider
    assert all(r.status != "unscored" for r in second.records)
    with sqlite3.connect(database) as db:
        assert db.execute("SELECT count(*) FROM responses WHERE response = '{not json'").fetchone() == (0,)
    db.close()


def test_a_damaged_cache_database_is_bypassed_not_fatal(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    point_at(server, monkeypatch, tmp_path / "cache")
    first = run(loop_config(tmp_path / "a"))
    database = tmp_path / "cache" / "responses.sqlite3"
    with sqlite3.connect(database) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'responses'").fetchone()[0]
    db.close()
    with database.open("r+b") as handle:  # garbage over the table's root page
        handle.seek((root - 1) * page_size)
        handle.write(b"\xde\xad" * (page_size // 2))
    with pytest.warns(CacheWarning, match="is damaged"):
        second = run(loop_config(tmp_path / "b"))
    assert [r.status for r in second.records] == [r.status for r in first.records]
    assert all(r.status != "unscored" for r in second.records)
