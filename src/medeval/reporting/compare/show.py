"""`medeval compare`, shown: the comparison as markdown and CSV files and as terminal tables. A target
run under several variants is shown once per variant, as "target [variant]"."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from medeval.records.redact import redact
from medeval.records.safe_output import md_text
from medeval.reporting.compare.pooled import pooled_cells, pooled_markdown
from medeval.reporting.compare.runs import Change, Comparison, Key
from medeval.reporting.render.terminal import emit, fit
from medeval.reporting.stats.intervals import fmt_p, proportion_difference
from medeval.reporting.tables.run_tables import write_csv


def _who(target: str, variant: str) -> str:
    return f"{target} [{variant}]" if variant else target


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
    # Served-model names and scenario ids come from outside the tool: escaped (records.safe_output).
    lines += [f"- **{md_text(c)}**" for c in comparison.snapshot_changes] or [nothing]
    lines += [f"- Who decided, {md_text(w)}" for w in comparison.who_decided]
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
        lines += [f"- only in A: {md_text(k)}" for k in comparison.only_a] + [
            f"- only in B: {md_text(k)}" for k in comparison.only_b
        ]
    return "\n".join(lines) + "\n"


def _md_row(c: Change) -> str:
    target = c.target_b if c.target_a == c.target_b else f"{c.target_a} -> {c.target_b}"
    target = md_text(_who(target, c.variant))
    p_value = fmt_p(c.p_adjusted)
    mark = " **(significant)**" if c.significant else ""
    return (
        f"| {target} | {md_text(c.scenario_id)} | {md_text(c.question_group)} | {c.metric} | "
        f"{_fmt(c.result.a, c.metric)} | "
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
    for line in comparison.who_decided:
        console.print(Text(f"Who decided, {line}"), highlight=False, soft_wrap=True)
    print_pooled(comparison, console)
    table = Table(
        title="Changes B − A per question group (A&C rate, accuracy, completeness)", title_justify="left"
    )
    for column in ("target", "scenario", "group", "A&C", "accuracy", "completeness", "flag"):
        table.add_column(column)
    by_key: dict[Key, dict[str, Change]] = {}
    for change in comparison.changes:
        key = (change.target_b, change.variant, change.scenario_id, change.question_group)
        by_key.setdefault(key, {})[change.metric] = change
    for (target, variant, scenario_id, group), metrics in by_key.items():
        flagged = any(c.significant for c in metrics.values())
        table.add_row(
            Text(_who(target, variant)),
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
    table = Table(
        title="Pooled across question groups: B − A (clustered by question group)", title_justify="left"
    )
    for column in (
        "target A",
        "target B",
        "rate",
        "pairs",
        "A",
        "B",
        "B − A (95% CI)",
        "only A / B",
        "p (Holm; test)",
    ):
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
