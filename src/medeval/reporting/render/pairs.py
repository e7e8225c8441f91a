"""report.md's paired comparison of targets and consistency across epochs (kept out of markdown.py)."""

from __future__ import annotations

from collections.abc import Sequence

from medeval.reporting.render.md_cells import table
from medeval.reporting.stats.consistency import Consistency
from medeval.reporting.stats.intervals import Interval, fmt_p, fmt_points
from medeval.reporting.stats.paired import PairedRate
from medeval.reporting.tables.findings import PairRow


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    return table(header, rows)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def paired_cells(result: PairedRate) -> list[str]:
    """A, B, B − A with its interval, the discordant pairs and the clustered p-value."""
    mark = " (significant)" if result.significant else ""
    return [
        _pct(result.rate_a),
        _pct(result.rate_b),
        fmt_points(result.difference, result.low, result.high) + mark,
        f"{result.only_a} / {result.only_b}",
        fmt_p(result.p_value),
        fmt_p(result.p_adjusted),
        result.method,
    ]


PAIRED_NOTE = (
    "Difference = B − A over every item (scenario, question group, epoch) both answered, pooled across "
    "question groups. Test: clustered McNemar (Obuchowski) with question groups as clusters (the test "
    "used is named in each row), Holm-adjusted over every row of the table; interval: Newcombe's paired "
    "score interval on the design-effect-adjusted n. Significant: adjusted p < 0.05 and an interval "
    "that excludes zero. See docs/statistics.md."
)


def pairs_markdown(pairs: Sequence[PairRow]) -> list[str]:
    if not pairs:
        return []
    rows = []
    for pair in pairs:
        for label, result in (("A&C", pair.ac), ("Incorrect", pair.incorrect)):
            rows.append(
                (
                    pair.target_a,
                    pair.target_b,
                    label,
                    pair.ac.n_pairs,
                    pair.ac.clusters,
                    *paired_cells(result),
                )
            )
    header = (
        "Target A",
        "Target B",
        "Rate",
        "Pairs",
        "Clusters",
        "A",
        "B",
        "B − A (95% CI)",
        "Only A / only B",
        "p",
        "p (Holm)",
        "Test",
    )
    return ["## Paired comparisons of targets", "", PAIRED_NOTE, "", *_table(header, rows)]


def _rate(interval: Interval) -> str:
    if interval.estimate is None or interval.low is None or interval.high is None:
        return "n/a"
    return f"{100 * interval.estimate:.1f}% ({100 * interval.low:.1f}–{100 * interval.high:.1f})"


def consistency_markdown(rows: Sequence[Consistency]) -> list[str]:
    if not rows:
        return []
    body = [
        (r.target, r.items, r.epochs, _rate(r.inconsistent), _pct(r.mean_ac), _rate(r.worst_of_k_ac))
        for r in rows
    ]
    return [
        "## Consistency across epochs",
        "",
        "Items = (scenario, question group) answered in two or more epochs. Changed category: the share "
        "of items given more than one SHIP category across epochs. Worst-of-k A&C: the share accurate and "
        "complete in every epoch. Wilson 95% intervals.",
        "",
        *_table(("Target", "Items", "Epochs", "Changed category", "Mean A&C", "Worst-of-k A&C"), body),
    ]
