"""Batch prices (issue 16: 1): per-model batch prices in the table, else the provider's discount,
in each call's cost and in the --max-cost estimate."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from medeval.adapters.base import Usage
from medeval.calls import cost
from medeval.calls.batching import BatchSettings
from medeval.engine.budget import check_budget
from medeval.engine.orchestrator import build_gateway, execute, load_scenarios, plan_trials
from medeval.errors import ConfigError
from medeval.testing.loopback import LoopbackServer
from medeval.testing.openai_batch import BatchDesk, openai_batch_dialect
from tests.engine_support import (
    DUMMY_KEY,
    LOOP_JUDGE,
    LOOP_TARGET,
    loop_config,
    point_at,
    settle,
    strict_lines,
)

BATCH = BatchSettings(enabled=True, idle_seconds=0.0, poll_seconds=1.0)


def table(**judge: float) -> cost.PriceTable:
    return cost.PriceTable.model_validate(
        {
            "as_of": "2026-11-01",
            "currency": "USD",
            "unit": "dollars per million tokens",
            "models": {
                LOOP_TARGET: {"input": 1.0, "output": 4.0, "status": "placeholder"},
                LOOP_JUDGE: {"input": 2.0, "output": 8.0, "status": "placeholder", **judge},
            },
        }
    )


def test_a_batched_call_costs_the_batch_price_or_the_discounted_direct_price() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    assert table().cost(LOOP_JUDGE, usage) == pytest.approx(10.0)
    assert table().cost(LOOP_JUDGE, usage, batch_discount=0.5) == pytest.approx(5.0)
    explicit = table(batch_input=0.5, batch_output=3.0)
    assert explicit.cost(LOOP_JUDGE, usage, batch_discount=0.5) == pytest.approx(3.5)
    assert explicit.cost(LOOP_JUDGE, usage) == pytest.approx(10.0)  # direct calls keep theirs


def test_max_cost_estimates_batched_judges_at_batch_prices(tmp_path: Path) -> None:
    config = loop_config(tmp_path, max_cost=0.0)
    plans = plan_trials(config, load_scenarios(config.scenarios))
    prices = table()

    def estimate(discounts: dict[str, float] | None) -> float:
        with pytest.raises(ConfigError) as refused:
            check_budget(config, plans, 0.0, prices, discounts)
        return float(str(refused.value).split("$")[1].split(" ")[0])

    direct, batched = estimate(None), estimate({LOOP_JUDGE: 0.5})
    assert batched < direct
    # Only the judge calls are cheaper: the target's stay at the direct price.
    target_calls = sum(len(p.scenario.scripted_turns) + bool(p.scenario.opening_statement) for p in plans)
    target_cost = target_calls * (cost.TYPICAL_INPUT_TOKENS * 1.0 + cost.TYPICAL_OUTPUT_TOKENS * 4.0) / 1e6
    assert batched - target_cost == pytest.approx((direct - target_cost) / 2, rel=1e-3)


def test_each_batched_call_record_is_priced_as_batched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(table(batch_output=1.0).model_dump(mode="json")), encoding="utf-8")
    monkeypatch.setenv("MEDEVAL_PRICES", str(path))
    with LoopbackServer(openai_batch_dialect(BatchDesk()), api_key=DUMMY_KEY) as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        config = loop_config(tmp_path / "runs", batch=BATCH, cache="off")
        run_dir = asyncio.run(execute(config, build_gateway(config, sleep=settle))).store.directory
    calls = [c for c in strict_lines(run_dir / "calls.jsonl") if "response" in c]
    for call in calls:
        tokens_in, tokens_out = call["usage"]["input_tokens"], call["usage"]["output_tokens"]
        if call["role"] == "target":
            expected = (tokens_in * 1.0 + tokens_out * 4.0) / 1e6
        else:
            assert call["batch_id"]
            expected = (tokens_in * 1.0 + tokens_out * 1.0) / 1e6  # input: 2.0 less half; output: its own
        assert call["cost_usd"] == pytest.approx(expected)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["cost"]["total_usd"] == pytest.approx(sum(c["cost_usd"] for c in calls), abs=1e-6)
