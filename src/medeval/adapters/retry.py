"""The one retry policy: bounded attempts, exponential backoff with full jitter, Retry-After
honoured up to a cap. Provider SDKs are configured with their own retries off, so every attempt
passes through here and is recorded."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from pydantic import BaseModel, ConfigDict

from medeval.adapters.base import ProviderError
from medeval.adapters.ratelimits import rate_limits

Sleeper = Callable[[float], Awaitable[None]]


class RetryPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 20.0
    retry_after_cap: float = 60.0

    def delay(self, attempt: int, error: ProviderError, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based): the exponential backoff
        with equal jitter (at least half of it, so a burst of 5xx is never retried within
        milliseconds), or the server's Retry-After when that is longer, up to the cap."""
        ceiling = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        backoff = rng.uniform(ceiling / 2, ceiling)
        if error.retry_after is not None and error.retry_after >= 0:
            # "Retry-After: 0" from a struggling proxy is not a licence to hammer it.
            return max(min(error.retry_after, self.retry_after_cap), backoff)
        return backoff

    def should_retry(self, attempt: int, error: ProviderError) -> bool:
        return error.retryable and attempt < self.max_attempts


async def real_sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


# --- Which provider failures are worth another attempt (shared by every adapter) -------------

#: Statuses that mean "too many requests": the provider's concurrency halves (gRPC's
#: RESOURCE_EXHAUSTED is xAI's 429).
THROTTLE_STATUSES = frozenset({429, "RESOURCE_EXHAUSTED"})

#: gRPC status names that are transient: rate limit or quota, unavailable, deadline (a timeout),
#: and INTERNAL, which is the gRPC form of an HTTP 500.
RETRYABLE_GRPC_CODES = frozenset({"RESOURCE_EXHAUSTED", "UNAVAILABLE", "DEADLINE_EXCEEDED", "INTERNAL"})


def is_retryable_status(status: int) -> bool:
    """429, any 5xx (including Anthropic's 529 overloaded), 408 request timeout, and 409, which
    OpenAI and Anthropic use for lock timeouts. Everything else (400, 401, 403, 404, 422) is the
    caller's mistake and fails at once."""
    return status in (408, 409, 429) or status >= 500


def parse_retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait: `retry-after-ms`, else `retry-after` in seconds or as
    an HTTP date. None when absent or unreadable (the policy then backs off on its own)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def http_error(
    provider: str,
    status: int,
    message: str,
    headers: Mapping[str, str] | None = None,
    request_id: str | None = None,
) -> ProviderError:
    """The ProviderError for an HTTP status, honouring `x-should-retry` like the SDKs do."""
    headers = headers or {}
    retryable = is_retryable_status(status)
    should_retry = {k.lower(): v for k, v in headers.items()}.get("x-should-retry")
    if should_retry in ("true", "false"):
        retryable = should_retry == "true"
    return ProviderError(
        f"{provider} HTTP {status}: {message}",
        retryable=retryable,
        status=status,
        retry_after=parse_retry_after(headers) if retryable else None,
        request_id=request_id,
        rate_limits=rate_limits(headers),
    )


def grpc_error(provider: str, code_name: str, details: str) -> ProviderError:
    """The ProviderError for a gRPC status; gRPC carries no Retry-After."""
    return ProviderError(
        f"{provider} gRPC {code_name}: {details}",
        retryable=code_name in RETRYABLE_GRPC_CODES,
        status=code_name,
    )


def timeout_error(provider: str, detail: str = "request timed out") -> ProviderError:
    return ProviderError(f"{provider}: {detail}", retryable=True, status="timeout")


def connection_error(provider: str, detail: str) -> ProviderError:
    return ProviderError(f"{provider}: connection failed: {detail}", retryable=True, status="connection")


def malformed_error(provider: str, detail: str, request_id: str | None = None) -> ProviderError:
    """A 2xx whose body is not the documented shape: treated as transient (a proxy or a truncated
    body), so it is retried a bounded number of times."""
    return ProviderError(
        f"{provider}: malformed response body: {detail}",
        retryable=True,
        status="malformed",
        request_id=request_id,
    )
