"""Gemini batch mode through the real `google-genai` SDK against the loopback batch server:
what is submitted per item equals what a direct call sends, states map onto the contract, results
come back matched by custom id in any order, and item failures follow the direct-call retry rules."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest

from medeval.adapters.base import ProviderError
from medeval.adapters.batch import BatchOutcome, supports_batch
from medeval.adapters.google_api import GoogleAdapter
from medeval.testing.loopback import LoopbackServer
from tests.servers.batches import BatchBook, ItemScript
from tests.servers.gemini_server import gemini_dialect
from tests.servers.helpers import (
    SECRET,
    batch_items,
    batch_then_direct,
    collect,
    leaks,
    matched,
    run_batch,
    submit_then_direct,
)

TODAY = date(2026, 11, 22)


@pytest.fixture
def book() -> BatchBook:
    return BatchBook()


@pytest.fixture
def server(book: BatchBook) -> Iterator[LoopbackServer]:
    with LoopbackServer(gemini_dialect(book), api_key=SECRET) as running:
        yield running


def adapter(server: LoopbackServer) -> GoogleAdapter:
    return GoogleAdapter("gemini-3.8-flash", api_key=SECRET, base_url=server.url, today=TODAY)


def test_each_item_sends_the_direct_calls_body_under_its_custom_id(server: LoopbackServer) -> None:
    subject = adapter(server)
    assert supports_batch(subject)
    batch = batch_items()

    submit_then_direct(subject, batch)
    start, upload, created, *directs = server.requests
    assert (start.method, start.path) == ("POST", "/upload/v1beta/files")
    assert upload.query.startswith("upload_id=") and "finalize" in upload.headers["x-goog-upload-command"]
    assert (created.method, created.path) == ("POST", "/v1beta/models/gemini-3.8-flash:batchGenerateContent")
    assert created.body["batch"]["inputConfig"] == {"fileName": "files/upload1"}
    assert start.headers["x-goog-api-key"] == created.headers["x-goog-api-key"] == "<redacted>"
    assert upload.key_header is None  # the upload session URL is that leg's credential
    lines = [json.loads(line) for line in (upload.raw or b"").decode().splitlines()]
    assert [line["key"] for line in lines] == ["item-0", "item-1", "item-2"]
    for line, direct in zip(lines, directs, strict=True):
        assert direct.path == "/v1beta/models/gemini-3.8-flash:generateContent"
        assert line["request"] == direct.body
    assert lines[1]["request"]["generationConfig"]["responseMimeType"] == "application/json"
    assert "responseMimeType" not in lines[0]["request"]["generationConfig"]
    assert "METADATA-MUST-NOT-BE-SENT" not in (upload.raw or b"").decode()
    assert not leaks(SECRET, [r.model_dump() for r in server.requests], [r.raw for r in server.requests])


def test_states_map_and_a_held_batch_stays_in_progress_until_released() -> None:
    book = BatchBook(hold=True)
    with LoopbackServer(gemini_dialect(book), api_key=SECRET) as server:
        subject = adapter(server)

        async def scenario() -> tuple[Any, Any]:
            batch_id = await subject.batch_submit(batch_items(2))
            first = await subject.batch_status(batch_id)
            book.release(batch_id)
            return first, await subject.batch_status(batch_id)

        first, second = asyncio.run(scenario())
    assert (first.state, first.provider_state, first.total, first.succeeded) == (
        "in_progress",
        "JOB_STATE_RUNNING",
        2,
        0,
    )
    assert (second.state, second.provider_state, second.total, second.succeeded) == (
        "ended",
        "JOB_STATE_SUCCEEDED",
        2,
        2,
    )
    assert book.creations == 1


def test_results_are_matched_by_custom_id_and_equal_a_direct_call(
    server: LoopbackServer, book: BatchBook
) -> None:
    subject = adapter(server)
    batch = batch_items(4)

    status, outcomes, directs = batch_then_direct(subject, batch)
    assert status.state == "ended" and status.succeeded == 4
    responses = matched(subject, batch, outcomes, directs)
    assert [o.custom_id for o in outcomes] == ["item-3", "item-2", "item-1", "item-0"]
    assert all(r.raw["modelVersion"] == "gemini-3.8-flash-2026-11-01" for r in responses.values())
    assert responses["item-0"].sampling_sent == {"temperature": 0.0, "seed": 7, "max_output_tokens": 256}


def test_partial_failure_follows_the_direct_retry_rules(server: LoopbackServer, book: BatchBook) -> None:
    book.script("item-1", ItemScript.error(429, "rate limited"))
    book.script("item-2", ItemScript.error(400, "messages: roles must alternate"))
    book.script("item-3", ItemScript.error(503, "The service is unavailable"))
    book.script("item-4", ItemScript("missing"))
    status, outcomes = asyncio.run(run_batch(adapter(server), batch_items(5)))
    assert (status.succeeded, status.failed) == (1, 3)
    by_id = {o.custom_id: o for o in outcomes}
    assert set(by_id) == {"item-0", "item-1", "item-2", "item-3"}  # item-4 is the engine's to retry
    assert by_id["item-0"].response is not None
    failures = {k: by_id[k].error for k in ("item-1", "item-2", "item-3")}
    assert all(isinstance(e, ProviderError) for e in failures.values())
    assert [(e.status, e.retryable) for e in failures.values() if e] == [
        (429, True),
        (400, False),
        (503, True),
    ]
    assert "roles must alternate" in str(failures["item-2"])


def test_expired_and_cancelled_items_are_retryable_failures() -> None:
    book = BatchBook(hold=True)
    with LoopbackServer(gemini_dialect(book), api_key=SECRET) as server:
        subject = adapter(server)

        async def scenario() -> list[tuple[str, list[BatchOutcome]]]:
            ended = []
            for state in ("expired", "cancelled"):
                batch_id = await subject.batch_submit(batch_items(2))
                book.end_as(batch_id, state)  # type: ignore[arg-type]
                status = await subject.batch_status(batch_id)
                ended.append((status.state, await subject.batch_results(batch_id)))
            return ended

        (expired_state, expired), (cancelled_state, cancelled) = asyncio.run(scenario())
    assert expired_state == "expired" and cancelled_state == "cancelled"
    for outcome in expired + cancelled:
        assert outcome.response is None and outcome.error is not None and outcome.error.retryable
    assert {o.error.status for o in expired if o.error} == {504}
    assert {o.error.status for o in cancelled if o.error} == {"batch_canceled"}


def test_a_refused_submission_is_a_provider_error(server: LoopbackServer, book: BatchBook) -> None:
    book.refuse_next_creation(400, "requests: too many requests in one batch")
    book.refuse_next_creation(429, "Quota exceeded")
    subject = adapter(server)

    async def attempt() -> ProviderError:
        with pytest.raises(ProviderError) as caught:
            await subject.batch_submit(batch_items(1))
        return caught.value

    async def scenario() -> list[ProviderError]:
        return [await attempt(), await attempt()]

    bad, busy = asyncio.run(scenario())
    assert "too many requests" in str(bad)
    assert bad.status == 400 and not bad.retryable
    assert busy.status == 429 and busy.retryable
    assert book.creations == 0


def test_an_unknown_batch_is_a_provider_error(server: LoopbackServer) -> None:
    with pytest.raises(ProviderError) as caught:
        asyncio.run(adapter(server).batch_status("batches/nope"))
    assert caught.value.status == 404 and not caught.value.retryable


def test_a_results_read_of_a_fresh_adapter_still_matches_by_custom_id(server: LoopbackServer) -> None:
    # A resumed run re-attaches with a new adapter: the reply is intact, matched by custom id.
    batch_id = asyncio.run(adapter(server).batch_submit(batch_items(2)))
    fresh = adapter(server)

    _, outcomes = asyncio.run(collect(fresh, batch_id))
    assert sorted(o.custom_id for o in outcomes) == ["item-0", "item-1"]
    assert all(o.response is not None and o.response.text for o in outcomes)
    assert not leaks(SECRET, [r.model_dump() for r in server.requests])


def test_a_failed_job_reads_as_failed_with_no_results() -> None:
    book = BatchBook(hold=True)
    with LoopbackServer(gemini_dialect(book), api_key=SECRET) as server:
        subject = adapter(server)

        async def scenario() -> tuple[Any, list[BatchOutcome]]:
            batch_id = await subject.batch_submit(batch_items(2))
            book.end_as(batch_id, "failed")
            return await subject.batch_status(batch_id), await subject.batch_results(batch_id)

        status, outcomes = asyncio.run(scenario())
    assert (status.state, status.provider_state) == ("failed", "JOB_STATE_FAILED")
    assert outcomes == []  # every item is then the engine's to retry as missing


@pytest.mark.parametrize("echo_keys", [True, False])
def test_inline_output_is_matched_by_its_key_and_never_by_position(echo_keys: bool) -> None:
    book = BatchBook()
    with LoopbackServer(
        gemini_dialect(book, inline_output=True, echo_keys=echo_keys), api_key=SECRET
    ) as server:
        subject = adapter(server)

        async def scenario() -> list[BatchOutcome]:
            batch_id = await subject.batch_submit(batch_items(3))
            await subject.batch_status(batch_id)
            return await subject.batch_results(batch_id)

        outcomes = asyncio.run(scenario())
    if echo_keys:
        assert [o.custom_id for o in outcomes] == ["item-2", "item-1", "item-0"]
        assert all(o.response is not None and o.response.text for o in outcomes)
    else:
        assert outcomes == []
