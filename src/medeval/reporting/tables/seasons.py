"""Season over season: when a report holds runs judged with two seasons' keys, each target's category
rates in the earlier and the later season side by side, per question group and pooled, with the
difference (later minus earlier) and Newcombe's interval.

Only targets and question groups scored in both seasons are compared, and a target's pooled rates
pool those same groups, so both sides count the same questions. The difference mixes two causes,
the keys and the model: `medeval compare EARLIER LATER --drift` separates them (it judges the
earlier answers again with the later keys). The counts are category_counts', as drift reads them."""

from __future__ import annotations

from itertools import pairwise

from pydantic import BaseModel

from medeval.reporting.loading.baseline import group_sort_key
from medeval.reporting.loading.run import Corpus
from medeval.reporting.loading.seasons import keys_used, season_table
from medeval.reporting.stats.intervals import Difference, Interval
from medeval.reporting.tables.category_counts import POOLED, category_counts, change, pooled, rate
from medeval.reporting.tables.headline import HEADLINE_CATEGORIES, SHORT_LABELS

SEASONS_CSV = "seasons.csv"
DRIFT_POINTER = (
    "A change between seasons mixes the keys' change with the model's: `medeval compare EARLIER_RUN "
    "LATER_RUN --drift` separates them (it judges the earlier answers again with the later keys)."
)


class SeasonRow(BaseModel):
    target: str
    scenario_id: str
    question_group: str
    category: str
    earlier: Interval
    later: Interval
    change: Difference

    @property
    def is_pooled(self) -> bool:
        return self.scenario_id == POOLED


class SeasonComparison(BaseModel):
    earlier: int
    later: int
    #: The keys each season's runs used (folders and versions).
    earlier_keys: str
    later_keys: str
    rows: list[SeasonRow]

    def csv_rows(self) -> list[dict[str, object]]:
        out: list[dict[str, object]] = []
        for r in self.rows:
            row: dict[str, object] = {
                "target": r.target,
                "scenario_id": r.scenario_id,
                "question_group": r.question_group,
                "category": r.category,
                "earlier_season": self.earlier,
                "earlier_keys": self.earlier_keys,
                "later_season": self.later,
                "later_keys": self.later_keys,
            }
            for name, cell in (("earlier", r.earlier), ("later", r.later)):
                row[f"{name}_rate"] = _round(cell.estimate)
                row[f"{name}_low"] = _round(cell.low)
                row[f"{name}_high"] = _round(cell.high)
                row[f"{name}_n"] = cell.n
            row["difference"] = _round(r.change.difference)
            row["difference_low"] = _round(r.change.low)
            row["difference_high"] = _round(r.change.high)
            out.append(row)
        return out


def _round(value: float | None) -> object:
    return "" if value is None else round(value, 4)


def season_over_season(corpus: Corpus) -> list[SeasonComparison]:
    """One comparison per pair of consecutive seasons in the corpus; none with a single season."""
    seasons = season_table(corpus)
    out = []
    for earlier, later in pairwise(seasons):
        before, after = category_counts(corpus, earlier), category_counts(corpus, later)
        common = sorted(set(before) & set(after), key=lambda k: (k[0], k[1], group_sort_key(k[2])))
        rows: list[SeasonRow] = []
        for target in dict.fromkeys(k[0] for k in common):
            mine = [k for k in common if k[0] == target]
            cells = [((target, POOLED, POOLED), pooled(before, mine), pooled(after, mine))]
            cells += [(k, before[k], after[k]) for k in mine]
            rows += [
                SeasonRow(
                    target=key[0],
                    scenario_id=key[1],
                    question_group=key[2],
                    category=category,
                    earlier=rate(a, category),
                    later=rate(b, category),
                    change=change(a, b, category),
                )
                for key, a, b in cells
                for category in HEADLINE_CATEGORIES
            ]
        out.append(
            SeasonComparison(
                earlier=earlier,
                later=later,
                earlier_keys=keys_used(corpus.snapshots, earlier),
                later_keys=keys_used(corpus.snapshots, later),
                rows=rows,
            )
        )
    return out


def label(category: str) -> str:
    return SHORT_LABELS.get(category, category)
