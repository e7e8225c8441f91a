"""The one retry policy: bounded attempts, exponential backoff with full jitter, Retry-After
honoured up to a cap. Provider SDKs are configured with their own retries off, so every attempt
passes through here and is recorded."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

from pydantic import BaseModel, ConfigDict

from medeval.adapters.base import ProviderError

Sleeper = Callable[[float], Awaitable[None]]


class RetryPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 20.0
    retry_after_cap: float = 60.0

    def delay(self, attempt: int, error: ProviderError, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        if error.retry_after is not None and error.retry_after >= 0:
            return min(error.retry_after, self.retry_after_cap)
        ceiling = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return rng.uniform(0, ceiling)

    def should_retry(self, attempt: int, error: ProviderError) -> bool:
        return error.retryable and attempt < self.max_attempts


async def real_sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)
