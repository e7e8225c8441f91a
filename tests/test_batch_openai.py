"""The OpenAI Batch API (issue 16: 1) through the real openai SDK against the loopback batch
server: the wire format, partial failures and expiry, and whole `--batch` runs, including one
killed with its batch in flight and resumed."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from medeval.adapters.base import ChatRequest, Message, OutputSchema, Sampling
from medeval.adapters.batch import BatchItem
from medeval.adapters.catalog import filter_sampling
from medeval.adapters.openai_api import OpenAIAdapter
from medeval.calls.batching import BatchSettings
from medeval.engine.orchestrator import build_gateway, execute, resume_config
from medeval.testing.loopback import LoopbackServer
from medeval.testing.openai_batch import BatchDesk, openai_batch_dialect
from tests.engine_support import (
    DUMMY_KEY,
    LOOP_JUDGE,
    LOOP_TARGET,
    SCENARIO_001,
    batch_events,
    direct_and_batched,
    judged_trials,
    loop_config,
    only_run,
    point_at,
    settle,
    strict_lines,
)


def _request(text: str) -> ChatRequest:
    return ChatRequest(
        system="Extract claims.",
        messages=[Message(role="user", content=text)],
        sampling=Sampling(temperature=0.0, max_output_tokens=300),
        seed=7,
        output_schema=OutputSchema(
            name="extraction", json_schema={"type": "object", "properties": {"claims": {}}}
        ),
    )


def _adapter(server: LoopbackServer, model: str = "gpt-4.1") -> OpenAIAdapter:
    return OpenAIAdapter(model, api_key=DUMMY_KEY, base_url=server.base_url)


def test_a_batch_goes_up_as_jsonl_built_like_the_direct_call_and_comes_back_by_custom_id() -> None:
    desk = BatchDesk(hold=True)
    items = [BatchItem(custom_id=f"id{i}", request=_request(f"answer {i}")) for i in range(3)]

    async def go() -> None:
        adapter = _adapter(server)
        batch_id = await adapter.batch_submit(items)
        assert (await adapter.batch_status(batch_id)).state == "in_progress"
        assert (await adapter.batch_status(batch_id)).state == "in_progress"  # held
        desk.release()
        status = await adapter.batch_status(batch_id)
        assert (status.state, status.provider_state, status.total, status.succeeded) == (
            "ended",
            "completed",
            3,
            3,
        )
        outcomes = await adapter.batch_results(batch_id)
        assert sorted(o.custom_id for o in outcomes) == ["id0", "id1", "id2"]
        for outcome in outcomes:
            assert outcome.response is not None and outcome.response.served_model == "gpt-4.1-2026-11-01"
            assert outcome.response.usage.input_tokens
            assert outcome.response.sampling_sent == {"temperature": 0.0, "max_output_tokens": 300, "seed": 7}
        # The uploaded lines carry exactly the direct call's body.
        uploaded = [json.loads(line) for line in desk.files["file-0001"].splitlines()]
        sent, _ = filter_sampling(items[0].request, adapter.family)
        assert uploaded[0]["body"] == adapter._chat_body(items[0].request, sent)
        assert {u["url"] for u in uploaded} == {"/v1/chat/completions"}
        await adapter.aclose()

    with LoopbackServer(openai_batch_dialect(desk), api_key=DUMMY_KEY) as server:
        asyncio.run(go())
        created = [r for r in server.requests if r.path == "/v1/batches"]
        assert created[0].body["endpoint"] == "/v1/chat/completions"
        assert created[0].body["completion_window"] == "24h"


def test_a_responses_family_batches_to_the_responses_endpoint() -> None:
    desk = BatchDesk()

    async def go() -> None:
        adapter = _adapter(server, "o3-pro")
        assert adapter.family.api == "responses"
        batch_id = await adapter.batch_submit([BatchItem(custom_id="r1", request=_request("x"))])
        await adapter.batch_status(batch_id)
        assert (await adapter.batch_status(batch_id)).state == "ended"
        (outcome,) = await adapter.batch_results(batch_id)
        assert outcome.response is not None and outcome.response.text
        await adapter.aclose()

    with LoopbackServer(openai_batch_dialect(desk), api_key=DUMMY_KEY) as server:
        asyncio.run(go())
    (line,) = [json.loads(x) for x in desk.files["file-0001"].splitlines()]
    assert line["url"] == "/v1/responses" and line["body"]["store"] is False


def test_failed_and_expired_items_come_back_as_errors_the_retry_policy_understands() -> None:
    desk = BatchDesk(fail={"bad": 400, "busy": 500}, expire={"late"})

    async def go() -> dict[str, object]:
        adapter = _adapter(server)
        ids = ["ok", "bad", "busy", "late"]
        batch_id = await adapter.batch_submit([BatchItem(custom_id=i, request=_request(i)) for i in ids])
        await adapter.batch_status(batch_id)
        status = await adapter.batch_status(batch_id)
        assert status.state == "expired" and status.failed == 3
        outcomes = {o.custom_id: o for o in await adapter.batch_results(batch_id)}
        await adapter.aclose()
        return {
            i: (o.response is not None, o.error and (o.error.retryable, o.error.status))
            for i, o in outcomes.items()
        }

    with LoopbackServer(openai_batch_dialect(desk), api_key=DUMMY_KEY) as server:
        got = asyncio.run(go())
    assert got == {
        "ok": (True, None),
        "bad": (False, (False, 400)),
        "busy": (False, (True, 500)),
        "late": (False, (True, "batch_expired")),
    }


def test_a_server_without_the_batch_api_says_so() -> None:
    from medeval.adapters.base import ProviderError
    from medeval.testing.openai_dialect import OPENAI

    async def go() -> None:
        adapter = _adapter(server)
        with pytest.raises(ProviderError, match="Batch API") as failure:
            await adapter.batch_submit([BatchItem(custom_id="a", request=_request("x"))])
        assert failure.value.retryable is False
        await adapter.aclose()

    with LoopbackServer(OPENAI, api_key=DUMMY_KEY) as server:
        asyncio.run(go())


# -- whole runs ---------------------------------------------------------------------------------


def _run(config_out: Path, **overrides: object) -> Path:
    config = loop_config(config_out, **overrides)
    result = asyncio.run(execute(config, build_gateway(config, sleep=settle)))
    return result.store.directory


def test_a_batch_run_gives_the_same_trials_as_a_direct_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = BatchDesk(fail={}, expire=set())
    with LoopbackServer(openai_batch_dialect(desk), api_key=DUMMY_KEY) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        direct, batched = direct_and_batched(tmp_path, loop_config(tmp_path))
        judge_posts = [
            r
            for r in server.requests
            if r.path.endswith("/chat/completions")
            and isinstance(r.body, dict)
            and r.body.get("model") == "shopper-judge"
        ]
    assert judged_trials(batched) == judged_trials(direct)
    assert desk.created and batch_events(batched, "batch_collected")
    # Direct judge calls were made only by the direct run.
    assert judge_posts and len(judge_posts) == sum(len(ids) for ids in desk.created)


def test_killed_with_a_batch_in_flight_and_resumed_it_pays_for_no_batch_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reading = threading.Event()
    desk = BatchDesk(hold=True, on_retrieve=lambda _id: reading.set())
    with LoopbackServer(openai_batch_dialect(desk), api_key=DUMMY_KEY) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        # One trial, so one batch holds the whole first stage (its requests come within a moment
        # of each other; the idle window is far longer), and the next waits on its results.
        one = [SCENARIO_001]
        direct = _run(
            tmp_path / "direct", cache="off", scenarios=one
        )  # cache off: else the batch run hits it
        out = tmp_path / "batch"
        args = [
            "--scenario",
            str(SCENARIO_001),
            "--target",
            LOOP_TARGET,
            "--judge",
            LOOP_JUDGE,
            "--out",
            str(out),
            "--batch",
            "--batch-idle",
            "0.5",
            "--batch-poll",
            "0.05",
            "-q",
        ]
        log = tmp_path / "run.log"
        with log.open("w") as stream:
            child = subprocess.Popen(
                [sys.executable, "-m", "medeval", "run", *args],
                stdout=stream,
                stderr=subprocess.STDOUT,
                env=dict(os.environ),
            )
        try:
            # The first status read comes after the batch is recorded: kill the run there.
            assert reading.wait(timeout=120), f"the run never polled a batch: {log.read_text()}"
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
        run_dir = only_run(out)
        in_flight = batch_events(run_dir, "batch_submitted")
        assert len(in_flight) == 1 and batch_events(run_dir, "batch_collected") == []
        assert len(desk.created) == 1
        desk.release()  # the provider finishes the batch while nothing runs
        config = resume_config(run_dir)
        asyncio.run(execute(config, build_gateway(config, sleep=settle), resume=run_dir))
    first = set(desk.created[0])
    assert all(not (set(ids) & first) for ids in desk.created[1:]), "a request was submitted twice"
    assert in_flight[0]["batch_id"] in {e["batch_id"] for e in batch_events(run_dir, "batch_collected")}
    assert judged_trials(run_dir) == judged_trials(direct)


def test_expired_items_are_sent_again_and_the_run_matches_a_direct_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = BatchDesk(expire_next=3)
    with LoopbackServer(openai_batch_dialect(desk), api_key=DUMMY_KEY) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        direct, batched = direct_and_batched(tmp_path, loop_config(tmp_path))
    assert judged_trials(batched) == judged_trials(direct)
    expired = [
        c
        for c in strict_lines(batched / "calls.jsonl")
        if (c.get("error") or {}).get("status") == "batch_expired"
    ]
    assert len(expired) == 3 and all(c["error"]["retryable"] for c in expired)
    states = [e["provider_state"] for e in batch_events(batched, "batch_status")]
    assert "expired" in states
    # Each expired request went into exactly one later batch, alone with the other expired ones.
    retried = [e for e in batch_events(batched, "batch_submitted") if e["items"] == 3]
    assert retried


def test_judge_items_that_fail_for_good_leave_their_groups_not_scored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = BatchDesk(fail_matching='"name": "extraction"')
    with LoopbackServer(openai_batch_dialect(desk), api_key=DUMMY_KEY) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        config = loop_config(
            tmp_path / "runs", cache="off", batch=BatchSettings(enabled=True, idle_seconds=0.0)
        )
        result = asyncio.run(execute(config, build_gateway(config, sleep=settle)))
        direct_judge_calls = [r for r in server.requests if r.path.endswith("/chat/completions")]
    records = strict_lines(result.store.directory / "results.jsonl")
    categories = {g["ship_category"] for r in records for g in r["groups"] if g.get("scored", True)}
    assert categories <= {"not_scored", "not_applicable"} and "not_scored" in categories
    extractor = [
        c for c in strict_lines(result.store.directory / "calls.jsonl") if c.get("role") == "extractor"
    ]
    assert extractor and all(c["error"]["status"] == 500 for c in extractor)
    assert max(c["attempt"] for c in extractor) == 4  # the retry policy's bound, then CallFailed
    # Only the targets were called directly: no judge request bypassed its batch.
    assert all(r.body["model"] == "shopper-target" for r in direct_judge_calls)
