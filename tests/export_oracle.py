"""The tidy tables built the slow, obvious way, one Python object per trial: the oracle the DuckDB
builder (medeval/export/build.py) is checked against in tests/test_export_tables.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from medeval.export.tables import COLUMNS, TABLES
from medeval.records.batch_events import is_batch_event
from medeval.records.storage import RunStore, without_chain
from medeval.records.trials import latest_trials
from medeval.review.resolution import Resolution
from medeval.schemas import ShipCategory, TrialRecord


def _join(values: list[Any]) -> str:
    return "; ".join(str(v) for v in values)


def _json(value: Any) -> str | None:
    return json.dumps(value, sort_keys=True) if value else None


def run_tables(directory: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows for one run directory, in the column order of COLUMNS."""
    store = RunStore.open(directory)
    manifest = store.read_manifest()
    study = (manifest.get("study") or {}).get("name")
    created = str(manifest.get("created_at") or "")
    dates = {s["scenario_id"]: s.get("effective_date") for s in manifest.get("scenarios", [])}
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
    resolution = Resolution.of_run(directory)
    trial_keys: dict[str, dict[str, Any]] = {}
    for raw in latest_trials(store.trials()):
        record = TrialRecord.model_validate(without_chain(raw))
        keys = {
            "run_id": record.run_id,
            "study": study,
            "trial_id": record.trial_id,
            "scenario_id": record.scenario_id,
            "target": record.target.spec,
            "variant": record.variant,
            "epoch": record.epoch,
        }
        trial_keys[record.trial_id] = keys
        effective = dates.get(record.scenario_id)
        rows["trials"].append(_trial_row(record, keys, created, effective))
        rows["groups"].extend(_group_rows(record, keys, resolution))
        rows["claims"].extend(_claim_rows(record, keys))
        rows["checklist"].extend(
            {**keys, "question_group": g.question_group, **item.model_dump(), "votes": _join(item.votes)}
            for g in record.groups
            for item in g.checklist
        )
    rows["calls"] = list(_call_rows(store, trial_keys, manifest.get("run_id"), study))
    return {
        name: [tuple(row.get(column) for column in COLUMNS[name]) for row in table]
        for name, table in rows.items()
    }


def _trial_row(
    record: TrialRecord, keys: dict[str, Any], created: str, effective: str | None
) -> dict[str, Any]:
    settings = record.target.settings
    # How many times the persona answered the chatbot back over the whole conversation.
    asked_back = sum(1 for t in record.conversation if t.role == "user" and t.reply_to)
    return {
        **keys,
        "trial_key": record.trial_key,
        "run_created_at": created,
        # The enrollment season a trial's answer key describes: the year of its effective date.
        "season": int(effective[:4]) if effective else None,
        "scenario_version": record.scenario_version,
        "scenario_effective_date": effective,
        "provider": record.target.provider,
        "requested_model": record.target.requested_model,
        "served_models": _join(record.target.served_models),
        "seed": record.seed,
        "status": record.status,
        **record.final_scores.model_dump(include={"accuracy", "completeness", "safety_risk", "calibration"}),
        "disagreement_rate": record.disagreement_rate,
        **record.flags.model_dump(
            include={
                "refusal",
                "hallucinated_specifics",
                "needs_manual_review",
                "served_model_mismatch",
                "target_error",
                "unsafe_contacts",
            }
        ),
        "system_prompt_sha256": settings.get("system_prompt_sha256"),
        "max_output_tokens": settings.get("max_output_tokens"),
        "temperature": settings.get("temperature"),
        "reasoning_effort": settings.get("reasoning_effort"),
        "persona_replies": asked_back,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
    }


def _group_rows(
    record: TrialRecord, keys: dict[str, Any], resolution: Resolution
) -> Iterator[dict[str, Any]]:
    study = {c.value for c in (ShipCategory.ACCURATE_COMPLETE, ShipCategory.SUBSTANTIVE_INCOMPLETE)}
    study |= {ShipCategory.NOT_SUBSTANTIVE.value, ShipCategory.INCORRECT.value}
    for group in record.groups:
        final = resolution.final(record.trial_id, group.question_group, group.ship_category.value)
        category = final.category
        yield {
            "judge_category": final.judge_category,
            "decided_by": final.decided_by,
            "decided_blind": final.blind,
            "review_status": final.review_status,
            **keys,
            "question_group": group.question_group,
            "turn_ids": _join(group.turn_ids),
            "scored": group.scored,
            "ship_category": category,
            "accurate_complete": int(category == ShipCategory.ACCURATE_COMPLETE.value),
            "study_category": category in study,
            "accuracy": group.scores.accuracy,
            "completeness": group.scores.completeness,
            "safety_risk": group.scores.safety_risk,
            "non_answer": group.non_answer,
            "missing_required_points": _join(group.scores.missing_required_points),
            "reason": group.reason,
            "deviations": _join(group.deviations),
        }


def _claim_rows(record: TrialRecord, keys: dict[str, Any]) -> Iterator[dict[str, Any]]:
    final = {c.claim_id: c for c in record.final_claims}
    for claim in record.claims:
        decided = final.get(claim.claim_id)
        yield {
            **keys,
            "turn_id": claim.turn_id,
            "claim_id": claim.claim_id,
            "text": claim.text,
            "type": claim.type,
            "label": decided.label if decided else None,
            "severity": decided.severity if decided else None,
            "evidence": _join(decided.evidence) if decided else None,
            "unanimous": decided.unanimous if decided else None,
            "decided_by": decided.decided_by if decided else None,
        }


def _call_rows(
    store: RunStore, trial_keys: dict[str, dict[str, Any]], run_id: Any, study: str | None
) -> Iterator[dict[str, Any]]:
    for call in store.call_records():
        if is_batch_event(call):
            continue  # a batch's own state line; its items are call records with a batch_id
        response = call.get("response") or {}
        request = call.get("request") or {}
        usage = call.get("usage") or {}
        error = call.get("error") or {}
        keys = trial_keys.get(str(call.get("trial_id")), {})
        system = request.get("system")
        yield {
            "run_id": call.get("run_id") or run_id,
            "study": study,
            "trial_id": call.get("trial_id"),
            "scenario_id": call.get("scenario_id"),
            "target": call.get("target"),
            "variant": keys.get("variant"),
            "epoch": call.get("epoch"),
            **{k: call.get(k) for k in ("call_id", "attempt", "timestamp", "role", "spec", "turn_id")},
            "judge_index": call.get("judge_index"),
            "served_model": call.get("served_model"),
            "cache": call.get("cache"),
            "batch_id": call.get("batch_id"),
            "input_tokens": usage.get("input_tokens"),
            "output_tokens": usage.get("output_tokens"),
            "reasoning_tokens": usage.get("reasoning_tokens"),
            "cost_usd": call.get("cost_usd"),
            "latency_ms": call.get("latency_ms"),
            "finish_reason": response.get("finish_reason"),
            "system_prompt_sha256": _sha(system) if system is not None else None,
            "sampling_requested": _json(request.get("sampling")),
            "sampling_sent": _json(response.get("sampling_sent")),
            "sampling_dropped": _json(response.get("sampling_dropped")),
            "error_status": None if error.get("status") is None else str(error.get("status")),
            "error": error.get("message"),
        }


def _sha(text: str) -> str:
    from medeval.records.hashing import sha256_text

    return sha256_text(text)


def same_tables(built: dict[str, Path], run_dir: Path) -> dict[str, tuple[int, int]]:
    """Each table's rows from the built Parquet files against the oracle's, as sorted sets (JSON
    text compared as values, floats to 9 places); returns name -> (rows built, rows expected) for
    the tables that differ."""
    import duckdb

    expected = run_tables(run_dir)
    con = duckdb.connect()
    differ = {}
    for name in TABLES:
        got = con.execute(f"select * from read_parquet('{built[name]}')").fetchall()
        a = sorted((tuple(_norm(v) for v in row) for row in got), key=repr)
        b = sorted((tuple(_norm(v) for v in row) for row in expected[name]), key=repr)
        if a != b:
            differ[name] = (len(a), len(b))
    con.close()
    return differ


def _norm(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return round(value, 9) if isinstance(value, float) else value
