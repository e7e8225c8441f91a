"""`medeval compare`, pooled: one paired test per target pair across every question group, and what only
one run has.

Trials are paired across the runs by (variant, scenario, question group, epoch), so two runs of one
model each compare model with model, and each variant of the variation matrix with the same
variant. The A&C and Incorrect rates are tested with the clustered paired test of
reporting/paired.py (clusters = scenarios), which can tell an always-right model from an always-wrong
one where a per-group test on one epoch cannot.
"""

from __future__ import annotations

from pydantic import BaseModel

from medeval.records.safe_output import md_text
from medeval.reporting.loading.run import Corpus
from medeval.reporting.stats.intervals import fmt_p, fmt_points
from medeval.reporting.stats.paired import PairedRate, holm, paired_rate
from medeval.reporting.tables.run_tables import SCORED_FILTER

Item = tuple[str, str, str, str]  # (scenario, variant, question group, epoch)
Outcomes = dict[str, dict[Item, str]]  # target -> item -> category
Asked = dict[str, set[tuple[str, str, str]]]  # target -> (scenario, variant, group) asked, decided or not


class Pooled(BaseModel):
    target_a: str
    target_b: str
    ac: PairedRate
    incorrect: PairedRate


class Presence(BaseModel):
    """What is in one run only: listed, never silently dropped."""

    targets_a: list[str]
    targets_b: list[str]
    scenarios_a: list[str]
    scenarios_b: list[str]
    groups_a: list[str]
    groups_b: list[str]

    def lines(self) -> list[str]:
        out = []
        for label, items in (
            ("Targets only in A", self.targets_a),
            ("Targets only in B", self.targets_b),
            ("Scenarios only in A", self.scenarios_a),
            ("Scenarios only in B", self.scenarios_b),
            ("Question groups only in A", self.groups_a),
            ("Question groups only in B", self.groups_b),
        ):
            if items:
                out.append(f"{label} ({len(items)}): {', '.join(items)}")
        return out


def outcomes(corpus: Corpus) -> Outcomes:
    out: Outcomes = {}
    for target, scenario_id, variant, group, epoch, category in corpus.query(
        "SELECT target, scenario_id, variant, question_group, epoch, ship_category FROM trial_groups "
        f"WHERE {SCORED_FILTER}"
    ):
        key = (str(scenario_id), str(variant), str(group), str(epoch))
        out.setdefault(str(target), {})[key] = str(category)
    return out


def asked(corpus: Corpus) -> Asked:
    """Every group a target was asked and the judges either decided or left for people: a group in
    review is in the run, so it is never listed as "only in" the other one."""
    out: Asked = {}
    for target, scenario_id, variant, group in corpus.query(
        "SELECT DISTINCT target, scenario_id, variant, question_group FROM trial_groups "
        f"WHERE ({SCORED_FILTER}) OR ship_category = 'needs_review'"
    ):
        out.setdefault(str(target), set()).add((str(scenario_id), str(variant), str(group)))
    return out


def _is(items: dict[Item, str], category: str) -> dict[tuple[str, ...], bool]:
    """Keyed (scenario, question group, variant, epoch): paired_rate clusters by the first two."""
    return {(s, g, v, e): value == category for (s, v, g, e), value in items.items()}


def pooled(a: Outcomes, b: Outcomes, pairs: list[tuple[str, str]]) -> list[Pooled]:
    out = [
        Pooled(
            target_a=target_a,
            target_b=target_b,
            ac=paired_rate(_is(a[target_a], "accurate_complete"), _is(b[target_b], "accurate_complete")),
            incorrect=paired_rate(_is(a[target_a], "incorrect"), _is(b[target_b], "incorrect")),
        )
        for target_a, target_b in pairs
        if target_a in a and target_b in b
    ]
    holm([r for p in out for r in (p.ac, p.incorrect)])
    return out


def presence(a: Asked, b: Asked, pairs: list[tuple[str, str]]) -> Presence:
    paired_a = {p[0] for p in pairs}
    paired_b = {p[1] for p in pairs}
    scenarios_a = {k[0] for items in a.values() for k in items}
    scenarios_b = {k[0] for items in b.values() for k in items}
    groups_a = {f"{k[0]}/{k[2]}" for items in a.values() for k in items}
    groups_b = {f"{k[0]}/{k[2]}" for items in b.values() for k in items}
    return Presence(
        targets_a=sorted(set(a) - paired_a),
        targets_b=sorted(set(b) - paired_b),
        scenarios_a=sorted(scenarios_a - scenarios_b),
        scenarios_b=sorted(scenarios_b - scenarios_a),
        groups_a=sorted(g for g in groups_a - groups_b if g.split("/")[0] in scenarios_b),
        groups_b=sorted(g for g in groups_b - groups_a if g.split("/")[0] in scenarios_a),
    )


def pooled_cells(result: PairedRate) -> tuple[str, str, str, str, str]:
    mark = " SIGNIFICANT" if result.significant else ""
    rate_a = "n/a" if result.rate_a is None else f"{100 * result.rate_a:.1f}%"
    rate_b = "n/a" if result.rate_b is None else f"{100 * result.rate_b:.1f}%"
    return (
        rate_a,
        rate_b,
        fmt_points(result.difference, result.low, result.high) + mark,
        f"{result.only_a} / {result.only_b}",
        f"{fmt_p(result.p_adjusted if result.p_adjusted is not None else result.p_value)} ({result.method})",
    )


POOLED_NOTE = (
    "Pooled over every question group (and variant): items (variant, scenario, question group, epoch) "
    "answered in both runs. "
    "Test: clustered McNemar (Obuchowski), question groups as clusters (the test used named beside "
    "each p), Holm-adjusted over every row; interval: Newcombe's paired score interval on the "
    "design-effect-adjusted n. B − A in percentage points; significant: adjusted p < 0.05 and an "
    "interval that excludes zero."
)


def pooled_markdown(rows: list[Pooled]) -> list[str]:
    lines = [f"## Pooled across question groups ({len(rows)} target pair(s))", "", POOLED_NOTE, ""]
    if not rows:
        return [*lines, "No target answered items in both runs.", ""]
    lines += [
        "| Target A | Target B | Rate | Pairs | Clusters | A | B | B − A (95% CI) | Only A / only B | "
        "p (Holm; test) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        for label, result in (("A&C", row.ac), ("Incorrect", row.incorrect)):
            cells = pooled_cells(result)
            lines.append(
                f"| {md_text(row.target_a)} | {md_text(row.target_b)} | {label} | {result.n_pairs} | "
                f"{result.clusters} | " + " | ".join(cells) + " |"
            )
    return [*lines, ""]
