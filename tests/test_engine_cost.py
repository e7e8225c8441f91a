"""Cost: the dated price table, per-call cost, totals in the summary, and --max-cost before and
during a run."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from medeval.adapters.base import Usage
from medeval.calls import cost
from medeval.cli import main
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import resume_config, run
from medeval.errors import ConfigError
from medeval.records.storage import CALLS, RESULTS, SUMMARY
from medeval.testing.loopback import LoopbackServer
from tests.engine_support import LOOP_JUDGE, LOOP_TARGET, SCENARIO_001, loop_config, point_at, strict_lines


def test_price_table_is_dated_and_prices_a_snapshot_as_its_alias() -> None:
    table = cost.load_prices()
    assert table.as_of
    assert (
        table.price("fake:accurate") is not None and table.cost("fake:accurate", Usage(input_tokens=9)) == 0
    )
    price = table.price("openai:gpt-4.1-2025-04-14")  # a dated snapshot of a listed alias
    assert price is not None and price is table.models["openai:gpt-4.1"]
    assert table.price("openai:no-such-model") is None
    assert table.cost(
        "openai:gpt-4.1", Usage(input_tokens=1_000_000, output_tokens=500_000)
    ) == pytest.approx(price.input + price.output / 2)


def priced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output_per_million: float) -> None:
    prices = {
        "as_of": "2026-11-01",
        "currency": "USD",
        "unit": "dollars per million tokens",
        "models": {
            "openai-compatible:*": {"input": 0.0, "output": output_per_million, "status": "placeholder"}
        },
    }
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(prices), encoding="utf-8")
    monkeypatch.setenv("MEDEVAL_PRICES", str(path))


def test_max_cost_refuses_to_start_over_budget_with_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    priced(tmp_path, monkeypatch, 10_000.0)
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", "http://127.0.0.1:9/v1")  # never called
    out = tmp_path / "runs"
    argv = ["medeval", "run", "-s", str(SCENARIO_001), "-t", LOOP_TARGET, "-j", LOOP_JUDGE]
    monkeypatch.setattr(sys, "argv", [*argv, "--max-cost", "1", "--out", str(out)])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert re.match(r"error: estimated cost \$\d+\.\d\d .* exceeds --max-cost \$1\.00; raise", errors[0])
    assert not out.exists()


def test_unpriced_model_with_max_cost_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(ConfigError, match="needs a price for openai-compatible"):
        run(loop_config(tmp_path, max_cost=5.0))


def test_run_stops_launching_at_the_ceiling_and_resumes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    priced(tmp_path, monkeypatch, 1000.0)  # a tenth of a cent per output token
    # The estimate is made deliberately low, so it is the running ceiling that stops this run.
    monkeypatch.setattr(cost, "TYPICAL_OUTPUT_TOKENS", 0)
    with LoopbackServer() as server:
        point_at(server, monkeypatch, tmp_path / "cache")
        config = loop_config(tmp_path / "runs", epochs=3, max_concurrency=1, max_cost=0.05)
        stopped = run(config)
        run_dir = stopped.store.directory
        assert stopped.outcome == "max_cost"
        written = len(strict_lines(run_dir / RESULTS))
        assert 1 <= written < 6
        summary = json.loads((run_dir / SUMMARY).read_text(encoding="utf-8"))
        assert summary["outcome"] == "max_cost"
        assert summary["cost"]["total_usd"] >= 0.05
        assert set(summary["cost"]["by_role"]) == {"target", "extractor", "verifier"}
        assert set(summary["cost"]["by_target"]) == {LOOP_TARGET}

        finished = run(resume_config(run_dir).model_copy(update={"max_cost": 100.0}), resume=run_dir)
    assert finished.outcome == "complete"
    trials = strict_lines(run_dir / RESULTS)
    assert len(trials) == len({t["trial_key"] for t in trials}) == 6
    calls = strict_lines(run_dir / CALLS)
    assert all(c["cost_usd"] > 0 for c in calls if "response" in c and c["cache"] != "hit")


def test_fake_run_costs_nothing_and_reports_it(tmp_path: Path) -> None:
    result = run(RunConfig(scenarios=[SCENARIO_001], targets=["fake:accurate"], out=tmp_path))
    summary = json.loads((result.store.directory / SUMMARY).read_text(encoding="utf-8"))
    assert summary["cost"]["total_usd"] == 0.0 and summary["cost"]["unpriced_models"] == []
    assert summary["trials_written"] == 1 and summary["outcome"] == "complete"


def test_the_bundled_price_table_lists_models_without_a_found_price_as_unpriced() -> None:
    table = cost.load_prices()
    # No published price was found for these: they are listed as unpriced, never given a figure.
    for spec in ("xai:grok-4.6-mini", "google:gemini-3.8-pro", "google:gemini-4-carbon"):
        assert spec in table.unpriced and table.price(spec) is None


@pytest.mark.parametrize("target", ["xai:grok-4.6-mini", "google:gemini-3.8-pro"])
def test_max_cost_with_an_unpriced_model_names_it_and_says_how_to_supply_a_price(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, target: str
) -> None:
    monkeypatch.delenv("MEDEVAL_PRICES", raising=False)
    monkeypatch.setenv("XAI_API_KEY", "test-key-never-sent")
    monkeypatch.setenv("GEMINI_API_KEY", "test-key-never-sent")
    config = RunConfig(scenarios=[SCENARIO_001], targets=[target], out=tmp_path / "runs", max_cost=5.0)
    with pytest.raises(ConfigError) as refused:
        run(config)
    (line,) = refused.value.lines
    assert f"--max-cost needs a price for {target}, which is unpriced in data/prices.json" in line
    assert "never guessed" in line
    assert f'add "{target}": {{"input": USD_PER_M' in line and "set MEDEVAL_PRICES=that file" in line
    assert not (tmp_path / "runs").exists()
