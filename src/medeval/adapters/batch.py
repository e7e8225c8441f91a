"""The batch contract: what an adapter implements to send many judge requests as one provider batch
(about half price, and a rate-limit pool of its own).

The engine (gateway) decides what goes into a batch, records each batch's id and state in
calls.jsonl as it happens, and re-attaches to a batch in flight on `--resume`. An adapter only
speaks its provider's batch wire format:

1. `batch_submit(items)` uploads the requests (each under its `custom_id`) and returns the
   provider's batch id at once;
2. `batch_status(batch_id)` reads the state, to be polled until it is terminal;
3. `batch_results(batch_id)` returns one `BatchOutcome` per custom id the provider answered, a
   success as the same `ChatResponse` a direct call would give, a failure as a `ProviderError`
   (retryable or not, by the same rules as a direct call).

An item missing from the results (expired, cancelled) counts as a retryable failure of that item:
the engine retries only the failed items, never the whole batch.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from medeval.adapters.base import ChatRequest, ChatResponse, ProviderError

#: `in_progress` while the provider works; the others are terminal. `ended` means results can be
#: read (some items may still have failed); `failed`, `expired` and `cancelled` mean the batch as a
#: whole gave nothing back beyond what `batch_results` still returns.
BatchState = Literal["in_progress", "ended", "failed", "expired", "cancelled"]
TERMINAL_STATES: frozenset[str] = frozenset({"ended", "failed", "expired", "cancelled"})


class BatchItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    #: Deterministic (derived from the request's cache key), so a resumed run recognises it.
    custom_id: str = Field(min_length=1, max_length=64)
    request: ChatRequest


class BatchStatus(BaseModel):
    model_config = ConfigDict(extra="forbid")

    batch_id: str
    state: BatchState
    #: The provider's own word for the state ("finalizing", "JOB_STATE_RUNNING"...), for the record.
    provider_state: str
    total: int | None = None
    succeeded: int | None = None
    failed: int | None = None


class BatchOutcome:
    """One item's result: exactly one of `response` and `error` is set."""

    __slots__ = ("custom_id", "error", "response")

    def __init__(
        self, custom_id: str, *, response: ChatResponse | None = None, error: ProviderError | None = None
    ) -> None:
        if (response is None) == (error is None):
            raise ValueError("a batch outcome has exactly one of response and error")
        self.custom_id = custom_id
        self.response = response
        self.error = error


class BatchAPI(ABC):
    """Mixed into a `ModelAPI` whose provider offers a batch API. Adapters without it are called
    directly, with a warning, when `--batch` is asked for."""

    #: The provider's discount on batch usage, applied by the cost meter when the price table has
    #: no explicit batch price for the model.
    batch_discount: float = 0.5

    @abstractmethod
    async def batch_submit(self, items: list[BatchItem]) -> str:
        """Upload the items as one batch and return the provider's batch id. Raise ProviderError
        when the submission itself fails (nothing was queued)."""

    @abstractmethod
    async def batch_status(self, batch_id: str) -> BatchStatus:
        """The batch's current state. Raise ProviderError when it cannot be read."""

    @abstractmethod
    async def batch_results(self, batch_id: str) -> list[BatchOutcome]:
        """The outcome of every item the provider reports for a terminal batch, in any order."""

    def batch_sampling(self, request: ChatRequest) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """What a batch item of this request sends and drops (`sampling_sent`,
        `sampling_dropped`), which the engine sets on its response: a provider's results carry only
        the reply, so a process that did not submit the item (a resumed run) cannot tell. None when
        the adapter's results always carry them."""
        return None


def supports_batch(adapter: object) -> bool:
    return isinstance(adapter, BatchAPI)
