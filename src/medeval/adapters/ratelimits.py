"""The rate-limit state a provider reports in its response headers, read from the response the SDK
already returned (no extra call).

- OpenAI (and OpenAI-compatible servers that copy it): `x-ratelimit-{limit,remaining,reset}-
  {requests,tokens}`; the resets are durations such as `6m0s`, `1s` or `20ms`.
- Anthropic: `anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}`; the resets are RFC 3339
  times, and the `tokens` family is whichever token limit is the most restrictive at the moment
  (falling back to `input-tokens` when a deployment sends only that).

Gemini and xAI send no such headers; their adapters report none.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime

from medeval.adapters.base import RateLimits

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def parse_duration(value: str) -> float | None:
    """`6m0s` -> 360.0, `20ms` -> 0.02, `1.5s` -> 1.5, a bare number -> seconds; None if unreadable."""
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(number) * _UNIT_SECONDS[unit] for number, unit in parts)


def _seconds_until(value: str, now: datetime) -> float | None:
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return parse_duration(value)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return max(0, int(float(value)))
    except ValueError:
        return None


def rate_limits(headers: Mapping[str, str], now: datetime | None = None) -> RateLimits | None:
    """The rate-limit state in a response's headers, or None when it carries none."""
    lowered = {k.lower(): v for k, v in headers.items() if "ratelimit" in k.lower()}
    if not lowered:
        return None
    if any(k.startswith("anthropic-ratelimit-") for k in lowered):
        moment = now or datetime.now(UTC)
        tokens = "tokens" if "anthropic-ratelimit-tokens-limit" in lowered else "input-tokens"

        def reset(name: str) -> float | None:
            value = lowered.get(f"anthropic-ratelimit-{name}-reset")
            return _seconds_until(value, moment) if value is not None else None

        found = RateLimits(
            requests_limit=_int(lowered.get("anthropic-ratelimit-requests-limit")),
            requests_remaining=_int(lowered.get("anthropic-ratelimit-requests-remaining")),
            requests_reset_s=reset("requests"),
            tokens_limit=_int(lowered.get(f"anthropic-ratelimit-{tokens}-limit")),
            tokens_remaining=_int(lowered.get(f"anthropic-ratelimit-{tokens}-remaining")),
            tokens_reset_s=reset(tokens),
        )
    else:

        def duration(name: str) -> float | None:
            value = lowered.get(f"x-ratelimit-reset-{name}")
            return parse_duration(value) if value is not None else None

        found = RateLimits(
            requests_limit=_int(lowered.get("x-ratelimit-limit-requests")),
            requests_remaining=_int(lowered.get("x-ratelimit-remaining-requests")),
            requests_reset_s=duration("requests"),
            tokens_limit=_int(lowered.get("x-ratelimit-limit-tokens")),
            tokens_remaining=_int(lowered.get("x-ratelimit-remaining-tokens")),
            tokens_reset_s=duration("tokens"),
        )
    return found if found != RateLimits() else None
