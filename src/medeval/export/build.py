"""Build one run's tidy tables in DuckDB, straight from its JSONL files, as Parquet files.

DuckDB reads results.jsonl and calls.jsonl with the columns named below (no schema detection, no
Python object per trial), keeps the latest record of each trial (a retry supersedes a failed
record), and writes each table with SQL. People's codes come in as one small table from the
review resolution (review/resolution.py), so `groups` carries the final category every view shows.
The database lives in a scratch file with a memory limit, so a run of any size builds in bounded
memory (past the limit, DuckDB spills to disk).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import duckdb

from medeval.export.tables import COLUMNS, ROW_GROUP, TABLES
from medeval.records.storage import CALLS, MANIFEST, RESULTS
from medeval.review.resolution import Resolution

#: DuckDB's buffer pool while building; past it, tables spill to the scratch folder.
MEMORY_MIB = 256
#: Rows per row group of the staged trials: small, so a run of any size is written in bounded memory.
STAGED_ROW_GROUP = 2048
#: The JSON reader's buffer holds the longest line read, never less than this.
MIN_OBJECT_SIZE = 1 << 20
_SCORES = "STRUCT(accuracy DOUBLE, completeness DOUBLE, safety_risk DOUBLE, calibration DOUBLE, "
_SCORES += "missing_required_points VARCHAR[])"
TRIAL_JSON: dict[str, str] = {
    "trial_id": "VARCHAR",
    "trial_key": "VARCHAR",
    "run_id": "VARCHAR",
    "scenario_id": "VARCHAR",
    "scenario_version": "VARCHAR",
    "variant": "VARCHAR",
    "epoch": "BIGINT",
    "seed": "BIGINT",
    "status": "VARCHAR",
    "started_at": "VARCHAR",
    "finished_at": "VARCHAR",
    "disagreement_rate": "DOUBLE",
    "target": (
        "STRUCT(spec VARCHAR, provider VARCHAR, requested_model VARCHAR, served_models VARCHAR[], "
        "settings STRUCT(system_prompt_sha256 VARCHAR, max_output_tokens BIGINT, temperature DOUBLE, "
        "reasoning_effort VARCHAR))"
    ),
    "final_scores": _SCORES,
    "flags": (
        "STRUCT(refusal BOOLEAN, hallucinated_specifics BOOLEAN, needs_manual_review BOOLEAN, "
        "served_model_mismatch BOOLEAN, target_error VARCHAR, unsafe_contacts BIGINT)"
    ),
    "conversation": "STRUCT(role VARCHAR, reply_to VARCHAR)[]",
    "groups": (
        f"STRUCT(question_group VARCHAR, turn_ids VARCHAR[], scored BOOLEAN, scores {_SCORES}, "
        "ship_category VARCHAR, checklist STRUCT(fact_id VARCHAR, optional BOOLEAN, code VARCHAR, "
        "votes VARCHAR[], decided_by VARCHAR)[], non_answer VARCHAR, reason VARCHAR, deviations VARCHAR[])[]"
    ),
    "claims": "STRUCT(claim_id VARCHAR, turn_id VARCHAR, text VARCHAR, type VARCHAR)[]",
    "final_claims": (
        "STRUCT(claim_id VARCHAR, label VARCHAR, severity VARCHAR, evidence VARCHAR[], unanimous BOOLEAN, "
        "decided_by VARCHAR)[]"
    ),
}
CALL_JSON: dict[str, str] = {
    "event": "VARCHAR",
    "run_id": "VARCHAR",
    "trial_id": "VARCHAR",
    "scenario_id": "VARCHAR",
    "target": "VARCHAR",
    "epoch": "BIGINT",
    "call_id": "VARCHAR",
    "attempt": "BIGINT",
    "timestamp": "VARCHAR",
    "role": "VARCHAR",
    "spec": "VARCHAR",
    "turn_id": "VARCHAR",
    "judge_index": "BIGINT",
    "served_model": "VARCHAR",
    "cache": "VARCHAR",
    "batch_id": "VARCHAR",
    "usage": "STRUCT(input_tokens BIGINT, output_tokens BIGINT, reasoning_tokens BIGINT)",
    "cost_usd": "DOUBLE",
    "latency_ms": "DOUBLE",
    "request": "STRUCT(system VARCHAR, sampling JSON)",
    "response": "STRUCT(finish_reason VARCHAR, sampling_sent JSON, sampling_dropped JSON)",
    "error": "STRUCT(status VARCHAR, message VARCHAR)",
}
_STUDY = "('accurate_complete', 'substantive_incomplete', 'not_substantive', 'incorrect')"
#: Every table's key columns, from a row `k` that carries the trial's keys.
_KEYS = "k.run_id, m.study, k.trial_id, k.scenario_id, k.target_spec AS target, k.variant, k.epoch"
_KEYED = "SELECT t.run_id, t.trial_id, t.scenario_id, t.target.spec AS target_spec, t.variant, t.epoch"


def _join(expression: str) -> str:
    """A list as one `; `-joined text, NULL elements as "None" (as Python's str() gives them)."""
    return f"array_to_string(list_transform(coalesce({expression}, []), lambda x: coalesce(x, 'None')), '; ')"


def _json_text(expression: str) -> str:
    """A JSON value as text, or NULL when it is empty or absent."""
    return (
        f"CASE WHEN {expression} IS NULL OR {expression}::VARCHAR IN ('{{}}', '[]', 'null', '\"\"', "
        f"'0', 'false') THEN NULL ELSE {expression}::VARCHAR END"
    )


_SOURCES: dict[str, str] = {
    "trials": f"""SELECT {_KEYS}, k.trial_key, m.created_at AS run_created_at,
        TRY_CAST(nullif(left(d.effective_date, 4), '') AS BIGINT) AS season, k.scenario_version,
        d.effective_date AS scenario_effective_date, k.target.provider AS provider,
        k.target.requested_model AS requested_model, {_join("k.target.served_models")} AS served_models,
        k.seed, k.status, k.final_scores.accuracy AS accuracy, k.final_scores.completeness AS completeness,
        k.final_scores.safety_risk AS safety_risk, k.final_scores.calibration AS calibration,
        k.disagreement_rate, coalesce(k.flags.refusal, false) AS refusal,
        coalesce(k.flags.hallucinated_specifics, false) AS hallucinated_specifics,
        coalesce(k.flags.needs_manual_review, false) AS needs_manual_review,
        coalesce(k.flags.served_model_mismatch, false) AS served_model_mismatch,
        k.flags.target_error AS target_error, coalesce(k.flags.unsafe_contacts, 0) AS unsafe_contacts,
        k.target.settings.system_prompt_sha256 AS system_prompt_sha256,
        k.target.settings.max_output_tokens AS max_output_tokens,
        k.target.settings.temperature AS temperature, k.target.settings.reasoning_effort AS reasoning_effort,
        len(list_filter(coalesce(k.conversation, []),
            lambda c: c.role = 'user' AND coalesce(c.reply_to, '') <> '')) AS persona_replies,
        k.started_at, k.finished_at
        FROM (SELECT *, target.spec AS target_spec FROM kept) k CROSS JOIN meta m
        LEFT JOIN dates d ON d.scenario_id = k.scenario_id""",
    "groups": f"""SELECT {_KEYS}, k.grp.question_group AS question_group,
        {_join("k.grp.turn_ids")} AS turn_ids, k.grp.scored AS scored,
        coalesce(p.category, k.judged) AS ship_category,
        (coalesce(p.category, k.judged) = 'accurate_complete')::INTEGER AS accurate_complete,
        coalesce(p.category, k.judged) IN {_STUDY} AS study_category,
        k.judged AS judge_category, coalesce(p.decided_by, 'judges') AS decided_by,
        p.blind AS decided_blind,
        coalesce(p.status, CASE WHEN k.judged = 'needs_review' THEN 'awaiting_review' ELSE 'judges' END)
            AS review_status,
        k.grp.scores.accuracy AS accuracy, k.grp.scores.completeness AS completeness,
        k.grp.scores.safety_risk AS safety_risk, k.grp.non_answer AS non_answer,
        {_join("k.grp.scores.missing_required_points")} AS missing_required_points,
        k.grp.reason AS reason, {_join("k.grp.deviations")} AS deviations
        FROM (SELECT *, CASE WHEN NOT grp.scored AND grp.ship_category = 'not_scored'
                THEN 'not_applicable' ELSE grp.ship_category END AS judged
            FROM ({_KEYED}, unnest(t.groups) AS grp FROM kept t)) k
        CROSS JOIN meta m
        LEFT JOIN people p ON p.trial_id = k.trial_id AND p.question_group = k.grp.question_group""",
    "claims": f"""SELECT {_KEYS}, k.cl.turn_id AS turn_id, k.cl.claim_id AS claim_id, k.cl.text AS text,
        k.cl.type AS type, k.fc.label AS label, k.fc.severity AS severity,
        CASE WHEN k.fc IS NULL THEN NULL ELSE {_join("k.fc.evidence")} END AS evidence,
        k.fc.unanimous AS unanimous, k.fc.decided_by AS decided_by
        FROM (SELECT *, list_filter(fcs, lambda f: f.claim_id = cl.claim_id)[-1] AS fc
            FROM ({_KEYED}, t.final_claims AS fcs, unnest(t.claims) AS cl FROM kept t)) k
        CROSS JOIN meta m""",
    "checklist": f"""SELECT {_KEYS}, k.question_group, k.item.fact_id AS fact_id,
        coalesce(k.item.optional, false) AS optional, k.item.code AS code,
        {_join("k.item.votes")} AS votes, coalesce(k.item.decided_by, 'majority') AS decided_by
        FROM (SELECT *, unnest(grp.checklist) AS item FROM
            (SELECT *, grp.question_group AS question_group FROM
                ({_KEYED}, unnest(t.groups) AS grp FROM kept t))) k
        CROSS JOIN meta m""",
    "calls": f"""SELECT coalesce(nullif(c.run_id, ''), m.run_id) AS run_id, m.study, c.trial_id,
        c.scenario_id, c.target, v.variant, c.epoch, c.call_id, c.attempt, c.timestamp, c.role, c.spec,
        c.turn_id, c.judge_index, c.served_model, c.cache, c.batch_id,
        c.usage.input_tokens AS input_tokens, c.usage.output_tokens AS output_tokens,
        c.usage.reasoning_tokens AS reasoning_tokens, c.cost_usd, c.latency_ms,
        c.response.finish_reason AS finish_reason,
        CASE WHEN c.request.system IS NULL THEN NULL ELSE sha256(c.request.system) END
            AS system_prompt_sha256,
        {_json_text("c.request.sampling")} AS sampling_requested,
        {_json_text("c.response.sampling_sent")} AS sampling_sent,
        {_json_text("c.response.sampling_dropped")} AS sampling_dropped,
        c.error.status AS error_status, c.error.message AS error
        FROM call_rows c CROSS JOIN meta m
        LEFT JOIN (SELECT DISTINCT trial_id, variant FROM kept) v ON v.trial_id = c.trial_id""",
}


def build_run_tables(run_dir: Path, out: Path) -> None:
    """Write NAME.parquet for every table of one run into `out` (which exists)."""
    manifest = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))
    sizes = {name: _longest_line(run_dir / name) for name in (RESULTS, CALLS)}
    # The reader's buffers (two threads, two each) are allocated whole, beside the buffer pool.
    limit = MEMORY_MIB + 4 * max(sizes.values()) // (1 << 20)
    with tempfile.TemporaryDirectory(prefix="medeval-tables-") as scratch:
        con = duckdb.connect(
            str(Path(scratch) / "build.duckdb"),
            config={
                "memory_limit": f"{limit}MiB",
                "threads": 2,
                # No table here relies on the order rows were read in: keeping it would make
                # DuckDB hold what it has read.
                "preserve_insertion_order": False,
                "temp_directory": str(Path(scratch) / "spill"),
            },
        )
        try:
            con.execute("SET enable_progress_bar = false")
            _load(con, run_dir, manifest, sizes, Path(scratch))
            for name in TABLES:
                target = str(out / f"{name}.parquet").replace("'", "''")
                # Stored in export order, so an export streams the files instead of sorting them.
                con.execute(
                    f"COPY ({_select(name)} ORDER BY ALL) TO '{target}' "
                    f"(FORMAT parquet, ROW_GROUP_SIZE {ROW_GROUP})"
                )
        finally:
            con.close()


def _load(
    con: duckdb.DuckDBPyConnection,
    run_dir: Path,
    manifest: dict[str, Any],
    sizes: dict[str, int],
    scratch: Path,
) -> None:
    study = (manifest.get("study") or {}).get("name") if isinstance(manifest.get("study"), dict) else None
    con.execute(
        "CREATE TABLE meta AS SELECT ?::VARCHAR AS study, ?::VARCHAR AS created_at, ?::VARCHAR AS run_id",
        [study, str(manifest.get("created_at") or ""), manifest.get("run_id")],
    )
    con.execute("CREATE TABLE dates (scenario_id VARCHAR, effective_date VARCHAR)")
    dates = [
        (s["scenario_id"], s.get("effective_date"))
        for s in manifest.get("scenarios", [])
        if isinstance(s, dict) and "scenario_id" in s
    ]
    if dates:
        con.executemany("INSERT INTO dates VALUES (?, ?)", dates)
    con.execute(
        "CREATE TABLE people (trial_id VARCHAR, question_group VARCHAR, category VARCHAR, "
        "decided_by VARCHAR, blind BOOLEAN, status VARCHAR)"
    )
    resolution = Resolution.of_run(run_dir)
    rows = []
    for outcome in resolution.outcomes:
        final = resolution.final(outcome.trial_id, outcome.question_group, "")
        rows.append(
            (
                outcome.trial_id,
                outcome.question_group,
                final.category or None,
                final.decided_by if final.by_people else None,
                final.blind,
                final.review_status,
            )
        )
    if rows:
        con.executemany("INSERT INTO people VALUES (?, ?, ?, ?, ?, ?)", rows)
    results = run_dir / RESULTS
    if results.is_file() and results.stat().st_size:
        # One pass over the JSON into a scratch Parquet file (written a few thousand rows at a time,
        # so memory stays bounded however large the run); every table then reads only its columns.
        staged = str(scratch / "trials.parquet").replace("'", "''")
        con.execute(
            f"COPY (SELECT * FROM read_ndjson({_sql_path(results)}, columns={_columns(TRIAL_JSON)}, "
            f"ignore_errors=true, maximum_object_size={sizes[RESULTS]}) WHERE trial_id IS NOT NULL) "
            f"TO '{staged}' (FORMAT parquet, ROW_GROUP_SIZE {STAGED_ROW_GROUP})"
        )
        con.execute(f"CREATE VIEW raw AS SELECT * FROM read_parquet('{staged}', file_row_number = true)")
    else:
        empty = f"SELECT {_nulls(TRIAL_JSON)}, NULL::BIGINT AS file_row_number"
        con.execute(f"CREATE VIEW raw AS SELECT * FROM ({empty}) WHERE false")
    # The latest record of each trial counts (a retry supersedes its failed record), as in the
    # report. The choice runs over narrow rows, and the wide rows are only filtered.
    con.execute(
        "CREATE TABLE latest AS SELECT arg_max(file_row_number, finished_at) AS row FROM raw "
        "GROUP BY coalesce(trial_key, trial_id)"
    )
    con.execute(
        "CREATE VIEW kept AS SELECT * EXCLUDE (file_row_number) FROM raw "
        "WHERE file_row_number IN (SELECT row FROM latest)"
    )
    calls = run_dir / CALLS
    if calls.is_file() and calls.stat().st_size:
        # Read once, by the calls table's COPY.
        con.execute(
            f"CREATE VIEW call_rows AS SELECT * FROM read_ndjson({_sql_path(calls)}, "
            f"columns={_columns(CALL_JSON)}, ignore_errors=true, maximum_object_size={sizes[CALLS]}) "
            "WHERE coalesce(event, '') NOT LIKE 'batch\\_%' ESCAPE '\\' AND "
            "(call_id IS NOT NULL OR role IS NOT NULL)"
        )
    else:
        con.execute(f"CREATE VIEW call_rows AS SELECT * FROM (SELECT {_nulls(CALL_JSON)}) WHERE false")


def _select(name: str) -> str:
    """The table's rows, cast to its documented columns in their documented order."""
    columns = ", ".join(f'CAST("{c}" AS {kind}) AS "{c}"' for c, kind in COLUMNS[name].items())
    return f"SELECT {columns} FROM ({_SOURCES[name]})"


def _sql_path(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def _columns(spec: dict[str, str]) -> str:
    return "{" + ", ".join(f"'{name}': '{kind}'" for name, kind in spec.items()) + "}"


def _nulls(spec: dict[str, str]) -> str:
    return ", ".join(f'NULL::{kind} AS "{name}"' for name, kind in spec.items())


def _longest_line(path: Path) -> int:
    """The JSON reader's buffer must hold the longest line; read 16 MB at a time to find it."""
    longest = current = 0
    if not path.is_file():
        return MIN_OBJECT_SIZE
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 24):
            start = 0
            while (end := chunk.find(b"\n", start)) >= 0:
                longest = max(longest, current + end - start)
                current, start = 0, end + 1
            current += len(chunk) - start
    return max(MIN_OBJECT_SIZE, max(longest, current) + 1)
