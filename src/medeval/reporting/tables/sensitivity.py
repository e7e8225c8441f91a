"""Prompt sensitivity: how the study's categories move between the variants of the variation
matrix (system prompts, persona detail, rewording). Category rates per target and variant with
Wilson intervals, and the paired difference in the accurate & complete rate between two variants on
the same scenario, target, epoch and question group (cluster bootstrap by question group, exact McNemar)."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from pydantic import BaseModel

from medeval.records.safe_output import md_code, md_text
from medeval.reporting.loading.run import Corpus
from medeval.reporting.stats.intervals import Interval, PairedComparison, paired_comparison, wilson
from medeval.reporting.tables.run_tables import SCORED_FILTER, target_order
from medeval.schemas import STUDY_CATEGORIES

ALL_TARGETS = "all targets"
#: Pairs of variants shown at most (a matrix of many variants stays readable).
MAX_VARIANT_PAIRS = 15


class VariantRates(BaseModel):
    target: str
    variant: str
    n: int
    rates: dict[str, Interval]


class VariantPair(BaseModel):
    target: str
    variant_a: str
    variant_b: str
    result: PairedComparison


class Sensitivity(BaseModel):
    variants: list[str]
    rates: list[VariantRates]
    pairs: list[VariantPair]


def prompt_sensitivity(corpus: Corpus, seed: int) -> Sensitivity | None:
    """None when the runs have fewer than two variants (nothing to compare)."""
    rows = corpus.query(
        "SELECT variant, target, scenario_id, question_group, epoch, run_id, ship_category "
        f"FROM trial_groups WHERE {SCORED_FILTER} AND variant <> ''"
    )
    variants = list(dict.fromkeys(sorted(str(r[0]) for r in rows)))
    if len(variants) < 2:
        return None
    # Variants in the order the runs declared them, where a manifest says.
    declared = [v for s in corpus.snapshots for v in s.variants]
    variants = sorted(variants, key=lambda v: (declared.index(v) if v in declared else len(declared), v))
    targets = [t for t in target_order(corpus) if any(r[1] == t for r in rows)]
    counts: dict[tuple[str, str], dict[str, int]] = {}
    outcomes: dict[tuple[str, str], dict[tuple[str, ...], bool]] = {}
    for variant, target, scenario_id, group, epoch, run_id, category in rows:
        for who in (target, ALL_TARGETS):
            tally = counts.setdefault((who, variant), {})
            tally[category] = tally.get(category, 0) + 1
            # The question group leads the key: it is the bootstrap's cluster (the scenarios are too
            # few to resample: the SHIP study has two).
            item = (f"{scenario_id}/{group}", target, str(epoch), run_id)
            outcomes.setdefault((who, variant), {})[item] = category == "accurate_complete"
    rates = []
    for who in [*targets, ALL_TARGETS]:
        for variant in variants:
            tally = counts.get((who, variant), {})
            n = sum(tally.get(c.value, 0) for c in STUDY_CATEGORIES)
            if n:
                rates.append(
                    VariantRates(
                        target=who,
                        variant=variant,
                        n=n,
                        rates={c.value: wilson(tally.get(c.value, 0), n) for c in STUDY_CATEGORIES},
                    )
                )
    pairs = []
    for a, b in list(combinations(variants, 2))[:MAX_VARIANT_PAIRS]:
        for who in [*targets, ALL_TARGETS]:
            first, second = outcomes.get((who, a)), outcomes.get((who, b))
            if first and second:
                result = paired_comparison(first, second, seed=seed)
                if result.n_pairs:
                    pairs.append(VariantPair(target=who, variant_a=a, variant_b=b, result=result))
    return Sensitivity(variants=variants, rates=rates, pairs=pairs)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _ci(interval: Interval) -> str:
    if interval.low is None or interval.high is None:
        return _pct(interval.estimate)
    return f"{_pct(interval.estimate)} ({_pct(interval.low)}–{_pct(interval.high)})"


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(md_text(c) for c in row) + " |" for row in rows]
    return [*out, ""]


def sensitivity_lines(data: Sensitivity | None) -> list[str]:
    """The report's prompt-sensitivity section, in Markdown."""
    if data is None:
        return []
    rate_rows = [
        (r.target, r.variant, r.n, *(_ci(r.rates[c.value]) for c in STUDY_CATEGORIES)) for r in data.rates
    ]
    pair_rows = []
    for p in data.pairs:
        r = p.result
        diff = r.difference
        pair_rows.append(
            (
                p.target,
                p.variant_a,
                p.variant_b,
                r.n_pairs,
                _pct(r.rate_a),
                _pct(r.rate_b),
                "n/a" if diff.estimate is None else f"{100 * diff.estimate:+.1f} pp",
                "n/a"
                if diff.low is None or diff.high is None
                else f"{100 * diff.low:+.1f} to {100 * diff.high:+.1f} pp",
                f"{r.only_a} / {r.only_b}",
                "n/a" if r.mcnemar_p is None else f"{r.mcnemar_p:.3f}",
            )
        )
    return [
        "## Prompt sensitivity",
        "",
        f"Variants: {', '.join(md_code(v) for v in data.variants)}. The study's four categories per "
        "target and variant over the scored question groups, with 95% Wilson intervals.",
        "",
        *_table(
            (
                "Target",
                "Variant",
                "Groups",
                "Accurate & complete",
                "Substantive, incomplete",
                "Not substantive",
                "Incorrect",
            ),
            rate_rows,
        ),
        "Paired: the same scenario, target, epoch and question group under both variants. "
        "Difference = B − A in the accurate & complete rate; cluster-bootstrap interval by question group; "
        "exact McNemar test on the discordant pairs.",
        "",
        *_table(
            (
                "Target",
                "Variant A",
                "Variant B",
                "Pairs",
                "A&C A",
                "A&C B",
                "B − A",
                "95% CI",
                "Only A / only B",
                "McNemar p",
            ),
            pair_rows,
        ),
    ]
