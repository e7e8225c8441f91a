"""Batch judging in the engine (issue 16: 1): judge roles through provider batches, offline with
the fake judges' in-process batch API."""

from __future__ import annotations

import asyncio
import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from medeval.adapters.base import ChatRequest, ChatResponse, Message, ModelAPI, ProviderError
from medeval.adapters.batch import BatchAPI, BatchItem, BatchOutcome, BatchStatus
from medeval.adapters.retry import RetryPolicy
from medeval.calls import cost
from medeval.calls.batching import BatchSettings, unanswered_submissions
from medeval.calls.batching.batcher import BatchFallbackWarning, BatchResubmitWarning
from medeval.calls.gateway import CallContext, CallFailed, Gateway
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import build_gateway, execute
from medeval.fakes.provider import FakeJudge
from medeval.records.audit import verify_run
from tests.engine_support import (
    FOLLOWUP,
    SCENARIO_001,
    HeldBatchJudge,
    batch_events,
    judged_trials,
    only_run,
    settle,
    strict_lines,
)

ON = BatchSettings(enabled=True, idle_seconds=1.0, poll_seconds=60.0)


def fake_config(out: Path, **overrides: Any) -> RunConfig:
    values: dict[str, Any] = {
        "scenarios": [SCENARIO_001, FOLLOWUP],
        "targets": ["fake:accurate"],
        "judges": ["fake:judge"],
        "out": out,
        "epochs": 2,
        "cache": "off",
        **overrides,
    }
    return RunConfig(**values)


def run_with(config: RunConfig, adapters: dict[str, ModelAPI] | None = None, **kwargs: Any) -> Path:
    gateway = build_gateway(config, adapters=adapters, sleep=settle)
    result = asyncio.run(execute(config, gateway, **kwargs))
    return result.store.directory


def run_killed(config: RunConfig, judge: ModelAPI, reached: asyncio.Event, turns: int = 0) -> None:
    """Run until the judge signals `reached` (and `turns` more event-loop turns), then kill the run
    with its batch work where it stands."""

    async def killed() -> None:
        gateway = build_gateway(config, adapters={"fake:judge": judge}, sleep=settle)
        task = asyncio.create_task(execute(config, gateway))
        await reached.wait()
        for _ in range(turns):
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(killed())


# -- whole runs ---------------------------------------------------------------------------------


def test_batched_run_gives_the_same_trials_as_a_direct_run(tmp_path: Path) -> None:
    # fake:batch-flaky breaks ties (like fake:judge, but each request fails in its first batch).
    direct = run_with(fake_config(tmp_path / "direct", adjudicator="fake:batch-flaky"))
    batched = run_with(fake_config(tmp_path / "batch", adjudicator="fake:batch-flaky", batch=ON))
    assert judged_trials(batched) == judged_trials(direct)
    calls = strict_lines(batched / "calls.jsonl")
    judged = [c for c in calls if c.get("role") in ("extractor", "verifier", "adjudicator")]
    assert {c["role"] for c in judged} == {"extractor", "verifier", "adjudicator"}
    assert all(c.get("batch_id") for c in judged)
    assert all("batch_id" not in c for c in calls if c.get("role") == "target")
    submitted = batch_events(batched, "batch_submitted")
    collected = batch_events(batched, "batch_collected")
    assert submitted and {e["batch_id"] for e in submitted} == {e["batch_id"] for e in collected}
    # Each item's call record names a batch that was submitted with its custom id.
    ids = {e["batch_id"]: set(e["custom_ids"]) for e in submitted}
    assert all(c["custom_id"] in ids[c["batch_id"]] for c in judged)
    assert [f for f in verify_run(batched) if f.severity == "error"] == []


def test_summary_and_manifest_record_batching(tmp_path: Path) -> None:
    import json

    run_dir = run_with(fake_config(tmp_path, batch=ON, epochs=1))
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["config"]["batch"]["enabled"] is True
    assert manifest["batching"] == {"fake:judge": "batch"}
    summary = json.loads((run_dir / "summary.json").read_text())
    calls = [c for c in strict_lines(run_dir / "calls.jsonl") if "event" not in c]
    assert summary["calls"]["records"] == len(calls)  # event lines are not calls
    assert summary["batches"]["submitted"] == summary["batches"]["collected"] >= 1


def test_waiting_trials_give_their_slot_up_so_one_batch_holds_every_trial(tmp_path: Path) -> None:
    # One trial at a time: were a trial to keep its slot while its extractor request waits, each
    # batch would hold one trial's requests. Given up, the first batch holds every trial's.
    run_dir = run_with(fake_config(tmp_path, batch=ON, max_concurrency=1))
    first = batch_events(run_dir, "batch_submitted")[0]["batch_id"]
    calls = strict_lines(run_dir / "calls.jsonl")
    trials = {c["trial_id"] for c in calls if c.get("role") == "target"}
    in_first = {c["trial_id"] for c in calls if c.get("batch_id") == first and "event" not in c}
    assert len(trials) == 4 and in_first == trials


def test_failed_items_are_retried_alone_in_a_later_batch(tmp_path: Path) -> None:
    direct = run_with(fake_config(tmp_path / "direct", epochs=1))
    run_dir = run_with(fake_config(tmp_path / "batch", epochs=1, judges=["fake:batch-flaky"], batch=ON))
    assert judged_trials(run_dir).keys() == judged_trials(direct).keys()
    assert [g["groups"] for g in judged_trials(run_dir).values()] == [
        g["groups"] for g in judged_trials(direct).values()
    ]
    submitted = batch_events(run_dir, "batch_submitted")
    calls = [c for c in strict_lines(run_dir / "calls.jsonl") if c.get("role") in ("extractor", "verifier")]
    failed = [c for c in calls if "error" in c]
    assert failed and all(c["attempt"] == 1 and c["error"]["retryable"] for c in failed)
    # Each retried request succeeded at attempt 2, in a batch other than its first.
    by_call = {c["call_id"]: c for c in calls if "response" in c}
    for failure in failed:
        success = by_call[failure["call_id"]]
        assert success["attempt"] == 2 and success["batch_id"] != failure["batch_id"]
    # Every request rode in exactly two batches: the one it failed in, and one it succeeded in;
    # no request that had succeeded was ever sent again.
    rides: dict[str, int] = {}
    for event in submitted:
        for custom_id in event["custom_ids"]:
            rides[custom_id] = rides.get(custom_id, 0) + 1
    assert set(rides.values()) == {2} and len(rides) == len(failed)


def test_a_provider_without_a_batch_api_goes_direct_with_one_warning(tmp_path: Path) -> None:
    class DirectOnly(ModelAPI):
        provider = "fake"

        def __init__(self) -> None:
            super().__init__("judge")
            self.inner = FakeJudge("judge")

        async def generate(self, request: ChatRequest) -> ChatResponse:
            return await self.inner.generate(request)

    config = fake_config(tmp_path, batch=ON)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_dir = run_with(config, adapters={"fake:judge": DirectOnly()})
    fallbacks = [w for w in caught if issubclass(w.category, BatchFallbackWarning)]
    assert len(fallbacks) == 1 and "fake:judge" in str(fallbacks[0].message)
    assert batch_events(run_dir) == []
    import json

    assert json.loads((run_dir / "manifest.json").read_text())["batching"] == {
        "fake:judge": "direct (no batch API)"
    }


# -- resume -------------------------------------------------------------------------------------


def test_a_resumed_run_waits_for_its_batch_in_flight_instead_of_submitting_it_again(tmp_path: Path) -> None:
    direct = run_with(fake_config(tmp_path / "direct"))
    judge = HeldBatchJudge()
    judge.held = True
    config = fake_config(tmp_path / "batch", batch=ON)

    run_killed(config, judge, judge.submitted, turns=50)  # the run dies with its batch at the provider
    run_dir = only_run(tmp_path / "batch")
    in_flight = batch_events(run_dir, "batch_submitted")
    assert len(in_flight) == 1 and batch_events(run_dir, "batch_collected") == []
    first = set(in_flight[0]["custom_ids"])
    assert not (run_dir / "results.jsonl").exists() or strict_lines(run_dir / "results.jsonl") == []

    judge.held = False  # the provider finishes the batch while nothing runs
    run_with(config, adapters={"fake:judge": judge}, resume=run_dir)
    assert len(judge.submissions) >= 2
    assert all(not (set(ids) & first) for ids in judge.submissions[1:]), "a request was paid for twice"
    assert {e["batch_id"] for e in batch_events(run_dir, "batch_collected")} >= {in_flight[0]["batch_id"]}
    assert judged_trials(run_dir) == judged_trials(direct)
    assert [f for f in verify_run(run_dir) if f.severity == "error"] == []


def test_judges_waiting_in_batches_count_toward_max_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A trial gives up its slot while its judges wait in a batch, so the next trials start before
    # anything is charged: the waiting requests' estimated price must hold the --max-cost line.
    prices = {
        "as_of": "2026-11-01",
        "currency": "USD",
        "unit": "dollars per million tokens",
        "models": {
            "fake:judge": {"input": 100_000.0, "output": 0.0, "status": "placeholder"},
            "fake:*": {"input": 0.0, "output": 0.0, "status": "placeholder"},
        },
    }
    (tmp_path / "prices.json").write_text(json.dumps(prices), encoding="utf-8")
    monkeypatch.setenv("MEDEVAL_PRICES", str(tmp_path / "prices.json"))
    # The up-front estimate is made nil, so it is the running ceiling that is tested.
    monkeypatch.setattr(cost, "TYPICAL_INPUT_TOKENS", 0)
    monkeypatch.setattr(cost, "TYPICAL_OUTPUT_TOKENS", 0)
    config = fake_config(tmp_path / "runs", epochs=4, max_concurrency=1, max_cost=1.0, batch=ON)
    gateway = build_gateway(config, sleep=settle)
    result = asyncio.run(execute(config, gateway))
    assert result.outcome == "max_cost"
    assert len(strict_lines(result.store.directory / "results.jsonl")) < 8  # 2 scenarios x 4 epochs
    assert gateway.meter is not None and gateway.meter.pending == 0.0  # every hold was released


class StuckSubmission(FakeJudge):
    """A provider that never answers a batch submission: the run is killed while it takes it."""

    def __init__(self) -> None:
        super().__init__("judge")
        self.reached = asyncio.Event()

    async def batch_submit(self, items: list[BatchItem]) -> str:
        self.reached.set()
        await asyncio.Event().wait()  # until the run is cancelled
        raise AssertionError("unreachable")


def test_a_kill_during_submission_is_named_on_resume_and_the_requests_go_again(tmp_path: Path) -> None:
    direct = run_with(fake_config(tmp_path / "direct", epochs=1))
    stuck = StuckSubmission()
    config = fake_config(tmp_path / "batch", epochs=1, batch=ON)

    run_killed(config, stuck, stuck.reached)
    run_dir = only_run(tmp_path / "batch")
    begun = batch_events(run_dir, "batch_submitting")
    assert begun and batch_events(run_dir, "batch_submitted") == []
    interrupted = {c for line in begun for c in line["custom_ids"]}
    with pytest.warns(
        BatchResubmitWarning, match=r"were being submitted to fake:judge.*paid twice"
    ) as caught:
        run_with(config, resume=run_dir)
    # Every interrupted request is judged again here, so the exact count is all of them.
    counts = [int(str(w.message).split()[0]) for w in caught if w.category is BatchResubmitWarning]
    assert sum(counts) == len(interrupted)
    assert judged_trials(run_dir) == judged_trials(direct)
    # The resumed session sent the same requests and the provider answered: nothing is left open.
    assert unanswered_submissions(strict_lines(run_dir / "calls.jsonl")) == {}


def test_a_batch_the_provider_no_longer_knows_is_sent_again_on_resume(tmp_path: Path) -> None:
    # The fake's batches live in its process: after a kill, a resumed run's provider has never
    # heard of them (as a real provider past its retention). The requests go again.
    direct = run_with(fake_config(tmp_path / "direct", epochs=1))
    judge = HeldBatchJudge()
    judge.held = True
    config = fake_config(tmp_path / "batch", epochs=1, batch=ON)

    run_killed(config, judge, judge.submitted)
    run_dir = only_run(tmp_path / "batch")
    fresh = HeldBatchJudge()
    run_with(config, adapters={"fake:judge": fresh}, resume=run_dir)
    assert batch_events(run_dir, "batch_abandoned")
    assert set(fresh.submissions[0]) >= set(judge.submissions[0])
    assert judged_trials(run_dir) == judged_trials(direct)


# -- the batcher and gateway alone --------------------------------------------------------------


class Scripted(ModelAPI, BatchAPI):
    """A batch API whose items fail as scripted (custom id -> errors to give, in order)."""

    provider = "fake"

    def __init__(self, failures: dict[str, list[ProviderError]] | None = None) -> None:
        super().__init__("scripted")
        self.failures = failures or {}
        self.batches: dict[str, list[BatchItem]] = {}

    async def generate(self, request: ChatRequest) -> ChatResponse:
        raise AssertionError("a batched request was sent directly")

    async def batch_submit(self, items: list[BatchItem]) -> str:
        batch_id = f"b{len(self.batches) + 1}"
        self.batches[batch_id] = items
        return batch_id

    async def batch_status(self, batch_id: str) -> BatchStatus:
        return BatchStatus(batch_id=batch_id, state="ended", provider_state="completed")

    async def batch_results(self, batch_id: str) -> list[BatchOutcome]:
        out = []
        for item in reversed(self.batches[batch_id]):  # any order: matched by custom id
            errors = self.failures.get(item.request.messages[0].content, [])
            if errors:
                out.append(BatchOutcome(item.custom_id, error=errors.pop(0)))
            else:
                text = "echo " + item.request.messages[0].content
                out.append(
                    BatchOutcome(item.custom_id, response=ChatResponse(text=text, requested_model="scripted"))
                )
        return out


def _request(text: str) -> ChatRequest:
    return ChatRequest(system="s", messages=[Message(role="user", content=text)])


def _ctx(role: str = "verifier") -> CallContext:
    return CallContext(run_id="r", trial_id="t", role=role, epoch=1)


def _gateway(api: Scripted, settings: BatchSettings, records: list[dict[str, Any]], **kw: Any) -> Gateway:
    return Gateway(records.append, adapters={"fake:scripted": api}, sleep=settle, batch=settings, **kw)


def test_a_full_batch_is_sent_at_once_and_the_rest_after_the_idle_window() -> None:
    api, records = Scripted(), []
    slept: list[float] = []

    async def sleeper(seconds: float) -> None:
        slept.append(seconds)
        await settle(seconds)

    async def go() -> list[str]:
        gateway = Gateway(
            records.append,
            adapters={"fake:scripted": api},
            sleep=sleeper,
            batch=BatchSettings(enabled=True, max_items=2, idle_seconds=7.0, poll_seconds=3.0),
        )
        out = await asyncio.gather(
            *(gateway.complete("fake:scripted", _request(f"q{i}"), _ctx()) for i in range(3))
        )
        await gateway.aclose()
        return [r.text for r in out]

    assert asyncio.run(go()) == ["echo q0", "echo q1", "echo q2"]
    assert [len(items) for items in api.batches.values()] == [2, 1]
    assert 7.0 in slept  # the third request waited out the idle window


def test_only_failed_items_are_retried_and_a_final_failure_is_call_failed() -> None:
    flaky = ProviderError("overloaded", retryable=True, status=500)
    broken = ProviderError("bad request", retryable=False, status=400)
    api = Scripted({"q1": [flaky], "q2": [broken], "q3": [flaky, flaky, flaky]})
    records: list[dict[str, Any]] = []

    async def go() -> list[Any]:
        gateway = _gateway(api, ON, records, retry=RetryPolicy(max_attempts=3))
        calls = [gateway.complete("fake:scripted", _request(f"q{i}"), _ctx()) for i in range(4)]
        out = await asyncio.gather(*calls, return_exceptions=True)
        await gateway.aclose()
        return out

    q0, q1, q2, q3 = asyncio.run(go())
    assert q0.text == "echo q0" and q1.text == "echo q1"
    assert isinstance(q2, CallFailed) and q2.attempts == 1  # not retryable: no second batch
    assert isinstance(q3, CallFailed) and q3.attempts == 3  # bounded by the retry policy
    contents = [sorted(i.request.messages[0].content for i in items) for items in api.batches.values()]
    assert contents == [["q0", "q1", "q2", "q3"], ["q1", "q3"], ["q3"]]
    calls = [r for r in records if "event" not in r]
    assert all(r.get("batch_id") for r in calls)
    assert sum("response" in r for r in calls) == 2


def test_target_and_questioner_calls_stay_direct() -> None:
    api, records = Scripted(), []

    async def go() -> None:
        gateway = _gateway(api, ON, records)
        with pytest.raises(CallFailed, match="sent directly"):
            await gateway.complete("fake:scripted", _request("hi"), _ctx("target"))
        await gateway.aclose()

    asyncio.run(go())
    assert api.batches == {}


def test_custom_ids_are_deterministic_and_follow_the_epoch() -> None:
    async def ids() -> list[str]:
        api, records = Scripted(), []
        gateway = _gateway(api, ON, records)
        await gateway.complete("fake:scripted", _request("q"), _ctx())
        other_epoch = CallContext(run_id="r2", trial_id="t2", role="verifier", epoch=2)
        await gateway.complete("fake:scripted", _request("q"), other_epoch)
        await gateway.aclose()
        return [i.custom_id for items in api.batches.values() for i in items]

    first, second = asyncio.run(ids()), asyncio.run(ids())
    assert first == second and len(set(first)) == 2


# -- the command line ---------------------------------------------------------------------------


def test_run_with_batch_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.review_support import cli

    code, _, _ = cli(
        monkeypatch, capsys, "run", "--scenario", str(SCENARIO_001), "--target", "fake:accurate",
        "--judge", "fake:judge", "--judge", "fake:flaky", "--out", str(tmp_path), "--batch",
        "--batch-idle", "0", "--batch-size", "50", "-q",
    )  # fmt: skip
    assert code == 0
    run_dir = only_run(tmp_path)
    import json

    config = json.loads((run_dir / "manifest.json").read_text())["config"]["batch"]
    assert config == {"enabled": True, "max_items": 50, "idle_seconds": 0.0, "poll_seconds": 30.0}
    assert batch_events(run_dir, "batch_collected")


def test_batch_options_without_batch_are_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.review_support import cli

    code, _, err = cli(
        monkeypatch, capsys, "run", "--scenario", str(SCENARIO_001), "--target", "fake:accurate",
        "--out", str(tmp_path), "--batch-poll", "5",
    )  # fmt: skip
    assert code != 0 and "--batch-poll only applies with --batch" in err
    assert "Traceback" not in err and not tmp_path.joinpath("runs").exists()


def test_rescore_with_batch_gives_the_same_trials(tmp_path: Path) -> None:
    from medeval.engine.rescore import rescore

    source = run_with(fake_config(tmp_path / "source", judges=["rules"], epochs=1))
    direct = rescore(source, ["fake:judge"], out=tmp_path / "direct").store.directory
    fast = BatchSettings(enabled=True, idle_seconds=0.0)
    batched = rescore(source, ["fake:judge"], out=tmp_path / "batched", batch=fast).store.directory
    assert judged_trials(batched) == judged_trials(direct)
    assert batch_events(batched, "batch_collected") and batch_events(direct) == []


def test_export_and_report_read_a_batched_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import csv

    from tests.review_support import cli

    run_dir = run_with(fake_config(tmp_path / "runs", batch=ON, epochs=1))
    code, _, err = cli(
        monkeypatch, capsys, "export", str(run_dir), "--format", "csv", "--out", str(tmp_path / "x")
    )
    assert code == 0, err
    with (tmp_path / "x" / "calls.csv").open(encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    records = [c for c in strict_lines(run_dir / "calls.jsonl") if "event" not in c]
    assert len(rows) == len(records) and all(r["role"] for r in rows)
    assert {r["batch_id"] for r in rows if r["role"] == "verifier"} <= {
        e["batch_id"] for e in batch_events(run_dir, "batch_submitted")
    }
    code, _, err = cli(monkeypatch, capsys, "report", str(run_dir))
    assert code == 0, err
    usage = (run_dir / "report" / "report.md").read_text(encoding="utf-8")
    assert "fake:judge" in usage
