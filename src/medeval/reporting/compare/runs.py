"""`medeval compare RUN_A RUN_B`: what changed between two runs, and whether it is more than noise.

For each target, scenario and question group present in both runs: the change in each SHIP
category rate (Newcombe interval, score test) and in each mean score (Welch interval and test).
The p-values of one comparison are Holm-adjusted together, and a change is flagged when its adjusted
p-value is below 0.05. Snapshot changes (served model, prompt hash, scenario hash, judges) are listed
first, because a difference only means something when you know what changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel
from rich.console import Console
from rich.table import Table
from rich.text import Text
from statsmodels.stats.multitest import multipletests

from medeval.records.redact import redact
from medeval.reporting.compare.pooled import (
    Pooled,
    Presence,
    pooled,
    pooled_cells,
    pooled_markdown,
    presence,
)
from medeval.reporting.compare.pooled import outcomes as pooled_outcomes
from medeval.reporting.loading.baseline import SHIP_CATEGORIES, group_sort_key
from medeval.reporting.loading.run import Corpus, RunSnapshot
from medeval.reporting.render.terminal import emit, fit
from medeval.reporting.stats.intervals import (
    SIGNIFICANCE,
    Difference,
    fmt_p,
    mean_difference,
    proportion_difference,
)
from medeval.reporting.tables.run_tables import SCORED_FILTER, write_csv

SCORES = ("accuracy", "completeness", "safety_risk", "calibration")
Key = tuple[str, str, str]  # (target, scenario_id, question_group)


class Change(BaseModel):
    target_a: str
    target_b: str
    scenario_id: str
    question_group: str
    metric: str
    result: Difference
    p_adjusted: float | None = None

    @property
    def significant(self) -> bool:
        return self.p_adjusted is not None and self.p_adjusted < SIGNIFICANCE

    def csv_row(self) -> dict[str, object]:
        r = self.result
        return {
            "target_a": self.target_a,
            "target_b": self.target_b,
            "scenario_id": self.scenario_id,
            "question_group": self.question_group,
            "metric": self.metric,
            "a": _round(r.a),
            "b": _round(r.b),
            "n_a": r.n_a,
            "n_b": r.n_b,
            "difference": _round(r.difference),
            "ci_low": _round(r.low),
            "ci_high": _round(r.high),
            "p_value": _round(r.p_value, 6),
            "p_holm": _round(self.p_adjusted, 6),
            "significant": self.significant,
        }


class Comparison(BaseModel):
    run_a: RunSnapshot
    run_b: RunSnapshot
    snapshot_changes: list[str]
    changes: list[Change]
    only_a: list[str]
    only_b: list[str]
    #: One paired test per target pair across every question group (reporting/compare_pooled.py).
    pooled: list[Pooled] = []
    presence: Presence | None = None
    #: A and B are the same run directory: every difference is zero by construction.
    same_run: bool = False

    def flagged(self) -> list[Change]:
        return [c for c in self.changes if c.significant]

    def flagged_groups(self) -> list[tuple[str, str, str]]:
        return sorted({(c.target_b, c.scenario_id, c.question_group) for c in self.flagged()})


def _round(value: float | None, digits: int = 4) -> object:
    return "" if value is None else round(value, digits)


def snapshot_changes(a: RunSnapshot, b: RunSnapshot, pairs: list[tuple[str, str]]) -> list[str]:
    out = []
    for target_a, target_b in pairs:
        served_a, served_b = a.served_models.get(target_a, []), b.served_models.get(target_b, [])
        if target_a != target_b:
            out.append(f"Target: {target_a} (A) is compared with {target_b} (B)")
        if served_a != served_b:
            out.append(
                f"Served model of {target_b}: {', '.join(served_a) or '-'} -> {', '.join(served_b) or '-'}"
            )
    for role in sorted(set(a.prompts) | set(b.prompts)):
        if a.prompts.get(role) != b.prompts.get(role):
            before, after = (a.prompts.get(role) or "-")[:12], (b.prompts.get(role) or "-")[:12]
            out.append(f"Prompt hash of {role}: {before} -> {after}")
    hashes_a = {s.scenario_id: s.sha256 for s in a.scenarios}
    hashes_b = {s.scenario_id: s.sha256 for s in b.scenarios}
    for scenario_id in sorted(set(hashes_a) & set(hashes_b)):
        if hashes_a[scenario_id] != hashes_b[scenario_id]:
            before, after = hashes_a[scenario_id][:12], hashes_b[scenario_id][:12]
            out.append(f"Scenario hash of {scenario_id}: {before} -> {after}")
    if a.judge_panel() != b.judge_panel():
        out.append(f"Judges: {', '.join(a.judge_panel())} -> {', '.join(b.judge_panel())}")
    if a.medeval_version != b.medeval_version:
        out.append(f"medeval version: {a.medeval_version} -> {b.medeval_version}")
    return out


def _outcomes(corpus: Corpus) -> dict[Key, list[tuple[str, list[float | None]]]]:
    rows = corpus.query(
        "SELECT target, scenario_id, question_group, ship_category, accuracy, completeness, safety_risk, "
        f"calibration FROM trial_groups WHERE {SCORED_FILTER} ORDER BY trial_id"
    )
    out: dict[Key, list[tuple[str, list[float | None]]]] = {}
    for target, scenario_id, group, category, *scores in rows:
        out.setdefault((target, scenario_id, group), []).append((category, list(scores)))
    return out


def _target_pairs(a: Iterable[str], b: Iterable[str]) -> list[tuple[str, str]]:
    """Same spec in both runs; or, with no spec in common and one target in a run, that target against
    each target of the other run (model-to-model)."""
    targets_a, targets_b = list(dict.fromkeys(a)), list(dict.fromkeys(b))
    common = [t for t in targets_a if t in targets_b]
    if common:
        return [(t, t) for t in common]
    if len(targets_a) == 1:
        return [(targets_a[0], t) for t in targets_b]
    if len(targets_b) == 1:
        return [(t, targets_b[0]) for t in targets_a]
    return []


def compare_runs(run_a: Path, run_b: Path) -> Comparison:
    corpus_a, corpus_b = Corpus([run_a]), Corpus([run_b])
    try:
        outcomes_a, outcomes_b = _outcomes(corpus_a), _outcomes(corpus_b)
        items_a, items_b = pooled_outcomes(corpus_a), pooled_outcomes(corpus_b)
        snap_a, snap_b = corpus_a.snapshots[0], corpus_b.snapshots[0]
    finally:
        corpus_a.close()
        corpus_b.close()
    pairs = _target_pairs(items_a, items_b)
    changes: list[Change] = []
    matched_a: set[Key] = set()
    matched_b: set[Key] = set()
    for target_a, target_b in pairs:
        keys = sorted(
            {(s, g) for t, s, g in outcomes_a if t == target_a}
            & {(s, g) for t, s, g in outcomes_b if t == target_b},
            key=lambda k: (k[0], group_sort_key(k[1])),
        )
        for scenario_id, group in keys:
            rows_a, rows_b = (
                outcomes_a[(target_a, scenario_id, group)],
                outcomes_b[(target_b, scenario_id, group)],
            )
            matched_a.add((target_a, scenario_id, group))
            matched_b.add((target_b, scenario_id, group))
            for category in SHIP_CATEGORIES:
                result = proportion_difference(
                    sum(c == category for c, _ in rows_a),
                    len(rows_a),
                    sum(c == category for c, _ in rows_b),
                    len(rows_b),
                )
                changes.append(
                    Change(
                        target_a=target_a,
                        target_b=target_b,
                        scenario_id=scenario_id,
                        question_group=group,
                        metric=f"rate:{category}",
                        result=result,
                    )
                )
            for index, score in enumerate(SCORES):
                values_a = [s[index] for _, s in rows_a if s[index] is not None]
                values_b = [s[index] for _, s in rows_b if s[index] is not None]
                result = mean_difference(
                    [float(v) for v in values_a if v is not None],
                    [float(v) for v in values_b if v is not None],
                )
                changes.append(
                    Change(
                        target_a=target_a,
                        target_b=target_b,
                        scenario_id=scenario_id,
                        question_group=group,
                        metric=score,
                        result=result,
                    )
                )
    _holm(changes)
    where = presence(items_a, items_b, pairs)
    return Comparison(
        run_a=snap_a,
        run_b=snap_b,
        snapshot_changes=snapshot_changes(snap_a, snap_b, pairs) + where.lines(),
        changes=changes,
        only_a=[" / ".join(k) for k in sorted(set(outcomes_a) - matched_a)],
        only_b=[" / ".join(k) for k in sorted(set(outcomes_b) - matched_b)],
        pooled=pooled(items_a, items_b, pairs),
        presence=where,
        same_run=run_a.resolve() == run_b.resolve() or snap_a.run_id == snap_b.run_id,
    )


def _holm(changes: list[Change]) -> None:
    tested = [c for c in changes if c.result.p_value is not None]
    if not tested:
        return
    adjusted = multipletests([c.result.p_value for c in tested], alpha=SIGNIFICANCE, method="holm")[1]
    for change, p_value in zip(tested, adjusted, strict=True):
        change.p_adjusted = float(p_value)


def _fmt(value: float | None, metric: str) -> str:
    if value is None:
        return "n/a"
    return f"{100 * value:.1f}%" if metric.startswith("rate:") else f"{value:.2f}"


def _fmt_change(change: Change) -> str:
    r = change.result
    if r.difference is None:
        return "n/a"
    scale, unit = (100, " pp") if change.metric.startswith("rate:") else (1, "")
    text = f"{scale * r.difference:+.{1 if scale == 100 else 2}f}{unit}"
    if r.low is not None and r.high is not None:
        text += (
            f" [{scale * r.low:.{1 if scale == 100 else 2}f}, {scale * r.high:.{1 if scale == 100 else 2}f}]"
        )
    return text


SAME_RUN = "A and B are the same run: every difference below is zero by construction."


def render_markdown(comparison: Comparison) -> str:
    a, b = comparison.run_a, comparison.run_b
    lines = [
        "# medeval compare",
        "",
        f"A = `{a.run_id}` ({a.created_at}); B = `{b.run_id}` ({b.created_at}). Differences are B − A.",
        "",
        "## What changed between the snapshots",
        "",
    ]
    if comparison.same_run:
        lines += [f"- **{SAME_RUN}**"]
    nothing = "- Nothing: same targets, scenarios, served models, prompts and judges."
    lines += [f"- **{c}**" for c in comparison.snapshot_changes] or [nothing]
    lines += ["", *pooled_markdown(comparison.pooled)]
    flagged = comparison.flagged()
    lines += [f"## Significant changes per question group ({len(flagged)})", ""]
    header = "| Target | Scenario | Question group | Metric | A | B | B − A [95% CI] | p (Holm) |"
    lines += (
        [header, "|---|---|---|---|---|---|---|---|"]
        if flagged
        else ["None at the 0.05 level (Holm-adjusted)."]
    )
    lines += [_md_row(c) for c in flagged]
    lines += ["", "## Every question group in both runs", "", header, "|---|---|---|---|---|---|---|---|"]
    lines += [
        _md_row(c)
        for c in comparison.changes
        if c.metric in ("rate:accurate_complete", "accuracy", "completeness")
    ]
    lines += ["", "All metrics (every SHIP category rate and score) are in `compare.csv`."]
    if comparison.only_a or comparison.only_b:
        lines += ["", "## Not in both runs", ""]
        lines += [f"- only in A: {k}" for k in comparison.only_a] + [
            f"- only in B: {k}" for k in comparison.only_b
        ]
    return "\n".join(lines) + "\n"


def _md_row(c: Change) -> str:
    target = c.target_b if c.target_a == c.target_b else f"{c.target_a} -> {c.target_b}"
    p_value = fmt_p(c.p_adjusted)
    mark = " **(significant)**" if c.significant else ""
    return (
        f"| {target} | {c.scenario_id} | {c.question_group} | {c.metric} | {_fmt(c.result.a, c.metric)} | "
        f"{_fmt(c.result.b, c.metric)} | {_fmt_change(c)}{mark} | {p_value} |"
    )


def print_comparison(comparison: Comparison, console: Console) -> None:
    if comparison.same_run:
        console.print(Text(SAME_RUN, style="bold yellow"), highlight=False)
    if comparison.snapshot_changes:
        console.print("[bold yellow]What changed between the snapshots:[/]")
        for line in comparison.snapshot_changes:
            console.print(
                Text(f"  ! {line}", style="bold yellow"), emoji=False, highlight=False, soft_wrap=True
            )
    else:
        console.print("Snapshots match: same targets, scenarios, served models, prompts and judges.")
    print_pooled(comparison, console)
    table = Table(
        title="Changes B − A per question group (A&C rate, accuracy, completeness)", title_justify="left"
    )
    for column in ("target", "scenario", "group", "A&C", "accuracy", "completeness", "flag"):
        table.add_column(column)
    by_key: dict[tuple[str, str, str], dict[str, Change]] = {}
    for change in comparison.changes:
        by_key.setdefault((change.target_b, change.scenario_id, change.question_group), {})[change.metric] = (
            change
        )
    for (target, scenario_id, group), metrics in by_key.items():
        flagged = any(c.significant for c in metrics.values())
        table.add_row(
            Text(target),
            Text(scenario_id),
            Text(group),
            _fmt_change(metrics["rate:accurate_complete"]),
            _fmt_change(metrics["accuracy"]),
            _fmt_change(metrics["completeness"]),
            Text("SIGNIFICANT", style="bold red") if flagged else "",
        )
    emit(console, fit(table, console))


def print_pooled(comparison: Comparison, console: Console) -> None:
    if not comparison.pooled:
        # Two multi-target runs with no target in common: an empty table would read as "no change".
        console.print(
            "Pooled across question groups: no target of A is paired with one of B, so nothing is "
            "compared (the targets in one run only are listed above).",
            highlight=False,
            soft_wrap=True,
        )
        return
    table = Table(title="Pooled across question groups: B − A (clustered by scenario)", title_justify="left")
    for column in ("target A", "target B", "rate", "pairs", "A", "B", "B − A (95% CI)", "only A / B", "p"):
        table.add_column(column)
    for row in comparison.pooled:
        for label, result in (("A&C", row.ac), ("Incorrect", row.incorrect)):
            cells = pooled_cells(result)
            style = "bold red" if result.significant else ""
            table.add_row(
                Text(row.target_a),
                Text(row.target_b),
                label,
                str(result.n_pairs),
                cells[0],
                cells[1],
                Text(cells[2], style=style),
                cells[3],
                cells[4],
            )
    emit(console, fit(table, console))


def write_comparison(comparison: Comparison, out: Path) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    markdown, csv_path = out / "compare.md", out / "compare.csv"
    markdown.write_text(redact(render_markdown(comparison)), encoding="utf-8")
    header = list(
        Change(
            target_a="",
            target_b="",
            scenario_id="",
            question_group="",
            metric="",
            result=proportion_difference(0, 0, 0, 0),
        ).csv_row()
    )
    write_csv(csv_path, [c.csv_row() for c in comparison.changes], header)
    return markdown, csv_path
