"""Season drift: how much of a target's change between two runs on different keys is the key's,
and how much the model's.

Three readings of each target and question group: the earlier run's answers judged with the
earlier key (old answers, old key), the same answers judged again with the later key (old answers,
new key: a rescore, no target calls), and the later run (new answers, new key). The key change is
the second minus the first (same answers, different key); the model change is the third minus the
second (same key, different answers); they add up to the total change. Each is a difference of
A&C rates (and of Incorrect rates) with a Newcombe interval; the intervals treat the readings as
independent samples, which is conservative for the key change (its two readings share answers).

Each reading counts a group's final category from the one resolution every view reads
(review/resolution.py through reporting/tables/people.apply_final): people's codes where a run has
them, the judges' elsewhere. The rescore is judged afresh and has no people's codes of its own, so
its reading is the judges'; the output says, per reading and per cell, how many groups people
decided.
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
from medeval.reporting.tables.people import apply_final
from medeval.reporting.tables.run_tables import SCORED_FILTER, write_csv

METRICS = {"accurate_complete": "A&C", "incorrect": "Incorrect"}
READINGS = ("old_old", "old_new", "new_new")
LABELS = ("Old answers, old key", "Old answers, new key", "New answers, new key")


class Reading(BaseModel):
    """One of the three readings: its run and who decided its scored groups."""

    label: str
    run: str
    groups: int
    people: int
    blind: int

    def who(self) -> str:
        if not self.people:
            return f"the judges' categories ({self.groups} group(s); no people's codes in this run)"
        return (
            f"people's codes on {self.people} of {self.groups} group(s) ({self.blind} of them blind), "
            "the judges' categories on the rest"
        )


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
    #: Groups of each reading's cell whose category people decided (the rest are the judges').
    people: tuple[int, int, int] = (0, 0, 0)

    def csv_row(self) -> dict[str, object]:
        row: dict[str, object] = {
            "target": self.target,
            "scenario_id": self.scenario_id,
            "question_group": self.question_group,
            "metric": self.metric,
        }
        for name, people in zip(READINGS, self.people, strict=True):
            cell: Interval = getattr(self, name)
            row[name] = _round(cell.estimate)
            row[f"{name}_n"] = cell.n
            row[f"{name}_by_people"] = people
        for name in ("key_change", "model_change", "total"):
            moved: Difference = getattr(self, name)
            row[name] = _round(moved.difference)
            row[f"{name}_low"] = _round(moved.low)
            row[f"{name}_high"] = _round(moved.high)
        return row


class Drift(BaseModel):
    rows: list[DriftRow]
    readings: list[Reading]


def _round(value: float | None) -> object:
    return "" if value is None else round(value, 4)


def _counts(run_dir: Path, label: str) -> tuple[Counts, Counts, Reading]:
    """A run's categories per cell after people's codes (the one resolution), the groups people
    decided per cell (under "people"), and who decided the reading."""
    corpus = Corpus([run_dir])
    try:
        apply_final(corpus)
        by_people: Counts = {}
        for target, scenario_id, group, people in corpus.query(
            "SELECT target, scenario_id, question_group, count(*) FILTER (decided_by <> 'judges') "
            f"FROM trial_groups WHERE {SCORED_FILTER} GROUP BY ALL"
        ):
            by_people[(str(target), str(scenario_id), str(group))] = {"people": int(people)}
        groups, people, blind = corpus.query(
            "SELECT count(*), count(*) FILTER (decided_by <> 'judges'), count(*) FILTER "
            f"(decided_by <> 'judges' AND decided_blind) FROM trial_groups WHERE {SCORED_FILTER}"
        )[0]
        reading = Reading(label=label, run=run_dir.name, groups=groups, people=people, blind=blind)
        return category_counts(corpus), by_people, reading
    finally:
        corpus.close()


def _row(key: Cell, metric: str, cells: list[dict[str, int]], people: list[dict[str, int]]) -> DriftRow:
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
        people=(people[0].get("people", 0), people[1].get("people", 0), people[2].get("people", 0)),
    )


def drift(old_run: Path, rescored: Path, new_run: Path) -> Drift:
    """Per target and question group scored in all three readings, and pooled per target; each
    reading's categories are people's where its run has their codes, the judges' elsewhere."""
    read = [_counts(run, label) for run, label in zip((old_run, rescored, new_run), LABELS, strict=True)]
    readings = [r[0] for r in read]
    common = sorted(
        set(readings[0]) & set(readings[1]) & set(readings[2]),
        key=lambda k: (k[0], k[1], group_sort_key(k[2])),
    )
    rows: list[DriftRow] = []
    for target in dict.fromkeys(k[0] for k in common):
        mine = [k for k in common if k[0] == target]
        together = [pooled(r, mine) for r in readings]
        people = [pooled(r[1], mine) for r in read]
        for metric in METRICS:
            rows.append(_row((target, POOLED, POOLED), metric, together, people))
            rows += [_row(k, metric, [r[k] for r in readings], [r[1].get(k, {}) for r in read]) for k in mine]
    return Drift(rows=rows, readings=[r[2] for r in read])


def _cell(interval: Interval, people: int) -> str:
    by = f", {people} by people" if people else ""
    return f"{interval.fmt()} (n={interval.n}{by})"


def _change(change: Difference) -> str:
    if change.difference is None:
        return "n/a"
    text = f"{100 * change.difference:+.1f} pp"
    if change.low is not None and change.high is not None:
        text += f" [{100 * change.low:.1f}, {100 * change.high:.1f}]"
    return text


def who_lines(drift: Drift) -> list[str]:
    """Who decided each reading's categories, and what people's codes in one reading mean for the
    change beside it."""
    lines = [f"{r.label} (`{r.run}`): {r.who()}." for r in drift.readings]
    old_old, old_new, new_new = (r.people for r in drift.readings)
    if old_old and not old_new:
        lines.append(
            f"The rescore has no people's codes of its own: on the {old_old} group(s) people decided in "
            "the old run, the key change also holds the difference between people's codes and the judges'."
        )
    if new_new and not old_new:
        lines.append(
            f"On the {new_new} group(s) people decided in the new run, the model change also holds the "
            "difference between people's codes and the judges'."
        )
    return lines


def render_markdown(drift: Drift) -> str:
    runs = [r.run for r in drift.readings]
    lines = [
        "# Key change and model change",
        "",
        f"Old answers, old key: `{runs[0]}`. Old answers, new key: `{runs[1]}` (a rescore of the old "
        f"run's transcripts with the new key; no target calls). New answers, new key: `{runs[2]}`.",
        "",
        "Key change = old answers judged with the new key minus with the old key; model change = new "
        "answers minus old answers, both with the new key. Differences in percentage points, 95% Newcombe "
        "intervals; `ALL` pools a target's question groups.",
        "",
        "## Who decided",
        "",
        "Each reading counts a group's final category as every view does: people's codes where its run "
        "has them, the judges' elsewhere. A cell's \"k by people\" says how many of its groups people "
        "decided.",
        "",
        *[f"- {line}" for line in who_lines(drift)],
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
            f"| {r.target} | {r.scenario_id} | {r.question_group} | {_cell(r.old_old, r.people[0])} | "
            f"{_cell(r.old_new, r.people[1])} | {_cell(r.new_new, r.people[2])} | {_change(r.key_change)} | "
            f"{_change(r.model_change)} |"
            for r in drift.rows
            if r.metric == metric
        ]
        lines.append("")
    return "\n".join(lines)


def write_drift(drift: Drift, out: Path) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    markdown, csv_path = out / "drift.md", out / "drift.csv"
    markdown.write_text(redact(render_markdown(drift)), encoding="utf-8")
    rows = drift.rows
    header = list(rows[0].csv_row()) if rows else ["target", "scenario_id", "question_group", "metric"]
    write_csv(csv_path, [r.csv_row() for r in rows], header)
    return markdown, csv_path


def pooled_lines(drift: Drift) -> list[str]:
    """Who decided each reading, then one line per target: its pooled A&C key change and model change."""
    return [f"Who decided, {line}" for line in who_lines(drift)] + [
        f"{r.target}: A&C {r.old_old.fmt()} -> {r.old_new.fmt()} (key change {_change(r.key_change)}) -> "
        f"{r.new_new.fmt()} (model change {_change(r.model_change)})"
        for r in drift.rows
        if r.scenario_id == POOLED and r.metric == "accurate_complete"
    ]
