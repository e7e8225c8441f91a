"""Shared bits of the adapter tests: a Gateway that never sleeps and records into a list."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from medeval.adapters.base import ChatRequest, ChatResponse, Message, ModelAPI, OutputSchema, Sampling
from medeval.adapters.batch import BatchAPI, BatchItem, BatchOutcome, BatchStatus
from medeval.adapters.retry import RetryPolicy
from medeval.calls.gateway import CallContext, Gateway

SECRET = "sk-test-SECRET-4f9a2c"
CTX = CallContext(run_id="run", trial_id="trial", role="target")


async def no_sleep(seconds: float) -> None:
    del seconds


def recording_gateway(adapter: ModelAPI, max_attempts: int = 4) -> tuple[Gateway, list[dict[str, Any]]]:
    calls: list[dict[str, Any]] = []
    gateway = Gateway(
        calls.append,
        adapters={adapter.spec: adapter},
        retry=RetryPolicy(max_attempts=max_attempts),
        sleep=no_sleep,
    )
    return gateway, calls


def chat(
    text: str = "When can I enroll in Part B?",
    *,
    system: str = "You are a helpful assistant.",
    temperature: float | None = 0.0,
    top_p: float | None = None,
    seed: int | None = 7,
    schema: OutputSchema | None = None,
) -> ChatRequest:
    return ChatRequest(
        system=system,
        messages=[
            Message(role="user", content="Hi, I'm turning 65."),
            Message(role="assistant", content="Happy to help."),
            Message(role="user", content=text),
        ],
        sampling=Sampling(temperature=temperature, top_p=top_p, max_output_tokens=256),
        seed=seed,
        output_schema=schema,
        metadata={"scenario_id": "s1", "turn_id": "t1", "marker": "METADATA-MUST-NOT-BE-SENT"},
    )


def verification_schema() -> OutputSchema:
    from medeval.schemas import VerifierOutput

    return OutputSchema(name="verification", json_schema=VerifierOutput.model_json_schema())


def leaks(secret: str, *things: Any) -> bool:
    return any(secret in json.dumps(thing, default=str) for thing in things)


def batch_items(count: int = 3) -> list[BatchItem]:
    """Batch items for the provider batch tests: every other one carries the judge's schema."""
    return [
        BatchItem(
            custom_id=f"item-{n}",
            request=chat(f"Question {n}?", schema=verification_schema() if n % 2 else None),
        )
        for n in range(count)
    ]


def comparable(response: ChatResponse) -> dict[str, Any]:
    """What must be equal between a batch item's response and the direct call's. A prompt cache
    serves a repeated prefix on one call and not another, so the cached count may differ."""
    return response.model_dump(
        exclude={
            "response_id": True,
            "request_id": True,
            "latency_ms": True,
            "raw": True,
            "usage": {"cached_tokens"},
        }
    )


async def run_batch(subject: BatchAPI, batch: list[BatchItem]) -> tuple[BatchStatus, list[BatchOutcome]]:
    """Submit, read the state once, collect: one batch through an adapter's batch contract."""
    return await collect(subject, await subject.batch_submit(batch))


async def collect(subject: BatchAPI, batch_id: str) -> tuple[BatchStatus, list[BatchOutcome]]:
    """Read a batch's state once, then its results (as a resumed run's fresh adapter does)."""
    status = await subject.batch_status(batch_id)
    return status, await subject.batch_results(batch_id)


def submit_then_direct(subject: Any, batch: list[BatchItem]) -> None:
    """Submit `batch` (`subject` is a ModelAPI with a BatchAPI), then send each item's request as
    a direct call, then close: the tests compare what the provider received for the two."""

    async def both() -> None:
        try:
            await subject.batch_submit(batch)
            for item in batch:
                await subject.generate(item.request)
        finally:
            await subject.aclose()

    asyncio.run(both())


def batch_then_direct(
    subject: Any, batch: list[BatchItem]
) -> tuple[BatchStatus, list[BatchOutcome], list[ChatResponse]]:
    """`run_batch`, then each item's request as a direct call, then close: the batch's outcomes
    beside the direct responses they must equal."""

    async def both() -> tuple[BatchStatus, list[BatchOutcome], list[ChatResponse]]:
        try:
            status, outcomes = await run_batch(subject, batch)
            return status, outcomes, [await subject.generate(item.request) for item in batch]
        finally:
            await subject.aclose()

    return asyncio.run(both())


def matched(
    subject: Any, batch: list[BatchItem], outcomes: list[BatchOutcome], directs: list[ChatResponse]
) -> dict[str, ChatResponse]:
    """Each item's batch response by custom id, checked against its direct call: the fake lists
    results in reverse order, so matching is by custom id, never by position; each response equals
    the direct one; and what a resumed run (which did not submit the item) sets on it is what the
    direct call applied."""
    assert [o.custom_id for o in outcomes] == [i.custom_id for i in reversed(batch)]
    by_id = {o.custom_id: o for o in outcomes}
    responses: dict[str, ChatResponse] = {}
    for item, direct in zip(batch, directs, strict=True):
        response = by_id[item.custom_id].response
        assert response is not None and by_id[item.custom_id].error is None
        assert comparable(response) == comparable(direct)
        assert subject.batch_sampling(item.request) == (direct.sampling_sent, direct.sampling_dropped)
        responses[item.custom_id] = response
    return responses
