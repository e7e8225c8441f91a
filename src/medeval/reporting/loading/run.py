"""Reading run directories: the manifests in Python, the results.jsonl files through duckdb.

duckdb parses the JSONL files directly (no server, no Python object per trial), so every count and
mean in a report is a SQL aggregate. Its tables live in a temporary database file with a bounded
buffer pool (MEMORY_LIMIT), so a run of a million trials is read in the same memory as one of ten
thousand: what does not fit stays on disk. Whatever Python needs row by row comes through `stream`,
a batch at a time. Columns are declared explicitly: inferring nested types from a
sample would turn a record that differs from the sample into NULLs. A torn or garbled line comes
back from `read_ndjson(ignore_errors=true)` as a row of NULLs; those rows are counted, reported with a
warning and left out.
"""

from __future__ import annotations

import json
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
from pydantic import BaseModel, ConfigDict, Field

from medeval.errors import UserError
from medeval.records.storage import CALLS, MANIFEST, RESULTS, TornLineWarning, read_jsonl
from medeval.scenarios.load import scenario_problems
from medeval.schemas import Scenario, TrialRecord

_SCORES = (
    "STRUCT(accuracy DOUBLE, completeness DOUBLE, safety_risk DOUBLE, calibration DOUBLE, "
    "missing_required_points VARCHAR[], error_categories VARCHAR[])"
)
TRIAL_COLUMNS: dict[str, str] = {
    "trial_id": "VARCHAR",
    "trial_key": "VARCHAR",
    "finished_at": "VARCHAR",
    "run_id": "VARCHAR",
    "scenario_id": "VARCHAR",
    "scenario_version": "VARCHAR",
    "scenario_sha256": "VARCHAR",
    "epoch": "BIGINT",
    "variant": "VARCHAR",
    "status": "VARCHAR",
    "disagreement_rate": "DOUBLE",
    "judges": "VARCHAR[]",
    "target": "STRUCT(spec VARCHAR, provider VARCHAR, requested_model VARCHAR, served_models VARCHAR[])",
    "final_scores": _SCORES,
    "groups": (
        f"STRUCT(question_group VARCHAR, turn_ids VARCHAR[], scored BOOLEAN, scores {_SCORES}, "
        "ship_category VARCHAR, required_points VARCHAR[], deviations VARCHAR[], "
        "pending STRUCT(item VARCHAR, reason VARCHAR)[])[]"
    ),
    "flags": (
        "STRUCT(refusal BOOLEAN, hallucinated_specifics BOOLEAN, needs_manual_review BOOLEAN, "
        "served_model_mismatch BOOLEAN, dropped_claims BIGINT, target_error VARCHAR, unsafe_contacts BIGINT)"
    ),
    "final_claims": (
        "STRUCT(claim_id VARCHAR, turn_id VARCHAR, label VARCHAR, evidence VARCHAR[], severity VARCHAR, "
        "unanimous BOOLEAN, votes STRUCT(judge_index BIGINT, label VARCHAR)[])[]"
    ),
    "unscored": "STRUCT(item VARCHAR, reason VARCHAR)[]",
    # NULL in records written before the contacts check.
    "contacts": (
        "STRUCT(registry_as_of VARCHAR, findings STRUCT(turn_id VARCHAR, origin VARCHAR, kind VARCHAR, "
        "text VARCHAR, normalized VARCHAR, contact_class VARCHAR, safety BOOLEAN, service VARCHAR, "
        "reason VARCHAR, passage VARCHAR)[])"
    ),
}
# Only the exemplar look-up needs the text; it re-reads the files for a handful of trials.
TEXT_COLUMNS: dict[str, str] = {
    "trial_id": "VARCHAR",
    "finished_at": "VARCHAR",
    "conversation": "STRUCT(role VARCHAR, text VARCHAR, turn_id VARCHAR, question_group VARCHAR)[]",
    # Spans are [start, end] pairs in schema 1 and {"start", "end"} objects in schema 2.
    "claims": "STRUCT(claim_id VARCHAR, turn_id VARCHAR, text VARCHAR, quote_spans JSON)[]",
}
#: duckdb's buffer pool in MiB, beside its JSON reader's buffers (four times the longest line: two
#: threads, two buffers each); past it, tables and intermediate results go to the temporary directory.
MEMORY_MIB = 256
#: The reader's buffer is as large as the largest object it may meet, and it is allocated whole: it is
#: sized to the longest line of the files read, never below this.
MIN_OBJECT_SIZE = 1 << 20
#: Rows fetched from duckdb at a time by `Corpus.stream`.
BATCH = 10_000
CALL_COLUMNS: dict[str, str] = {
    "role": "VARCHAR",
    "spec": "VARCHAR",
    "usage": (
        "STRUCT(input_tokens BIGINT, output_tokens BIGINT, cached_tokens BIGINT, cache_write_tokens BIGINT)"
    ),
    "latency_ms": "DOUBLE",
    "cost_usd": "DOUBLE",
}


def span_pairs(value: Any) -> list[tuple[int, int]]:
    """Quote spans as (start, end) pairs, from either schema's stored form."""
    if isinstance(value, str):
        value = json.loads(value)
    pairs: list[tuple[int, int]] = []
    for span in value or []:
        if isinstance(span, dict):
            pairs.append((int(span["start"]), int(span["end"])))
        else:
            pairs.append((int(span[0]), int(span[1])))
    return pairs


def key_name(scenario_id: str, sha256: str = "") -> str:
    """The page's name for the answer key a trial was judged with: the scenario id, plus the key
    file's sha256 when it was recorded (two seasons' keys share the id)."""
    return f"{scenario_id}@{sha256[:16]}" if sha256 else scenario_id


class ScenarioRef(BaseModel):
    model_config = ConfigDict(extra="ignore")

    scenario_id: str
    path: str = ""
    version: str = ""
    sha256: str = ""
    effective_date: str | None = None


class RunSnapshot(BaseModel):
    """What a run's numbers describe, from its manifest (plus the served models seen in results)."""

    model_config = ConfigDict(extra="ignore")

    run_id: str
    directory: Path
    created_at: str = ""
    medeval_version: str = ""
    seed: int | None = None
    git_commit: str | None = None
    targets: list[str] = Field(default_factory=list)
    judges: list[str] = Field(default_factory=list)
    judge_count: int | None = None
    extractor: str | None = None
    adjudicator: str | None = None
    prompts: dict[str, str] = Field(default_factory=dict)
    scenarios: list[ScenarioRef] = Field(default_factory=list)
    models: dict[str, dict[str, Any]] = Field(default_factory=dict)
    served_models: dict[str, list[str]] = Field(default_factory=dict, description="target -> served ids")
    variants: list[str] = Field(default_factory=list, description="The variation matrix's levels")
    #: Targets run with their provider's own web search on (`--web-search`): never model-only.
    search_targets: list[str] = Field(default_factory=list)
    #: A run of conversations collected outside the harness (`medeval ingest`): provenance, files
    #: and each conversation's matching, as the manifest records them.
    ingest: dict[str, Any] | None = None

    def judge_panel(self) -> list[str]:
        count = self.judge_count or len(self.judges)
        return [self.judges[i % len(self.judges)] for i in range(count)] if self.judges else []


def read_snapshot(directory: Path) -> RunSnapshot:
    manifest_path = directory / MANIFEST
    if not directory.is_dir():
        raise UserError(f"{directory}: no such run directory; pass a directory made by `medeval run`")
    if not manifest_path.is_file():
        raise UserError(f"{directory}: no {MANIFEST} here; pass a run directory made by `medeval run`")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise UserError(f"{manifest_path}: cannot read the manifest ({error}); is the run intact?") from error
    if not isinstance(manifest, dict):
        raise UserError(f"{manifest_path}: the manifest is not a JSON object; is the run intact?")
    config = manifest.get("config") or {}
    return RunSnapshot(
        run_id=str(manifest.get("run_id") or directory.name),
        directory=directory,
        created_at=str(manifest.get("created_at", "")),
        medeval_version=str(manifest.get("medeval_version", "")),
        seed=manifest.get("seed"),
        git_commit=manifest.get("git_commit"),
        targets=list(config.get("targets") or []),
        judges=list(config.get("judges") or []),
        judge_count=config.get("judge_count"),
        extractor=config.get("extractor") or ((config.get("judges") or [None])[0]),
        adjudicator=config.get("adjudicator"),
        prompts=dict(manifest.get("prompts") or {}),
        scenarios=[ScenarioRef.model_validate(s) for s in manifest.get("scenarios") or []],
        models=dict(manifest.get("models") or {}),
        variants=[str(v) for v in manifest.get("variants") or []],
        search_targets=sorted(
            str(spec)
            for spec, settings in (config.get("target_settings") or {}).items()
            if isinstance(settings, dict) and settings.get("web_search")
        ),
        ingest=manifest["ingest"] if isinstance(manifest.get("ingest"), dict) else None,
    )


def longest_line(paths: list[Path]) -> int:
    """The reader's object size for these files: their longest line (read 16 MB at a time), at
    least MIN_OBJECT_SIZE."""
    longest = 0
    for path in paths:
        with path.open("rb") as handle:
            current = 0
            while chunk := handle.read(1 << 24):
                start = 0
                while (end := chunk.find(b"\n", start)) >= 0:
                    longest = max(longest, current + end - start)
                    current, start = 0, end + 1
                current += len(chunk) - start
            longest = max(longest, current)
    return max(MIN_OBJECT_SIZE, longest + 1)


def _sql_list(paths: list[Path]) -> str:
    return "[" + ", ".join("'" + str(p).replace("'", "''") + "'" for p in paths) + "]"


def _columns_sql(columns: dict[str, str]) -> str:
    return "{" + ", ".join(f"'{name}': '{kind}'" for name, kind in columns.items()) + "}"


class Corpus:
    """Every trial of one or more runs, as duckdb tables.

    `trials`: one row per trial (typed columns above plus `run_dir`);
    `trial_groups`: one row per trial and question group;
    `final_claims`: one row per adjudicated claim; `turn_groups`: each turn's question group;
    `calls`: one row per model call, from calls.jsonl where present.
    """

    def __init__(self, directories: list[Path]) -> None:
        if not directories:
            raise UserError("no run directory given; pass one or more directories made by `medeval run`")
        directories = [d.resolve() for d in directories]
        self.snapshots = [read_snapshot(d) for d in directories]
        self.result_files = [d / RESULTS for d in directories]
        missing = [str(p) for p in self.result_files if not p.is_file()]
        if missing:
            raise UserError(f"{missing[0]}: no results in this run yet; run it (or resume it) first")
        self._scratch = tempfile.TemporaryDirectory(prefix="medeval-report-")
        scratch = Path(self._scratch.name)
        calls = [d / CALLS for d in directories if (d / CALLS).is_file()]
        self.object_size = longest_line([*self.result_files, *calls])
        limit = MEMORY_MIB + 4 * self.object_size // (1 << 20)
        self.con = duckdb.connect(
            str(scratch / "report.duckdb"),
            # No query here relies on the order rows were read in (each one that lists rows sorts
            # them); keeping that order would make duckdb hold what it has read while it sorts.
            config={
                "memory_limit": f"{limit}MiB",
                "threads": 2,
                "preserve_insertion_order": False,
                "temp_directory": str(scratch / "spill"),
            },
        )
        self.con.execute("SET enable_progress_bar = false")  # it drew on the terminal in a long load
        #: (trial_id, finished_at) of records a later retry superseded: few, unlike the trials kept.
        self.superseded: set[tuple[Any, Any]] = set()
        self.skipped_lines = self._load_trials()
        self._load_calls(calls)
        served = self.con.execute(
            "SELECT run_dir, target.spec, list_sort(list_distinct(flatten(list(target.served_models)))) "
            "FROM trials GROUP BY ALL"
        ).fetchall()
        by_dir = {str(s.directory): s for s in self.snapshots}
        for run_dir, spec, models in served:
            by_dir[run_dir].served_models[spec] = list(models)
        self._scenario_cache: dict[tuple[str, str, str], Scenario | None] = {}

    def _load_trials(self) -> int:
        files = _sql_list(self.result_files)
        self.con.execute(
            f"CREATE TABLE raw AS SELECT *, parse_dirpath(filename) AS run_dir FROM read_ndjson({files}, "
            f"columns={_columns_sql(TRIAL_COLUMNS)}, ignore_errors=true, filename=true, "
            f"maximum_object_size={self.object_size})"
        )
        rows = self.con.execute("SELECT run_dir, count(*) FROM raw WHERE trial_id IS NULL GROUP BY ALL")
        skipped = 0
        for run_dir, count in rows.fetchall():
            skipped += count
            warnings.warn(
                f"{run_dir}/{RESULTS}: {count} torn or unreadable line(s) skipped",
                TornLineWarning,
                stacklevel=3,
            )
        # A trial run again with --retry-failed appends a newer record under the same key: the
        # latest one counts, once.
        # The ranking runs over narrow rows (rowid and keys), so it costs little memory however
        # wide the trials are; the wide rows are then copied once, less the superseded ones.
        self.con.execute(
            "CREATE TABLE superseded AS SELECT rowid AS row, trial_id, finished_at, rank FROM (SELECT rowid, "
            "trial_id, finished_at, row_number() OVER (PARTITION BY run_dir, coalesce(trial_key, trial_id) "
            "ORDER BY finished_at DESC) AS rank FROM raw WHERE trial_id IS NOT NULL)"
        )
        self.superseded = {
            (a, b)
            for a, b in self.query(
                "SELECT trial_id, finished_at FROM superseded WHERE rank > 1 "
                "EXCEPT SELECT trial_id, finished_at FROM superseded WHERE rank = 1"
            )
        }
        self.con.execute(
            "CREATE TABLE trials AS SELECT * FROM raw WHERE trial_id IS NOT NULL "
            "AND rowid NOT IN (SELECT row FROM superseded WHERE rank > 1)"
        )
        self.con.execute("DROP TABLE raw")
        self.con.execute("DROP TABLE superseded")
        self.con.execute(
            "CREATE TABLE trial_groups AS SELECT t.run_dir, t.run_id, t.trial_id, t.scenario_id, "
            "t.scenario_version, t.scenario_sha256, t.epoch, coalesce(t.variant, '') AS variant, "
            "t.target.spec AS target, "
            "array_to_string(t.target.served_models, ' ') AS served_model, t.status, "
            "t.flags.needs_manual_review AS needs_review, g.question_group, g.scored, g.ship_category, "
            "g.scores.accuracy AS accuracy, g.scores.completeness AS completeness, "
            "g.scores.safety_risk AS safety_risk, g.scores.calibration AS calibration, "
            "g.scores.missing_required_points AS missing_required_points, "
            "g.scores.error_categories AS error_categories, coalesce(g.deviations, []) AS deviations "
            "FROM trials t, unnest(t.groups) AS u(g)"
        )
        # One row per final claim, with the verifiers' labels in judge order (the struct sorts by
        # judge_index, its first field), and the question group of each turn: agreement and failure
        # queries then need no regrouping.
        self.con.execute(
            "CREATE TABLE final_claims AS SELECT t.trial_id, t.scenario_id, t.scenario_sha256, "
            "t.target.spec AS target, "
            "fc.claim_id, fc.turn_id, fc.label, fc.evidence, fc.severity, fc.unanimous, "
            "list_transform(list_sort(fc.votes), lambda v: v.label) AS labels "
            "FROM trials t, unnest(t.final_claims) AS u(fc)"
        )
        self.con.execute(
            "CREATE TABLE turn_groups AS SELECT DISTINCT trial_id, question_group, turn_id FROM "
            "(SELECT t.trial_id, g.question_group, unnest(g.turn_ids) AS turn_id FROM trials t, "
            "unnest(t.groups) AS u(g))"
        )
        return skipped

    def _load_calls(self, files: list[Path]) -> None:
        if files:
            self.con.execute(
                f"CREATE TABLE calls AS SELECT * FROM read_ndjson({_sql_list(files)}, "
                f"columns={_columns_sql(CALL_COLUMNS)}, ignore_errors=true, "
                f"maximum_object_size={self.object_size}) WHERE role IS NOT NULL"
            )
        else:
            columns = ", ".join(f"{name} {kind}" for name, kind in CALL_COLUMNS.items())
            self.con.execute(f"CREATE TABLE calls ({columns})")

    # Queries -------------------------------------------------------------------------------------
    def query(self, sql: str, parameters: list[Any] | None = None) -> list[tuple[Any, ...]]:
        return self.con.execute(sql, parameters or []).fetchall()

    def stream(self, sql: str, parameters: list[Any] | None = None) -> Iterator[tuple[Any, ...]]:
        """A query's rows a batch at a time, on a cursor of its own: for work done row by row in
        Python (a report's figures must not hold every trial in memory at once)."""
        cursor = self.con.cursor()
        try:
            cursor.execute(sql, parameters or [])
            while rows := cursor.fetchmany(BATCH):
                yield from rows
        finally:
            cursor.close()

    def trial_count(self) -> int:
        return int(self.query("SELECT count(*) FROM trials")[0][0])

    def texts(self, trial_ids: list[str]) -> dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
        """Conversation and claims of a few trials, re-read from the files."""
        if not trial_ids:
            return {}
        rows = self.con.execute(
            f"SELECT trial_id, finished_at, conversation, claims FROM read_ndjson("
            f"{_sql_list(self.result_files)}, columns={_columns_sql(TEXT_COLUMNS)}, ignore_errors=true, "
            f"maximum_object_size={self.object_size}) WHERE list_contains(?, trial_id)",
            [trial_ids],
        ).fetchall()
        return {r[0]: (r[2] or [], r[3] or []) for r in rows if (r[0], r[1]) not in self.superseded}

    def scenario(self, scenario_id: str, sha256: str = "", version: str = "") -> Scenario | None:
        """The answer key a trial was judged with, from the file its manifest names (None if gone or
        invalid). Runs on two seasons' keys share scenario ids: the trial's recorded sha256 (or else
        its version) picks the key; with neither, the first run's key."""
        cache_key = (scenario_id, sha256, version)
        if cache_key not in self._scenario_cache:
            refs = [r for s in self.snapshots for r in s.scenarios if r.scenario_id == scenario_id and r.path]
            exact = [r for r in refs if sha256 and r.sha256 == sha256]
            exact = exact or [r for r in refs if version and r.version == version]
            found: Scenario | None = None
            for ref in exact or refs:
                path = Path(ref.path)
                if path.is_file():
                    loaded, problems = scenario_problems(path)
                    found = loaded if not problems else None
                if found is not None:
                    break
            self._scenario_cache[cache_key] = found
        return self._scenario_cache[cache_key]

    def records(self, limit: int | None = None) -> Iterator[TrialRecord]:
        """Whole trial records for the transcripts, in file order; unreadable ones are skipped."""
        emitted = 0
        for path in self.result_files:
            with warnings.catch_warnings():
                # The torn lines were already reported once, by _load_trials.
                warnings.simplefilter("ignore", TornLineWarning)
                for raw in read_jsonl(path):
                    if limit is not None and emitted >= limit:
                        return
                    if (raw.get("trial_id"), raw.get("finished_at")) in self.superseded:
                        continue  # superseded by a retry
                    body = {k: v for k, v in raw.items() if k not in ("prev_hash", "hash")}
                    try:
                        record = TrialRecord.model_validate(body)
                    except ValueError:
                        continue
                    emitted += 1
                    yield record

    def close(self) -> None:
        self.con.close()
        self._scratch.cleanup()
