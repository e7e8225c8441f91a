"""Scored groups per target, scenario, question group and SHIP category, and their pooling: the
counts that `compare --drift` reads from each of its three runs and the report's season-over-season
table reads per season, computed here once for both."""

from __future__ import annotations

from medeval.reporting.loading.run import Corpus
from medeval.reporting.loading.seasons import season_join
from medeval.reporting.stats.intervals import Difference, Interval, proportion_difference, wilson
from medeval.reporting.tables.run_tables import SCORED_FILTER

#: The scenario and question group of a target's rates pooled over its groups.
POOLED = "ALL"
Cell = tuple[str, str, str]  # (target, scenario_id, question_group)
Counts = dict[Cell, dict[str, int]]


def category_counts(corpus: Corpus, season: int | None = None) -> Counts:
    """Every scored group's category, counted per cell; with `season`, only the trials judged with
    that season's keys (loading/seasons.season_table must have run)."""
    where = f"WHERE {SCORED_FILTER}"
    join = ""
    parameters: list[object] = []
    if season is not None:
        join, where = season_join("trial_groups"), f"{where} AND ss.season = ?"
        parameters.append(season)
    rows = corpus.query(
        "SELECT target, trial_groups.scenario_id, question_group, ship_category, count(*) "
        f"FROM trial_groups {join} {where} GROUP BY ALL",
        parameters,
    )
    out: Counts = {}
    for target, scenario_id, group, category, n in rows:
        cell = out.setdefault((str(target), str(scenario_id), str(group)), {})
        cell[str(category)] = cell.get(str(category), 0) + int(n)
    return out


def pooled(counts: Counts, cells: list[Cell]) -> dict[str, int]:
    """The categories of these cells added up (a target's groups pooled)."""
    out: dict[str, int] = {}
    for cell in cells:
        for category, n in counts.get(cell, {}).items():
            out[category] = out.get(category, 0) + n
    return out


def rate(counts: dict[str, int], category: str) -> Interval:
    """The category's share of the scored groups, with its Wilson interval."""
    return wilson(counts.get(category, 0), sum(counts.values()))


def change(before: dict[str, int], after: dict[str, int], category: str) -> Difference:
    """After minus before, in the category's share, with Newcombe's interval."""
    return proportion_difference(
        before.get(category, 0), sum(before.values()), after.get(category, 0), sum(after.values())
    )
