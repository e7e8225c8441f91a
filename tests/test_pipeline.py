"""The whole offline pipeline through the orchestrator: records, determinism, judges, failures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI, ProviderError
from medeval.adapters.registry import register_provider
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run
from medeval.errors import ConfigError
from medeval.records.storage import read_jsonl
from medeval.schemas import Label, ShipCategory, TrialRecord

from .conftest import SCENARIOS, stable

SCENARIO_001 = SCENARIOS / "scenario_001.json"
FOLLOWUP = SCENARIOS / "employer_coverage_followup.json"


def config(tmp_path: Path, **overrides: Any) -> RunConfig:
    values: dict[str, Any] = {
        "scenarios": [SCENARIO_001, FOLLOWUP],
        "targets": ["fake:accurate"],
        "out": tmp_path,
    }
    values.update(overrides)
    return RunConfig(**values)


def test_every_results_line_validates_and_calls_are_recorded(tmp_path: Path) -> None:
    result = run(config(tmp_path, targets=["fake:accurate", "fake:outdated"]))
    lines = list(read_jsonl(result.store.directory / "results.jsonl"))
    assert len(lines) == 4
    for line in lines:
        TrialRecord.model_validate({k: v for k, v in line.items() if k not in {"hash", "prev_hash"}})
    calls = list(read_jsonl(result.store.directory / "calls.jsonl"))
    # Target calls only (rules judges make none): scenario_001 has 1 turn; the follow-up scenario
    # has an opening and 2 turns (Q2b is skipped when Q2 mentions the 8-month period).
    roles = {c["role"] for c in calls}
    assert roles == {"target"}
    assert all(c["response"]["served_model"].endswith("-2026-11-01") for c in calls)
    manifest = json.loads((result.store.directory / "manifest.json").read_text())
    assert set(manifest["prompts"]) == {
        "questioner",
        "extractor",
        "verifier",
        "scorer",
        "adjudicator",
        "questioner_reply",
    }
    assert all(len(h) == 64 for h in manifest["prompts"].values())
    assert {s["scenario_id"] for s in manifest["scenarios"]} == {"scenario_001", "employer_coverage_followup"}
    assert manifest["seed"] == 42


def test_same_seed_gives_identical_trials(tmp_path: Path) -> None:
    cfg = dict(targets=["fake:accurate", "fake:incomplete"], judges=["fake:judge"], judge_count=3, seed=7)
    first = run(config(tmp_path / "a", **cfg))
    second = run(config(tmp_path / "b", **cfg))
    a = sorted(
        (stable(r) for r in read_jsonl(first.store.directory / "results.jsonl")), key=lambda r: r["trial_key"]
    )
    b = sorted(
        (stable(r) for r in read_jsonl(second.store.directory / "results.jsonl")),
        key=lambda r: r["trial_key"],
    )
    assert a == b
    # ... and a different seed changes what the seeded judges decide.
    third = run(config(tmp_path / "c", **{**cfg, "seed": 8}))
    c = sorted(
        (stable(r) for r in read_jsonl(third.store.directory / "results.jsonl")), key=lambda r: r["trial_key"]
    )
    assert [r["final_claims"] for r in a] != [r["final_claims"] for r in c]


def test_conditional_follow_up_is_asked_only_when_needed(tmp_path: Path) -> None:
    result = run(config(tmp_path, scenarios=[FOLLOWUP], targets=["fake:accurate", "fake:incomplete"]))
    asked = {r.target.spec: [t.turn_id for t in r.conversation if t.role == "user"] for r in result.records}
    assert asked["fake:accurate"] == ["opening", "Q1", "Q2"]
    assert asked["fake:incomplete"] == ["opening", "Q1", "Q2", "Q2b"]
    incomplete = next(r for r in result.records if r.target.spec == "fake:incomplete")
    penalty = next(g for g in incomplete.groups if g.question_group == "penalty")
    # The follow-up's answer covers the point the first answer missed.
    assert penalty.ship_category == ShipCategory.ACCURATE_COMPLETE
    assert penalty.turn_ids == ["Q2", "Q2b"]


def test_profiles_land_in_distinct_ship_categories(tmp_path: Path) -> None:
    targets = ["fake:accurate", "fake:incomplete", "fake:outdated", "fake:refusal"]
    result = run(config(tmp_path, scenarios=[SCENARIO_001], targets=targets))
    category = {r.target.spec: r.groups[0].ship_category for r in result.records}
    assert category == {
        "fake:accurate": ShipCategory.ACCURATE_COMPLETE,
        "fake:incomplete": ShipCategory.SUBSTANTIVE_INCOMPLETE,
        "fake:outdated": ShipCategory.INCORRECT,
        "fake:refusal": ShipCategory.NOT_SUBSTANTIVE,
    }
    refusal = next(r for r in result.records if r.target.spec == "fake:refusal")
    assert refusal.flags.refusal is True
    assert "refusal" in refusal.final_scores.error_categories


def test_model_judges_disagree_and_are_adjudicated(tmp_path: Path) -> None:
    result = run(config(tmp_path, scenarios=[SCENARIO_001], judges=["fake:judge"], judge_count=2))
    [record] = result.records
    assert record.claims, "the fake judge extracts one claim per sentence"
    assert {v.judge_index for v in record.verdicts} == {0, 1}
    assert record.disagreement_rate > 0.2
    assert record.flags.needs_manual_review is True
    undecided = [fc for fc in record.final_claims if fc.label is None]
    assert {u.item.split()[1] for u in record.unscored} >= {fc.claim_id for fc in undecided}
    calls = list(read_jsonl(result.store.directory / "calls.jsonl"))
    assert {c["role"] for c in calls} == {"target", "extractor", "verifier"}
    seeds = {c["judge_index"]: c["request"]["seed"] for c in calls if c["role"] == "verifier"}
    assert seeds[0] != seeds[1]  # each verifier has its own derived seed


def test_adjudicator_model_breaks_ties(tmp_path: Path) -> None:
    result = run(
        config(
            tmp_path, scenarios=[SCENARIO_001], judges=["fake:judge"], judge_count=2, adjudicator="fake:flaky"
        )
    )
    [record] = result.records
    assert any(fc.decided_by == "adjudicator_model" for fc in record.final_claims)
    assert all(fc.label is not None for fc in record.final_claims)


def test_garbage_judges_leave_items_unscored_not_wrong(tmp_path: Path) -> None:
    result = run(config(tmp_path, scenarios=[SCENARIO_001], judges=["fake:garbage"], judge_max_attempts=2))
    [record] = result.records
    assert record.claims == []
    assert record.final_scores.accuracy is None
    # The judges' failure is not the chatbot's: the group is not_scored, never Not Substantive.
    assert record.status == "unscored"
    assert [g.ship_category for g in record.groups] == [ShipCategory.NOT_SCORED]
    assert record.groups[0].reason and "extraction failed" in record.groups[0].reason
    assert record.unscored[0].item == "group scenario_001: extraction"
    assert record.unscored[0].reason.startswith("turn Q1: invalid output after 2 attempts")
    extractor_calls = [
        c for c in read_jsonl(result.store.directory / "calls.jsonl") if c["role"] == "extractor"
    ]
    assert len(extractor_calls) == 2


def test_flaky_judge_recovers_on_retry(tmp_path: Path) -> None:
    result = run(config(tmp_path, scenarios=[SCENARIO_001], judges=["fake:flaky"]))
    [record] = result.records
    assert record.claims and not any(u.item.endswith("extraction") for u in record.unscored)


class _Unavailable(ModelAPI):
    provider = "broken"

    async def generate(self, request: ChatRequest) -> ChatResponse:
        raise ProviderError("401 invalid x-api-key", retryable=False, status=401)


def _broken(model: str) -> ModelAPI:
    return _Unavailable(model)


def test_failed_target_gives_incomplete_data_and_the_run_goes_on(tmp_path: Path) -> None:
    register_provider("broken", f"{__name__}:_broken")
    result = run(config(tmp_path, targets=["broken:model", "fake:accurate"]))
    broken = [r for r in result.records if r.target.spec == "broken:model"]
    assert len(broken) == 2 and len(result.records) == 4
    for record in broken:
        assert record.status == "unscored"
        assert {g.ship_category for g in record.groups} == {ShipCategory.INCOMPLETE_DATA}
        assert record.flags.target_error is not None and "401" in record.flags.target_error
    calls = [c for c in read_jsonl(result.store.directory / "calls.jsonl") if c["spec"] == "broken:model"]
    # The 401 stopped calls to that provider: the second trial's call was never sent.
    assert len(calls) == 1 and calls[0]["error"]["retryable"] is False


def test_a_judge_may_not_be_the_target(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="may not judge its own answers"):
        run(config(tmp_path, targets=["fake:judge"], judges=["fake:judge"]))
    with pytest.raises(ConfigError, match="may not judge its own answers"):
        run(config(tmp_path, targets=["fake:judge"], extractor="fake:judge"))
    assert not any(tmp_path.iterdir()), "refused before any run directory was written"


def test_judges_cycle_through_the_given_specs(tmp_path: Path) -> None:
    result = run(config(tmp_path, scenarios=[SCENARIO_001], judges=["rules", "fake:judge"], judge_count=3))
    [record] = result.records
    assert record.judges == ["rules", "fake:judge", "rules"]
    assert record.extractor == "rules"
    assert all(fc.votes[0].label == fc.votes[2].label for fc in record.final_claims)
    assert any(fc.label == Label.SUPPORTED for fc in record.final_claims)
