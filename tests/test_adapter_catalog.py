"""The capability and lifecycle table (data/models.json) and the retry policy's error mapping."""

from __future__ import annotations

import asyncio
import random
import warnings
from datetime import UTC, date, datetime, timedelta

import pytest

from medeval.adapters.anthropic_api import AnthropicAdapter
from medeval.adapters.base import ProviderError, served_differs
from medeval.adapters.catalog import (
    canonical_model_id,
    catalog,
    check_lifecycle,
    family_for,
    find_model,
    wire_model_id,
)
from medeval.adapters.retry import RetryPolicy, grpc_error, http_error, is_retryable_status, parse_retry_after
from medeval.cli.models import SPECIFICATION_NAMES
from medeval.errors import ConfigError
from medeval.testing.loopback import LoopbackServer
from tests.servers.anthropic_server import ANTHROPIC
from tests.servers.helpers import SECRET, chat

TODAY = date(2026, 11, 22)


@pytest.mark.parametrize(
    ("provider", "name", "api_id"),
    [
        ("openai", "gpt-4.1", "gpt-4.1"),
        ("openai", "gpt-4.1-mini", "gpt-4.1-mini"),
        ("anthropic", "claude-3.5-sonnet", "claude-3-5-sonnet-20241022"),
        ("anthropic", "claude-3-opus", "claude-3-opus-20240229"),
        ("google", "gemini-1.5-pro", "gemini-1.5-pro"),
        ("xai", "grok-2", "grok-2-1212"),
    ],
)
def test_every_specification_name_resolves_to_a_real_api_id(provider: str, name: str, api_id: str) -> None:
    assert name in SPECIFICATION_NAMES
    assert wire_model_id(provider, name) == api_id
    assert canonical_model_id(f"{provider}:{name}") == (provider, api_id)


def test_dated_snapshots_fold_to_one_identity_but_are_sent_as_given() -> None:
    assert canonical_model_id("openai:gpt-4.1-2025-04-14") == canonical_model_id("openai:GPT-4.1")
    assert wire_model_id("openai", "gpt-4.1-2025-04-14") == "gpt-4.1-2025-04-14"
    assert canonical_model_id("openai:gpt-6-luna") == ("openai", "gpt-6-luna")


def test_table_is_consistent() -> None:
    data = catalog()
    names = [n for entry in data.models for n in entry.names()]
    assert len(names) == len(set(names)), "a name belongs to two entries"
    for entry in data.models:
        assert entry.provider in data.providers
        assert entry.successors, f"{entry.name} has no successor"
        if entry.deprecated_on and entry.retires_on:
            assert entry.deprecated_on <= entry.retires_on
    for provider in data.providers:
        assert any(f.provider == provider and "" in f.match for f in data.families), provider


def test_family_matching_uses_the_longest_prefix() -> None:
    assert family_for("openai", "gpt-4.1").family == "gpt-4"
    assert family_for("openai", "gpt-6-luna").family == "reasoning"
    assert family_for("openai", "o3-pro").family == "responses-only"
    assert family_for("openai", "something-new").family == "openai-default"
    assert not family_for("anthropic", "claude-opus-5-5").temperature


def test_lifecycle_as_of_an_injected_date() -> None:
    with pytest.raises(ConfigError, match=r"retired on 2025-10-22; use anthropic:claude-sonnet-4-6"):
        check_lifecycle("anthropic", "claude-3.5-sonnet", TODAY)
    with pytest.warns(UserWarning, match="deprecated and stops working on 2025-10-22"):
        check_lifecycle("anthropic", "claude-3.5-sonnet", date(2025, 9, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_lifecycle("anthropic", "claude-sonnet-5-5", TODAY) is None
    entry = find_model("openai", "gpt-4.1")
    assert entry is not None and entry.status(TODAY) == "deprecated"
    assert entry.status(date(2027, 1, 14)) == "retired"


def test_alias_goes_over_the_wire_as_its_api_id_and_is_not_a_served_mismatch() -> None:
    with LoopbackServer(ANTHROPIC, api_key=SECRET) as server, pytest.warns(UserWarning):
        subject = AnthropicAdapter(
            "claude-3.5-sonnet", api_key=SECRET, base_url=server.url, today=date(2025, 9, 1)
        )
        response = asyncio.run(subject.generate(chat()))
    assert server.requests[0].body["model"] == "claude-3-5-sonnet-20241022"
    assert response.requested_model == "claude-3-5-sonnet-20241022"
    assert not served_differs(response.requested_model, response.served_model)


@pytest.mark.parametrize(
    ("status", "retryable"),
    [
        *[(429, True), (500, True), (502, True), (503, True), (529, True), (408, True)],
        *[(400, False), (401, False), (403, False), (404, False), (422, False)],
    ],
)
def test_status_classification(status: int, retryable: bool) -> None:
    assert is_retryable_status(status) is retryable


def test_retry_after_forms() -> None:
    now = datetime(2026, 11, 22, 12, 0, 0, tzinfo=UTC)
    later = (now + timedelta(seconds=30)).strftime("%a, %d %b %Y %H:%M:%S GMT")
    assert parse_retry_after({"Retry-After": "12"}) == 12.0
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"retry-after": later}, now=now) == 30.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_x_should_retry_overrides_the_status() -> None:
    assert not http_error("p", 503, "m", {"x-should-retry": "false"}).retryable
    assert http_error("p", 400, "m", {"x-should-retry": "true"}).retryable
    assert http_error("p", 400, "bad field").retry_after is None


def test_grpc_codes() -> None:
    for code in ("RESOURCE_EXHAUSTED", "UNAVAILABLE", "DEADLINE_EXCEEDED"):
        assert grpc_error("xai", code, "x").retryable
    for code in ("NOT_FOUND", "INVALID_ARGUMENT", "UNAUTHENTICATED", "PERMISSION_DENIED"):
        assert not grpc_error("xai", code, "x").retryable


def test_policy_backoff_is_bounded_and_honours_retry_after_up_to_the_cap() -> None:
    policy = RetryPolicy(max_attempts=3, base_delay=0.5, max_delay=4.0, retry_after_cap=10.0)
    rng = random.Random(1)
    plain = ProviderError("x", retryable=True)
    assert all(0 <= policy.delay(n, plain, rng) <= min(4.0, 0.5 * 2 ** (n - 1)) for n in range(1, 8))
    assert policy.delay(1, ProviderError("x", retryable=True, retry_after=3.0), rng) == 3.0
    assert policy.delay(1, ProviderError("x", retryable=True, retry_after=999.0), rng) == 10.0
    assert policy.should_retry(2, plain) and not policy.should_retry(3, plain)


def test_retry_after_zero_still_waits_at_least_half_the_backoff() -> None:
    policy = RetryPolicy(max_attempts=4, base_delay=0.5, max_delay=20.0)
    rng = random.Random(7)
    now = ProviderError("x", retryable=True, retry_after=0.0, status=503)
    waits = [policy.delay(n, now, rng) for n in range(1, 4)]
    assert all(wait >= 0.5 * 2 ** (n - 1) / 2 for n, wait in enumerate(waits, start=1)), waits
    assert sum(waits) >= 1.75  # three retries of a 5xx burst span seconds, not milliseconds
    assert not policy.should_retry(1, ProviderError("x", retryable=False))


def test_sdks_load_only_when_a_spec_names_their_provider() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, medeval.cli, medeval.testing.loopback\n"
        "from medeval.adapters.registry import create_adapter\n"
        "from medeval.adapters.catalog import canonical_model_id\n"
        "create_adapter('fake:accurate'); canonical_model_id('anthropic:claude-3.5-sonnet')\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'openai', 'anthropic', 'xai_sdk', 'grpc'}))\n"
        "print('google.genai' in sys.modules)\n"
    )
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert shown.split("\n")[:2] == ["[]", "False"]
