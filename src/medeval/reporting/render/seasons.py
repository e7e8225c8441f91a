"""The season-over-season section (reporting/tables/seasons.py) as Markdown; report.html renders
the same rows from _seasons.html.j2 and seasons.csv holds every category and group."""

from __future__ import annotations

from medeval.reporting.render.headline import delta, rate
from medeval.reporting.render.md_cells import capped, table
from medeval.reporting.tables.seasons import DRIFT_POINTER, SEASONS_CSV, SeasonComparison, label

#: The categories of the per-group table (every category is in seasons.csv).
GROUP_CATEGORIES = ("accurate_complete", "incorrect")


def intro(comparison: SeasonComparison) -> str:
    a, b = comparison.earlier, comparison.later
    targets = len({r.target for r in comparison.rows})
    return (
        f"Runs judged with the {a} keys ({comparison.earlier_keys}) beside runs judged with the {b} keys "
        f"({comparison.later_keys}), for the {targets} target(s) in both. Rates over the question groups "
        f"scored in both seasons (`ALL` pools them), Wilson 95% intervals; the difference is {b} minus {a} "
        f"in percentage points with Newcombe's 95% interval. {DRIFT_POINTER} The tables after this section "
        "(summary per target, SHIP-style table, per scenario) pool a target's runs of both seasons."
    )


def seasons_markdown(comparisons: list[SeasonComparison]) -> list[str]:
    lines: list[str] = []
    for c in comparisons:
        a, b = c.earlier, c.later
        lines += [f"## Season over season: {a} keys and {b} keys", "", intro(c), ""]
        if not c.rows:
            lines += ["No target has a question group scored in both seasons.", ""]
            continue
        lines += table(
            ("Target", "Category", f"{a}", f"{b}", f"{b} − {a}"),
            [
                (r.target, label(r.category), rate(r.earlier), rate(r.later), delta(r.change))
                for r in c.rows
                if r.is_pooled
            ],
        )
        by_cell: dict[tuple[str, str, str], dict[str, tuple[str, str, str]]] = {}
        for r in c.rows:
            if not r.is_pooled and r.category in GROUP_CATEGORIES:
                cells = (rate(r.earlier), rate(r.later), delta(r.change))
                by_cell.setdefault((r.target, r.scenario_id, r.question_group), {})[r.category] = cells
        header = ["Target", "Scenario", "Group"]
        for category in GROUP_CATEGORIES:
            header += [f"{label(category)} {a}", f"{label(category)} {b}", f"Δ {label(category)}"]
        rows = [
            [*key, *(x for cat in GROUP_CATEGORIES for x in cells[cat])] for key, cells in by_cell.items()
        ]
        lines += ["Per question group:", "", *capped(header, rows, len(rows), SEASONS_CSV)]
    return lines
