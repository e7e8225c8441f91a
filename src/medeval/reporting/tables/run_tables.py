"""The report's tables, computed in duckdb and written as CSV: trials, per scenario, SHIP table.

Markdown and HTML render these same row objects, so the CSV files and the report always agree.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from itertools import groupby
from pathlib import Path

from pydantic import BaseModel

from medeval.records.safe_output import csv_row, csv_select
from medeval.reporting.loading.baseline import (
    MODE_LABELS,
    MODES,
    SHIP_CATEGORIES,
    baseline_for,
    group_sort_key,
    load_baseline,
)
from medeval.reporting.loading.run import Corpus
from medeval.reporting.stats.intervals import ClusterSums, Interval, cluster_bootstrap, wilson
from medeval.reporting.tables.provenance import coded_label, counselor_targets

POOLED = "ALL"
#: The AI targets pooled over question groups the study did not have: no counselor baseline.
POOLED_OTHER = "ALL-OTHER"
# The groups set beside the counselors: scored by design and coded (schema 1 wrote "not_scored" for
# groups asked but not scored; schema 2 writes "not_applicable").
SCORED_FILTER = "scored AND ship_category NOT IN ('not_scored', 'not_applicable', 'needs_review')"
# Groups scored by design that the judges could not decide: left out of the four categories and
# counted in columns of their own, so a reader sees how much was left out.
LEFT_OUT = ("needs_review", "not_scored")
LEFT_OUT_FILTER = "scored AND ship_category IN ('needs_review', 'not_scored')"


#: ShipRow.source of a set of counselors' transcribed calls coded by this run's judges.
CODED_COUNSELORS = "counselors_coded"


class ShipRow(BaseModel):
    question_group: str
    topic: str
    source: str  # "ai", "counselors" (the study's published rates) or CODED_COUNSELORS
    target: str
    n: int
    counts: dict[str, int]
    ac: Interval
    left_out: dict[str, int] | None = None  # needs_review / not_scored; None for counselor rows

    @property
    def label(self) -> str:
        """The responder as tables and charts name it."""
        if self.source == CODED_COUNSELORS:
            return coded_label(self.target)
        return self.target

    def pct(self, category: str) -> float | None:
        return self.counts[category] / self.n if self.n else None

    def csv_row(self) -> dict[str, object]:
        row: dict[str, object] = {
            "question_group": self.question_group,
            "topic": self.topic,
            "source": self.source,
            "target": self.target,
            "n": self.n,
        }
        for category in SHIP_CATEGORIES:
            row[category] = self.counts[category]
        for category in SHIP_CATEGORIES:
            share = self.pct(category)
            row[f"{category}_pct"] = "" if share is None else round(100 * share, 1)
        row["accurate_complete_ci_low_pct"] = _pct_cell(self.ac.low)
        row["accurate_complete_ci_high_pct"] = _pct_cell(self.ac.high)
        for column in LEFT_OUT:
            row[column] = "" if self.left_out is None else self.left_out.get(column, 0)
        return row


class ScenarioRow(BaseModel):
    scenario_id: str
    target: str
    n: int
    accuracy: Interval
    completeness: Interval
    safety_risk: float | None
    needs_review: int

    def csv_row(self) -> dict[str, object]:
        return {
            "scenario_id": self.scenario_id,
            "target": self.target,
            "n": self.n,
            "accuracy_mean": _num(self.accuracy.estimate),
            "accuracy_ci_low": _num(self.accuracy.low),
            "accuracy_ci_high": _num(self.accuracy.high),
            "accuracy_n": self.accuracy.n,
            "completeness_mean": _num(self.completeness.estimate),
            "completeness_ci_low": _num(self.completeness.low),
            "completeness_ci_high": _num(self.completeness.high),
            "completeness_n": self.completeness.n,
            "safety_risk_mean": _num(self.safety_risk),
            "needs_review": self.needs_review,
        }


class TargetRow(BaseModel):
    target: str
    served_models: list[str]
    trials: int
    accuracy: Interval
    completeness: Interval
    safety_risk: float | None
    ship_counts: dict[str, int]
    ac: Interval
    needs_review: int
    unscored_items: int
    left_out: dict[str, int]


def _num(value: float | None) -> object:
    return "" if value is None else round(value, 4)


def _pct_cell(value: float | None) -> object:
    return "" if value is None else round(100 * value, 1)


def write_csv(path: Path, rows: Sequence[dict[str, object]], header: Sequence[str] | None = None) -> None:
    fields = list(header or (rows[0].keys() if rows else []))
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(csv_row(row) for row in rows)


# trials.csv ----------------------------------------------------------------------------------------
TRIAL_CSV_SQL = (
    "SELECT run_id, trial_id, target, served_model, scenario_id, scenario_version, epoch, question_group, "
    "scored, round(accuracy, 4) AS accuracy, round(completeness, 4) AS completeness, "
    "round(safety_risk, 4) AS safety_risk, round(calibration, 4) AS calibration, ship_category, "
    "needs_review, status FROM trial_groups ORDER BY run_id, trial_id, question_group"
)


def write_trials_csv(corpus: Corpus, path: Path) -> None:
    copy_csv(corpus, TRIAL_CSV_SQL, path)


def copy_csv(corpus: Corpus, sql: str, path: Path) -> None:
    """A query's rows straight from duckdb to disk: no Python object per row, however many there are.
    Text cells a spreadsheet would run as a formula are neutralised (records.safe_output)."""
    target = str(path).replace("'", "''")
    columns = corpus.con.execute(f"DESCRIBE ({sql})").fetchall()
    safe = csv_select(sql, [str(c[0]) for c in columns if str(c[1]) == "VARCHAR"])
    corpus.con.execute(f"COPY ({safe}) TO '{target}' (HEADER, DELIMITER ',')")


# per_scenario.csv ----------------------------------------------------------------------------------
def scenario_rows(corpus: Corpus, seed: int) -> list[ScenarioRow]:
    """Trial-level scores per scenario and target. Within one scenario the trials (epochs) are the
    independent units, so the bootstrap resamples trials there."""
    rows = corpus.query(
        "SELECT scenario_id, target.spec, count(*), avg(final_scores.safety_risk), "
        "count(*) FILTER (WHERE flags.needs_manual_review) FROM trials GROUP BY ALL ORDER BY 1, 2"
    )
    # The scores a row at a time, in trial order, into per-cluster sums (the same sums, added in
    # the same order, as lists of every trial's scores would give), one scenario and target at a
    # time: the intervals of a pair are drawn as soon as its last trial has gone by.
    intervals: dict[tuple[str, str], tuple[Interval, Interval]] = {}
    stream = corpus.stream(
        "SELECT scenario_id, target.spec, trial_id, final_scores.accuracy, final_scores.completeness "
        "FROM trials ORDER BY 1, 2, trial_id"
    )
    for key, trials in groupby(stream, key=lambda row: (row[0], row[1])):
        accuracy, completeness = ClusterSums(), ClusterSums()
        for _, _, trial_id, acc, comp in trials:
            accuracy.add(acc, trial_id)
            completeness.add(comp, trial_id)
        intervals[key] = (cluster_bootstrap(accuracy, seed=seed), cluster_bootstrap(completeness, seed=seed))
    return [
        ScenarioRow(
            scenario_id=scenario_id,
            target=target,
            n=n,
            accuracy=intervals[(scenario_id, target)][0],
            completeness=intervals[(scenario_id, target)][1],
            safety_risk=safety,
            needs_review=review,
        )
        for scenario_id, target, n, safety, review in rows
    ]


# Per-target summary ---------------------------------------------------------------------------------
def target_rows(corpus: Corpus, seed: int) -> list[TargetRow]:
    """Across scenarios the scenario is the cluster: trials of one scenario are not independent."""
    rows = corpus.query(
        "SELECT target.spec, list_sort(list_distinct(flatten(list(target.served_models)))), count(*), "
        "avg(final_scores.safety_risk), count(*) FILTER (WHERE flags.needs_manual_review), "
        "sum(len(unscored)), min(trial_id) FROM trials GROUP BY 1 ORDER BY min(trial_id)"
    )
    sums: dict[str, tuple[ClusterSums, ClusterSums]] = {}
    for spec, scenario_id, accuracy, completeness in corpus.stream(
        "SELECT target.spec, scenario_id, final_scores.accuracy, final_scores.completeness FROM trials "
        "ORDER BY 1, trial_id"
    ):
        pair = sums.setdefault(spec, (ClusterSums(), ClusterSums()))
        pair[0].add(accuracy, scenario_id)
        pair[1].add(completeness, scenario_id)
    ship = _ship_counts(corpus, by_group=False)
    left_out = _ship_counts(corpus, by_group=False, where=LEFT_OUT_FILTER, categories=LEFT_OUT)
    out = []
    for spec, served, n, safety, review, unscored, _ in rows:
        counts = ship.get(("", spec), dict.fromkeys(SHIP_CATEGORIES, 0))
        scored = sum(counts.values())
        accuracy, completeness = sums[spec]
        out.append(
            TargetRow(
                target=spec,
                served_models=list(served),
                trials=n,
                accuracy=cluster_bootstrap(accuracy, seed=seed),
                completeness=cluster_bootstrap(completeness, seed=seed),
                safety_risk=safety,
                ship_counts=counts,
                ac=wilson(counts["accurate_complete"], scored),
                needs_review=review,
                unscored_items=int(unscored or 0),
                left_out=left_out.get(("", spec), dict.fromkeys(LEFT_OUT, 0)),
            )
        )
    return out


def target_order(corpus: Corpus) -> list[str]:
    return [
        row[0] for row in corpus.query("SELECT target.spec FROM trials GROUP BY 1 ORDER BY min(trial_id)")
    ]


def _ship_counts(
    corpus: Corpus,
    *,
    by_group: bool,
    within: set[str] | None = None,
    outside: set[str] | None = None,
    where: str = SCORED_FILTER,
    categories: Sequence[str] = SHIP_CATEGORIES,
) -> dict[tuple[str, str], dict[str, int]]:
    group = "question_group" if by_group else "''"
    params: list[object] = []
    where = f"({where})"
    for groups, operator in ((within, "IN"), (outside, "NOT IN")):
        if groups is not None:
            where += f" AND question_group {operator} (SELECT unnest(?::VARCHAR[]))"
            params.append(sorted(groups))
    rows = corpus.query(
        f"SELECT {group}, target, ship_category, count(*) FROM trial_groups WHERE {where} GROUP BY ALL",
        params,
    )
    out: dict[tuple[str, str], dict[str, int]] = {}
    for question_group, target, category, count in rows:
        out.setdefault((question_group, target), dict.fromkeys(categories, 0))[category] = count
    return out


# ship_table.csv -------------------------------------------------------------------------------------
def _row(
    question_group: str,
    topic: str,
    source: str,
    target: str,
    counts: dict[str, int],
    left_out: dict[str, int] | None = None,
) -> ShipRow:
    n = sum(counts.values())
    return ShipRow(
        question_group=question_group,
        topic=topic,
        source=source,
        target=target,
        n=n,
        counts=counts,
        ac=wilson(counts["accurate_complete"], n),
        left_out=left_out,
    )


def question_groups(corpus: Corpus) -> list[str]:
    """Every question group scored by design, including one whose every answer was left out."""
    found = [
        row[0]
        for row in corpus.query(
            f"SELECT DISTINCT question_group FROM trial_groups WHERE ({SCORED_FILTER}) OR ({LEFT_OUT_FILTER})"
        )
    ]
    return sorted(found, key=group_sort_key)


def ship_rows(corpus: Corpus) -> list[ShipRow]:
    """Per question group: each AI target, then the counselors (phone, face to face, combined) where
    the study scored that group. Last, the pooled rows: each target over the study's question groups it
    answered beside the counselors over all 19 scored groups (the published pooled rates), so that
    like is pooled with like; then each target over the groups the study did not have (topic
    scenarios), with no counselor row."""
    counts = _ship_counts(corpus, by_group=True)
    left_out = _ship_counts(corpus, by_group=True, where=LEFT_OUT_FILTER, categories=LEFT_OUT)
    coded = counselor_targets(corpus.snapshots)
    # Counselor transcripts coded by these judges sit after the study's counselor rows, not among
    # the AI targets: like beside like.
    targets = [t for t in target_order(corpus) if t not in coded]
    counselors = [t for t in target_order(corpus) if t in coded]
    rows: list[ShipRow] = []

    def ai_row(
        group: str,
        topic: str,
        key: tuple[str, str],
        by_group: dict[tuple[str, str], dict[str, int]],
        excluded: dict[tuple[str, str], dict[str, int]],
    ) -> ShipRow:
        return _row(
            group,
            topic,
            CODED_COUNSELORS if key[1] in coded else "ai",
            key[1],
            by_group.get(key, dict.fromkeys(SHIP_CATEGORIES, 0)),
            excluded.get(key, dict.fromkeys(LEFT_OUT, 0)),
        )

    for group in question_groups(corpus):
        human = {row.mode: row for row in baseline_for(group)}
        topic = next(iter(human.values())).topic if human else ""
        for target in targets:
            if (group, target) in counts or (group, target) in left_out:
                rows.append(ai_row(group, topic, (group, target), counts, left_out))
        for mode in MODES:
            if mode in human:
                rows.append(_row(group, topic, "counselors", MODE_LABELS[mode], dict(human[mode].counts)))
        for target in counselors:
            if (group, target) in counts or (group, target) in left_out:
                rows.append(ai_row(group, topic, (group, target), counts, left_out))
    study_groups = {row.question_group for row in load_baseline()}
    pooled = _ship_counts(corpus, by_group=False, within=study_groups)
    pooled_out = _ship_counts(
        corpus, by_group=False, within=study_groups, where=LEFT_OUT_FILTER, categories=LEFT_OUT
    )
    for target in targets:
        if ("", target) in pooled or ("", target) in pooled_out:
            rows.append(ai_row(POOLED, "All study question groups", ("", target), pooled, pooled_out))
    for mode in MODES:
        total = dict.fromkeys(SHIP_CATEGORIES, 0)
        for row in load_baseline():
            if row.mode == mode:
                for category in SHIP_CATEGORIES:
                    total[category] += row.counts[category]
        rows.append(_row(POOLED, "All study question groups", "counselors", MODE_LABELS[mode], total))
    for target in counselors:
        if ("", target) in pooled or ("", target) in pooled_out:
            rows.append(ai_row(POOLED, "All study question groups", ("", target), pooled, pooled_out))
    others = _ship_counts(corpus, by_group=False, outside=study_groups)
    others_out = _ship_counts(
        corpus, by_group=False, outside=study_groups, where=LEFT_OUT_FILTER, categories=LEFT_OUT
    )
    for target in targets + counselors:
        if ("", target) in others or ("", target) in others_out:
            rows.append(ai_row(POOLED_OTHER, "All other question groups", ("", target), others, others_out))
    return rows


# Distributions ---------------------------------------------------------------------------------------
def distributions(corpus: Corpus) -> dict[str, dict[str, list[int]]]:
    """Trials per score band, per target: [0, .25), [.25, .5), [.5, .75), [.75, 1), exactly 1."""
    out: dict[str, dict[str, list[int]]] = {}
    for target in target_order(corpus):
        out[target] = {}
        for metric in ("accuracy", "completeness"):
            column = f"final_scores.{metric}"
            row = corpus.query(
                f"SELECT count(*) FILTER ({column} < 0.25), "
                f"count(*) FILTER ({column} >= 0.25 AND {column} < 0.5), "
                f"count(*) FILTER ({column} >= 0.5 AND {column} < 0.75), "
                f"count(*) FILTER ({column} >= 0.75 AND {column} < 1), count(*) FILTER ({column} >= 1) "
                "FROM trials WHERE target.spec = ?",
                [target],
            )[0]
            out[target][metric] = [int(v) for v in row]
    return out
