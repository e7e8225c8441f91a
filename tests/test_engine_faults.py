"""Fault injection: 30% of calls fail (429, 500, 503, timeouts, malformed JSON) and the run still
completes, every trial scored or explicitly unscored with a reason, none duplicated."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from medeval.adapters.openai_api import OpenAICompatibleAdapter
from medeval.engine.orchestrator import build_gateway, run
from medeval.records.audit import verify_run
from medeval.records.storage import CALLS, RESULTS
from medeval.testing.loopback import Fault, LoopbackServer
from tests.engine_support import LOOP_JUDGE, LOOP_TARGET, instant, loop_config, point_at, strict_lines

FAULTS = (
    Fault.rate_limited("0"),
    Fault.server_error(500),
    Fault.unavailable(),
    Fault.slow(1.0),  # past the client's timeout below
    Fault.malformed(),
)


def test_run_survives_thirty_percent_faults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with LoopbackServer(fault_rate=0.3, rate_faults=FAULTS, seed=11) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        config = loop_config(tmp_path / "runs", epochs=8, max_concurrency=8)
        adapters = {
            spec: OpenAICompatibleAdapter(spec.partition(":")[2], timeout=0.25)
            for spec in (LOOP_TARGET, LOOP_JUDGE)
        }
        result = run(config, build_gateway(config, adapters=adapters, sleep=instant))
        sent = server.request_count

    run_dir = result.store.directory
    trials = strict_lines(run_dir / RESULTS)
    calls = strict_lines(run_dir / CALLS)
    assert len(trials) == 16
    assert len({t["trial_key"] for t in trials}) == 16
    for trial in trials:
        assert trial["status"] in ("scored", "partial", "unscored")
        if trial["status"] != "scored":
            assert trial["unscored"] and all(u["reason"] for u in trial["unscored"])

    statuses = Counter(str(c["error"]["status"]) for c in calls if "error" in c)
    assert {"429", "500", "503", "timeout", "malformed"} <= set(statuses)
    assert sum(statuses.values()) > 0.2 * len(calls)
    # Every attempt reached the log: one record per request the server saw, plus at most the
    # timeouts the client gave up on before a loaded server read the request.
    assert sent <= len(calls) <= sent + statuses["timeout"]
    assert any(c["attempt"] > 1 for c in calls)
    # After a 429 that provider's concurrency was lowered.
    assert min(c["concurrency_limit"] for c in calls) < config.max_concurrency
    assert [f for f in verify_run(run_dir) if f.severity == "error"] == []
