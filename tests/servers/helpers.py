"""Shared bits of the adapter tests: a Gateway that never sleeps and records into a list."""

from __future__ import annotations

import json
from typing import Any

from medeval.adapters.base import ChatRequest, ChatResponse, Message, ModelAPI, OutputSchema, Sampling
from medeval.adapters.batch import BatchAPI, BatchItem, BatchOutcome, BatchStatus
from medeval.adapters.retry import RetryPolicy
from medeval.gateway import CallContext, Gateway

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
    batch_id = await subject.batch_submit(batch)
    status = await subject.batch_status(batch_id)
    return status, await subject.batch_results(batch_id)
