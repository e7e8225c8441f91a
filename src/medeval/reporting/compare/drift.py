"""Season drift: how much of a target's change between two runs on different keys is the key's,
and how much the model's.

Three readings of each target and question group: the earlier run's answers judged with the
earlier key (old answers, old key), the same answers judged again with the later key (old answers,
new key: a rescore, no target calls), and the later run (new answers, new key). The key change is
the second minus the first (same answers, different key); the model change is the third minus the
second (same key, different answers); they add up to the total change. Each is a difference of
A&C rates (and of Incorrect rates) with a Newcombe interval; the intervals treat the readings as
independent samples, which is conservative for the key change (its two readings share answers).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from medeval.records.redact import redact
from medeval.reporting.loading.baseline import group_sort_key
from medeval.reporting.loading.run import Corpus
from medeval.reporting.stats.intervals import Difference, Interval
from medeval.reporting.tables.category_counts import (
    POOLED,
    Cell,
    Counts,
    category_counts,
    change,
    pooled,
    rate,
)
from medeval.reporting.tables.run_tables import write_csv

METRICS = {"accurate_complete": "A&C", "incorrect": "Incorrect"}


class DriftRow(BaseModel):
    target: str
    scenario_id: str
    question_group: str
    metric: str
    old_old: Interval
    old_new: Interval
    new_new: Interval
    key_change: Difference
    model_change: Difference
    total: Difference

    def csv_row(self) -> dict[str, object]:
        row: dict[str, object] = {
            "target": self.target,
            "scenario_id": self.scenario_id,
            "question_group": self.question_group,
            "metric": self.metric,
        }
        for name in ("old_old", "old_new", "new_new"):
            cell: Interval = getattr(self, name)
            row[name] = _round(cell.estimate)
            row[f"{name}_n"] = cell.n
        for name in ("key_change", "model_change", "total"):
            moved: Difference = getattr(self, name)
            row[name] = _round(moved.difference)
            row[f"{name}_low"] = _round(moved.low)
            row[f"{name}_high"] = _round(moved.high)
        return row


def _round(value: float | None) -> object:
    return "" if value is None else round(value, 4)


def _counts(run_dir: Path) -> Counts:
    corpus = Corpus([run_dir])
    try:
        return category_counts(corpus)
    finally:
        corpus.close()


def _row(key: Cell, metric: str, cells: list[dict[str, int]]) -> DriftRow:
    return DriftRow(
        target=key[0],
        scenario_id=key[1],
        question_group=key[2],
        metric=metric,
        old_old=rate(cells[0], metric),
        old_new=rate(cells[1], metric),
        new_new=rate(cells[2], metric),
        key_change=change(cells[0], cells[1], metric),
        model_change=change(cells[1], cells[2], metric),
        total=change(cells[0], cells[2], metric),
    )


def drift(old_run: Path, rescored: Path, new_run: Path) -> list[DriftRow]:
    """Per target and question group scored in all three readings, and pooled per target."""
    readings = [_counts(old_run), _counts(rescored), _counts(new_run)]
    common = sorted(
        set(readings[0]) & set(readings[1]) & set(readings[2]),
        key=lambda k: (k[0], k[1], group_sort_key(k[2])),
    )
    rows: list[DriftRow] = []
    for target in dict.fromkeys(k[0] for k in common):
        mine = [k for k in common if k[0] == target]
        together = [pooled(r, mine) for r in readings]
        for metric in METRICS:
            rows.append(_row((target, POOLED, POOLED), metric, together))
            rows += [_row(k, metric, [r[k] for r in readings]) for k in mine]
    return rows


def _cell(interval: Interval) -> str:
    return f"{interval.fmt()} (n={interval.n})"


def _change(change: Difference) -> str:
    if change.difference is None:
        return "n/a"
    text = f"{100 * change.difference:+.1f} pp"
    if change.low is not None and change.high is not None:
        text += f" [{100 * change.low:.1f}, {100 * change.high:.1f}]"
    return text


def render_markdown(rows: list[DriftRow], old_run: str, rescored: str, new_run: str) -> str:
    lines = [
        "# Key change and model change",
        "",
        f"Old answers, old key: `{old_run}`. Old answers, new key: `{rescored}` (a rescore of the old "
        f"run's transcripts with the new key; no target calls). New answers, new key: `{new_run}`.",
        "",
        "Key change = old answers judged with the new key minus with the old key; model change = new "
        "answers minus old answers, both with the new key. Differences in percentage points, 95% Newcombe "
        "intervals; `ALL` pools a target's question groups.",
        "",
    ]
    for metric, label in METRICS.items():
        lines += [
            f"## {label} rate",
            "",
            "| Target | Scenario | Group | Old answers, old key | Old answers, new key "
            "| New answers, new key | Key change | Model change |",
            "|---|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {r.target} | {r.scenario_id} | {r.question_group} | {_cell(r.old_old)} | "
            f"{_cell(r.old_new)} | {_cell(r.new_new)} | {_change(r.key_change)} | {_change(r.model_change)} |"
            for r in rows
            if r.metric == metric
        ]
        lines.append("")
    return "\n".join(lines)


def write_drift(rows: list[DriftRow], out: Path, runs: tuple[str, str, str]) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    markdown, csv_path = out / "drift.md", out / "drift.csv"
    markdown.write_text(redact(render_markdown(rows, *runs)), encoding="utf-8")
    header = list(rows[0].csv_row()) if rows else ["target", "scenario_id", "question_group", "metric"]
    write_csv(csv_path, [r.csv_row() for r in rows], header)
    return markdown, csv_path


def pooled_lines(rows: list[DriftRow]) -> list[str]:
    """One line per target: its pooled A&C key change and model change."""
    return [
        f"{r.target}: A&C {r.old_old.fmt()} -> {r.old_new.fmt()} (key change {_change(r.key_change)}) -> "
        f"{r.new_new.fmt()} (model change {_change(r.model_change)})"
        for r in rows
        if r.scenario_id == POOLED and r.metric == "accurate_complete"
    ]
