"""No secret in a run directory or the cache: a run with a known dummy key is scanned byte by byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from medeval.orchestrator import run
from medeval.testing.loopback import LoopbackServer
from tests.engine_support import DUMMY_KEY, loop_config, point_at


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
