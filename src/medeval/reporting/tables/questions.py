"""report.html's question table: per script, one row per question group in script order, expanding to
provider and model rows, each with its SHIP-vs-model shares and the A&C difference with its interval.

Counselors are the study's combined (phone and face to face) results for the group. A difference is
row minus counselors in percentage points with a Newcombe 95% interval.
"""

from __future__ import annotations

from pydantic import BaseModel

from medeval.reporting.loading.baseline import SHIP_CATEGORIES, baseline_for, group_sort_key
from medeval.reporting.loading.run import Corpus
from medeval.reporting.stats.intervals import Difference, proportion_difference, wilson
from medeval.reporting.tables.run_tables import SCORED_FILTER, target_order

TABLE_CATEGORIES = ("accurate_complete", "substantive_incomplete", "not_substantive", "incorrect")


class Shares(BaseModel):
    """One row's shares per category (percent), with n and the A&C Wilson interval."""

    label: str
    kind: str  # "pooled", "provider" or "model"
    target: str = ""
    n: int
    pct: dict[str, float | None]
    ci: dict[str, str]
    delta_ac: Difference | None
    drawer: str = ""  # key of the drawer entry (model rows)
    #: Groups asked and scored by design but outside n: left for people, or the judges failed.
    needs_review: int = 0
    not_scored: int = 0

    def outside(self) -> str:
        """ "2 in review, 1 not scored: 25% outside n"; "" when every group is in n."""
        if not self.needs_review and not self.not_scored:
            return ""
        parts = [f"{self.needs_review} in review"] if self.needs_review else []
        parts += [f"{self.not_scored} not scored"] if self.not_scored else []
        share = 100 * (self.needs_review + self.not_scored) / (self.n + self.needs_review + self.not_scored)
        return f"{', '.join(parts)}: {share:.0f}% outside n"


class GroupRow(BaseModel):
    question_group: str
    order: int
    topic: str
    question: str
    counselor_n: int
    counselor_pct: dict[str, float | None]
    counselor_ci: dict[str, str]
    pooled: Shares
    children: list[Shares]

    @property
    def counselor_ac(self) -> float | None:
        return self.counselor_pct.get("accurate_complete")


#: Outside n, counted beside it.
OUTSIDE = ("needs_review", "not_scored")


def ci_text(successes: int, n: int) -> str:
    interval = wilson(successes, n)
    if interval.low is None or interval.high is None:
        return ""
    return f"95% CI {100 * interval.low:.0f}–{100 * interval.high:.0f}%"


def script_of(group: str, scenario_id: str, corpus: Corpus) -> str:
    human = baseline_for(group)
    if human and human[0].persona in ("medicare_only", "dual_eligible"):
        return human[0].persona
    # QG1 is in both study scripts, and other groups belong to their scenario's script.
    scenario = corpus.scenario(scenario_id)
    return scenario.script if scenario and scenario.script else "other"


def drawer_key(script: str, group: str, target: str) -> str:
    return f"{script}|{group}|{target}"


def _shares(
    label: str, kind: str, counts: dict[str, int], counselor: tuple[int, int] | None, target: str = ""
) -> Shares:
    n = sum(counts[c] for c in SHIP_CATEGORIES)
    delta = None
    if counselor is not None and n:
        delta = proportion_difference(counselor[0], counselor[1], counts["accurate_complete"], n)
    return Shares(
        label=label,
        kind=kind,
        target=target,
        n=n,
        pct={c: 100 * counts[c] / n if n else None for c in TABLE_CATEGORIES},
        ci={c: ci_text(counts[c], n) for c in TABLE_CATEGORIES},
        delta_ac=delta,
        needs_review=counts.get("needs_review", 0),
        not_scored=counts.get("not_scored", 0),
    )


COUNTED = (*SHIP_CATEGORIES, *OUTSIDE)


def _sum(parts: list[dict[str, int]]) -> dict[str, int]:
    return {c: sum(p[c] for p in parts) for c in COUNTED}


def question_rows(corpus: Corpus) -> dict[str, list[GroupRow]]:
    counts: dict[str, dict[str, dict[str, dict[str, int]]]] = {}
    questions: dict[tuple[str, str], str] = {}
    # Groups in review or not scored count beside n, so a target whose answers all await people
    # still has its row, and the share outside n is said.
    in_or_beside = "', '".join(OUTSIDE)
    for scenario_id, group, target, category, count in corpus.query(
        "SELECT scenario_id, question_group, target, ship_category, count(*) FROM trial_groups "
        f"WHERE ({SCORED_FILTER}) OR (scored AND ship_category IN ('{in_or_beside}')) GROUP BY ALL"
    ):
        script = script_of(group, scenario_id, corpus)
        by_target = counts.setdefault(script, {}).setdefault(group, {})
        by_target.setdefault(target, dict.fromkeys(COUNTED, 0))[category] += count
        scenario = corpus.scenario(scenario_id)
        if scenario is not None and (script, group) not in questions:
            questions[(script, group)] = " / ".join(t.user_message for t in scenario.groups().get(group, []))
    order = target_order(corpus)
    out: dict[str, list[GroupRow]] = {}
    # The study's order: the Medicare-only script, then the dual-eligible one, then any other.
    study = ("medicare_only", "dual_eligible")
    for script, groups in sorted(
        counts.items(), key=lambda kv: (study.index(kv[0]) if kv[0] in study else 2, kv[0])
    ):
        rows = []
        for position, group in enumerate(sorted(groups, key=group_sort_key)):
            human = {row.mode: row for row in baseline_for(group)}.get("combined")
            reference = (human.counts["accurate_complete"], human.n) if human and human.n else None
            models = sorted(groups[group].items(), key=lambda item: order.index(item[0]))
            children: list[Shares] = []
            providers: dict[str, list[tuple[str, dict[str, int]]]] = {}
            for target, per in models:
                providers.setdefault(target.split(":", 1)[0], []).append((target, per))
            for provider, members in providers.items():
                if len(providers) > 1:  # one provider's row would repeat the pooled row
                    children.append(_shares(provider, "provider", _sum([m for _, m in members]), reference))
                for target, per in members:
                    row = _shares(target, "model", per, reference, target=target)
                    children.append(row.model_copy(update={"drawer": drawer_key(script, group, target)}))
            rows.append(
                GroupRow(
                    question_group=group,
                    order=position,
                    topic=human.topic if human else "",
                    question=questions.get((script, group), ""),
                    counselor_n=human.n if human else 0,
                    counselor_pct={
                        c: 100 * human.counts[c] / human.n if human and human.n else None
                        for c in TABLE_CATEGORIES
                    },
                    counselor_ci={
                        c: ci_text(human.counts[c], human.n) if human else "" for c in TABLE_CATEGORIES
                    },
                    pooled=_shares("AI targets pooled", "pooled", _sum([m for _, m in models]), reference),
                    children=children,
                )
            )
        out[script] = rows
    return out
