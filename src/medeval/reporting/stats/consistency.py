"""Consistency across epochs: does a target give the same question group the same category each time?

For each target, over the (scenario, question group) items answered in two or more epochs:
- `inconsistent`: how many items got more than one category across epochs (share = inconsistent / items);
- worst-of-k A&C: the share of items that were Accurate and Complete in every epoch, the rate a user
  asking k times could count on (Wilson 95% interval).
"""

from __future__ import annotations

from pydantic import BaseModel

from medeval.reporting.loading.run import Corpus
from medeval.reporting.stats.intervals import Interval, wilson
from medeval.reporting.tables.run_tables import SCORED_FILTER, target_order


class Consistency(BaseModel):
    target: str
    items: int
    epochs: int
    inconsistent: Interval
    worst_of_k_ac: Interval
    mean_ac: float | None


def consistency(corpus: Corpus) -> list[Consistency]:
    rows = corpus.query(
        "SELECT target, count(*), max(k), count(*) FILTER (WHERE kinds > 1), "
        "count(*) FILTER (WHERE all_ac), avg(ac_share) FROM ("
        "SELECT target, scenario_id, question_group, count(DISTINCT epoch) AS k, "
        "count(DISTINCT ship_category) AS kinds, bool_and(ship_category = 'accurate_complete') AS all_ac, "
        "avg(CASE WHEN ship_category = 'accurate_complete' THEN 1.0 ELSE 0.0 END) AS ac_share "
        f"FROM trial_groups WHERE {SCORED_FILTER} GROUP BY ALL HAVING count(DISTINCT epoch) > 1"
        ") GROUP BY 1"
    )
    by_target = {str(r[0]): r for r in rows}
    out = []
    for target in target_order(corpus):
        if target not in by_target:
            continue
        _, items, epochs, inconsistent, all_ac, mean_ac = by_target[target]
        out.append(
            Consistency(
                target=target,
                items=int(items),
                epochs=int(epochs),
                inconsistent=wilson(int(inconsistent), int(items)),
                worst_of_k_ac=wilson(int(all_ac), int(items)),
                mean_ac=float(mean_ac) if mean_ac is not None else None,
            )
        )
    return out
