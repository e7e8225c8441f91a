"""Anthropic Message Batches through the real `anthropic` SDK against the loopback batch server:
what is submitted per item equals what a direct call sends, states map onto the contract, results
come back matched by custom id in any order, and item failures follow the direct-call retry rules."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest

from medeval.adapters.anthropic_api import AnthropicAdapter
from medeval.adapters.base import ProviderError
from medeval.adapters.batch import BatchOutcome, supports_batch
from medeval.testing.loopback import LoopbackServer
from tests.servers.anthropic_server import anthropic_dialect
from tests.servers.batches import BatchBook, ItemScript
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
    with LoopbackServer(anthropic_dialect(book), api_key=SECRET) as running:
        yield running


def adapter(server: LoopbackServer) -> AnthropicAdapter:
    return AnthropicAdapter("claude-sonnet-5-5", api_key=SECRET, base_url=server.url, today=TODAY)


def test_each_item_sends_the_direct_calls_body_under_its_custom_id(server: LoopbackServer) -> None:
    subject = adapter(server)
    assert supports_batch(subject)
    batch = batch_items()

    submit_then_direct(subject, batch)
    created, *directs = server.requests
    assert (created.method, created.path) == ("POST", "/v1/messages/batches")
    assert created.headers["authorization"] == "Bearer <redacted>"
    submitted = created.body["requests"]
    assert [r["custom_id"] for r in submitted] == ["item-0", "item-1", "item-2"]
    for sent, direct in zip(submitted, directs, strict=True):
        assert direct.path == "/v1/messages"
        assert sent["params"] == direct.body
    assert "output_config" in submitted[1]["params"] and "output_config" not in submitted[0]["params"]
    assert not leaks(SECRET, [r.model_dump() for r in server.requests])


def test_states_map_and_a_held_batch_stays_in_progress_until_released() -> None:
    book = BatchBook(hold=True)
    with LoopbackServer(anthropic_dialect(book), api_key=SECRET) as server:
        subject = adapter(server)

        async def scenario() -> tuple[Any, Any]:
            batch_id = await subject.batch_submit(batch_items(2))
            first = await subject.batch_status(batch_id)
            book.release(batch_id)
            return first, await subject.batch_status(batch_id)

        first, second = asyncio.run(scenario())
    assert (first.state, first.provider_state, first.total, first.succeeded) == (
        "in_progress",
        "in_progress",
        2,
        0,
    )
    assert (second.state, second.provider_state, second.total, second.succeeded) == ("ended", "ended", 2, 2)
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
    for custom_id, response in responses.items():
        assert response.response_id == f"msg_loopback_{custom_id}"
        assert response.raw["usage"]["service_tier"] == "batch"
    assert responses["item-0"].sampling_sent == {"max_output_tokens": 256}
    assert set(responses["item-0"].sampling_dropped) == {"temperature", "seed"}


def test_partial_failure_follows_the_direct_retry_rules(server: LoopbackServer, book: BatchBook) -> None:
    book.script("item-1", ItemScript.error(429, "rate limited"))
    book.script("item-2", ItemScript.error(400, "messages: roles must alternate"))
    book.script("item-3", ItemScript.error(529, "Overloaded"))
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
        (529, True),
    ]
    assert "roles must alternate" in str(failures["item-2"])


def test_expired_and_cancelled_items_are_retryable_failures() -> None:
    book = BatchBook(hold=True)
    with LoopbackServer(anthropic_dialect(book), api_key=SECRET) as server:
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
    assert expired_state == "ended" and cancelled_state == "cancelled"
    for outcome in expired + cancelled:
        assert outcome.response is None and outcome.error is not None and outcome.error.retryable
    assert {o.error.status for o in expired if o.error} == {"batch_expired"}
    assert {o.error.status for o in cancelled if o.error} == {"batch_canceled"}


def test_a_refused_submission_is_a_provider_error(server: LoopbackServer, book: BatchBook) -> None:
    book.refuse_next_creation(400, "requests: too many requests in one batch")
    book.refuse_next_creation(529, "Overloaded")
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
    assert busy.status == 529 and busy.retryable
    assert book.creations == 0


def test_an_unknown_batch_is_a_provider_error(server: LoopbackServer) -> None:
    with pytest.raises(ProviderError) as caught:
        asyncio.run(adapter(server).batch_status("msgbatch_nope"))
    assert caught.value.status == 404 and not caught.value.retryable


def test_a_results_read_of_a_fresh_adapter_still_matches_by_custom_id(server: LoopbackServer) -> None:
    # A resumed run re-attaches with a new adapter: the reply is intact, matched by custom id.
    batch_id = asyncio.run(adapter(server).batch_submit(batch_items(2)))
    fresh = adapter(server)

    _, outcomes = asyncio.run(collect(fresh, batch_id))
    assert sorted(o.custom_id for o in outcomes) == ["item-0", "item-1"]
    assert all(o.response is not None and o.response.text for o in outcomes)
    assert not leaks(SECRET, [r.model_dump() for r in server.requests])
