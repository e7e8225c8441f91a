"""xAI batches through the real `xai-sdk` (gRPC BatchMgmt service) against the in-process fake:
each added request equals the direct call's request under its custom id, the counts map onto the
contract's states, results (paged) come back matched by custom id, and item errors follow the
direct-call gRPC retry rules."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date

import pytest
from google.protobuf import json_format

from medeval.adapters.base import ProviderError
from medeval.adapters.batch import BatchOutcome, BatchStatus, supports_batch
from medeval.adapters.xai_api import XAIAdapter
from tests.servers.batches import BatchBook, ItemScript
from tests.servers.helpers import (
    SECRET,
    batch_items,
    batch_then_direct,
    leaks,
    matched,
    run_batch,
    submit_then_direct,
)
from tests.servers.xai_grpc import XAIServer

TODAY = date(2026, 11, 22)


@pytest.fixture
def server() -> Iterator[XAIServer]:
    with XAIServer(api_key=SECRET) as running:
        yield running


def adapter(server: XAIServer) -> XAIAdapter:
    return XAIAdapter("grok-4.3", api_key=SECRET, api_host=server.host, today=TODAY)


def test_each_added_request_is_the_direct_request_under_its_custom_id(server: XAIServer) -> None:
    subject = adapter(server)
    assert supports_batch(subject)
    batch = batch_items()

    submit_then_direct(subject, batch)
    (added,) = server.added
    assert [r.batch_request_id for r in added.batch_requests] == ["item-0", "item-1", "item-2"]
    directs = [call.request for call in server.calls if not isinstance(call.request, str)][-3:]
    for sent, direct in zip(added.batch_requests, directs, strict=True):
        assert json_format.MessageToDict(sent.completion_request) == json_format.MessageToDict(direct)
    assert added.batch_requests[1].completion_request.response_format.schema
    assert all(call.metadata.get("authorization") == "<redacted>" for call in server.calls)
    assert all(call.key_seen for call in server.calls)
    assert not leaks(SECRET, [(str(c.request), c.metadata) for c in server.calls])


def test_counts_map_to_states_and_a_held_batch_stays_in_progress() -> None:
    book = BatchBook(hold=True)
    with XAIServer(api_key=SECRET, book=book) as server:
        subject = adapter(server)

        async def scenario() -> tuple[BatchStatus, BatchStatus]:
            batch_id = await subject.batch_submit(batch_items(2))
            first = await subject.batch_status(batch_id)
            book.release(batch_id)
            second = await subject.batch_status(batch_id)
            await subject.aclose()
            return first, second

        first, second = asyncio.run(scenario())
    assert (first.state, first.provider_state, first.total, first.succeeded) == (
        "in_progress",
        "processing",
        2,
        0,
    )
    assert (second.state, second.provider_state, second.total, second.succeeded) == (
        "ended",
        "complete",
        2,
        2,
    )
    assert book.creations == 1


def test_paged_results_are_matched_by_custom_id_and_equal_a_direct_call(server: XAIServer) -> None:
    subject = adapter(server)
    batch = batch_items(5)  # three pages of two

    status, outcomes, directs = batch_then_direct(subject, batch)
    assert status.state == "ended" and status.succeeded == 5
    responses = matched(subject, batch, outcomes, directs)
    assert [o.custom_id for o in outcomes] == ["item-4", "item-3", "item-2", "item-1", "item-0"]
    assert all(r.response_id == f"xai-batch-{custom_id}" for custom_id, r in responses.items())
    first = responses["item-0"]
    assert first.sampling_sent == {
        "temperature": 0.0,
        "seed": 7,
        "max_output_tokens": 256,
    }
    assert first.fingerprint == "fp_xai_2026-11-01"


def test_partial_failure_follows_the_grpc_retry_rules(server: XAIServer) -> None:
    server.book.script("item-1", ItemScript.error(429, "rate limited"))
    server.book.script("item-2", ItemScript.error(400, "bad schema"))
    server.book.script("item-3", ItemScript("expired"))
    server.book.script("item-4", ItemScript("canceled"))
    subject = adapter(server)

    async def scenario() -> tuple[BatchStatus, list[BatchOutcome]]:
        result = await run_batch(subject, batch_items(5))
        await subject.aclose()
        return result

    status, outcomes = asyncio.run(scenario())
    assert (status.succeeded, status.failed) == (1, 4)
    errors = {o.custom_id: o.error for o in outcomes if o.error is not None}
    assert {k: (e.status, e.retryable) for k, e in errors.items()} == {
        "item-1": ("RESOURCE_EXHAUSTED", True),
        "item-2": ("INVALID_ARGUMENT", False),
        "item-3": ("DEADLINE_EXCEEDED", True),
        "item-4": ("batch_canceled", True),
    }


def test_a_cancelled_or_expired_batch_maps_and_keeps_what_finished() -> None:
    book = BatchBook(hold=True)
    with XAIServer(api_key=SECRET, book=book) as server:
        subject = adapter(server)

        async def scenario() -> list[tuple[str, list[BatchOutcome]]]:
            ended = []
            for state in ("cancelled", "expired"):
                batch_id = await subject.batch_submit(batch_items(2))
                book.end_as(batch_id, state)  # type: ignore[arg-type]
                status = await subject.batch_status(batch_id)
                ended.append((status.state, await subject.batch_results(batch_id)))
            await subject.aclose()
            return ended

        (cancelled_state, cancelled), (expired_state, expired) = asyncio.run(scenario())
    assert (cancelled_state, expired_state) == ("cancelled", "ended")
    assert all(o.error is not None and o.error.retryable for o in cancelled + expired)


def test_failed_creation_and_failed_add_are_provider_errors_and_cancel_the_batch(server: XAIServer) -> None:
    server.book.refuse_next_creation(429, "too many batches")
    subject = adapter(server)

    async def attempt() -> ProviderError:
        with pytest.raises(ProviderError) as caught:
            await subject.batch_submit(batch_items(1))
        return caught.value

    async def scenario() -> list[ProviderError]:
        errors = [await attempt()]
        server.fail_adds = 1
        errors.append(await attempt())
        await subject.aclose()
        return errors

    refused, bad_add = asyncio.run(scenario())
    assert (refused.status, refused.retryable) == ("RESOURCE_EXHAUSTED", True)
    assert (bad_add.status, bad_add.retryable) == ("INVALID_ARGUMENT", False)
    # the half-made batch was cancelled, so nothing runs on unwatched
    assert server.cancels == [server.book.only.batch_id]
    assert server.book.only.state == "cancelled"


def test_an_unknown_batch_is_a_provider_error(server: XAIServer) -> None:
    subject = adapter(server)

    async def scenario() -> ProviderError:
        with pytest.raises(ProviderError) as caught:
            await subject.batch_status("batch_nope")
        await subject.aclose()
        return caught.value

    error = asyncio.run(scenario())
    assert error.status == "NOT_FOUND" and not error.retryable
