"""`medeval compare RUN_A RUN_B`: what changed between two runs, and whether it is more than noise.

For each target, variant, scenario and question group present in both runs (a target of A is paired
with the same spec in B, or as `--pair A=B` says): the change in each SHIP
category rate (Newcombe interval, score test) and in each mean score (Welch interval and test).
The p-values of one comparison are Holm-adjusted together, and a change is flagged when its adjusted
p-value is below 0.05. Snapshot changes (served model, prompt hash, scenario hash, judges) are listed
first, because a difference only means something when you know what changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel
from statsmodels.stats.multitest import multipletests

from medeval.errors import UserError
from medeval.reporting.compare.pooled import (
    Asked,
    Pooled,
    Presence,
    asked,
    pooled,
    presence,
)
from medeval.reporting.compare.pooled import outcomes as pooled_outcomes
from medeval.reporting.loading.baseline import SHIP_CATEGORIES, group_sort_key
from medeval.reporting.loading.run import Corpus, RunSnapshot
from medeval.reporting.stats.intervals import (
    SIGNIFICANCE,
    Difference,
    mean_difference,
    proportion_difference,
)
from medeval.reporting.tables.people import apply_final
from medeval.reporting.tables.run_tables import SCORED_FILTER

SCORES = ("accuracy", "completeness", "safety_risk", "calibration")
Key = tuple[str, str, str, str]  # (target, variant, scenario_id, question_group)


class Change(BaseModel):
    target_a: str
    target_b: str
    scenario_id: str
    question_group: str
    metric: str
    result: Difference
    #: The variation matrix's level ("" in a run without variants); only the same variant is paired.
    variant: str = ""
    p_adjusted: float | None = None

    @property
    def significant(self) -> bool:
        """Holm-adjusted p below 0.05 and, where an interval is printed, one that excludes zero."""
        r = self.result
        spans_zero = r.low is not None and r.high is not None and r.low <= 0 <= r.high
        return self.p_adjusted is not None and self.p_adjusted < SIGNIFICANCE and not spans_zero

    def csv_row(self) -> dict[str, object]:
        r = self.result
        return {
            "target_a": self.target_a,
            "target_b": self.target_b,
            "variant": self.variant,
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
    #: Who decided the groups of each run (judges or people, and how many blind).
    who_decided: list[str] = []

    def flagged(self) -> list[Change]:
        return [c for c in self.changes if c.significant]

    def flagged_groups(self) -> list[tuple[str, str, str]]:
        return sorted({(c.target_b, c.scenario_id, c.question_group) for c in self.flagged()})

    def variants(self) -> list[str]:
        return sorted({c.variant for c in self.changes if c.variant})


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
        "SELECT target, variant, scenario_id, question_group, ship_category, accuracy, completeness, "
        f"safety_risk, calibration FROM trial_groups WHERE {SCORED_FILTER} ORDER BY trial_id"
    )
    out: dict[Key, list[tuple[str, list[float | None]]]] = {}
    for target, variant, scenario_id, group, category, *scores in rows:
        out.setdefault((target, variant, scenario_id, group), []).append((category, list(scores)))
    return out


def _target_pairs(
    a: Iterable[str], b: Iterable[str], explicit: list[tuple[str, str]] | None = None
) -> list[tuple[str, str]]:
    """The pairs given (`--pair A=B`), else the same spec in both runs; or, with no spec in common and
    one target in a run, that target against each target of the other run (model-to-model)."""
    targets_a, targets_b = list(dict.fromkeys(a)), list(dict.fromkeys(b))
    if explicit:
        for side, name, targets in (("A", 0, targets_a), ("B", 1, targets_b)):
            missing = [p[name] for p in explicit if p[name] not in targets]
            if missing:
                raise UserError(
                    f"--pair names {missing[0]!r}, which is not a target of run {side} "
                    f"({', '.join(targets) or 'no target'}); pass --pair A_TARGET=B_TARGET with those"
                )
        return list(dict.fromkeys(explicit))
    common = [t for t in targets_a if t in targets_b]
    if common:
        return [(t, t) for t in common]
    if len(targets_a) == 1:
        return [(targets_a[0], t) for t in targets_b]
    if len(targets_b) == 1:
        return [(t, targets_b[0]) for t in targets_a]
    return []


def parse_pairs(given: list[str] | None) -> list[tuple[str, str]]:
    """`--pair A=B` values: a target of run A and the target of run B it is compared with."""
    pairs = []
    for value in given or []:
        target_a, sep, target_b = value.partition("=")
        if not sep or not target_a.strip() or not target_b.strip():
            raise UserError(f"--pair {value!r} is not A=B; pass e.g. --pair openai:gpt-5=xai:grok-4.6")
        pairs.append((target_a.strip(), target_b.strip()))
    return pairs


def compare_runs(run_a: Path, run_b: Path, pairs: list[tuple[str, str]] | None = None) -> Comparison:
    corpus_a, corpus_b = Corpus([run_a]), Corpus([run_b])
    try:
        # The final categories (people's codes over the judges'), as every view counts them.
        apply_final(corpus_a)
        apply_final(corpus_b)
        who = [f"{name}: {who_decided(c)}" for name, c in (("A", corpus_a), ("B", corpus_b))]
        outcomes_a, outcomes_b = _outcomes(corpus_a), _outcomes(corpus_b)
        items_a, items_b = pooled_outcomes(corpus_a), pooled_outcomes(corpus_b)
        asked_a, asked_b = asked(corpus_a), asked(corpus_b)
        snap_a, snap_b = corpus_a.snapshots[0], corpus_b.snapshots[0]
    finally:
        corpus_a.close()
        corpus_b.close()
    pairs = _target_pairs(asked_a, asked_b, pairs)
    changes: list[Change] = []
    matched_a: set[Key] = set()
    matched_b: set[Key] = set()
    for target_a, target_b in pairs:
        keys = sorted(
            {(v, s, g) for t, v, s, g in outcomes_a if t == target_a}
            & {(v, s, g) for t, v, s, g in outcomes_b if t == target_b},
            key=lambda k: (k[1], k[0], group_sort_key(k[2])),
        )
        for variant, scenario_id, group in keys:
            rows_a, rows_b = (
                outcomes_a[(target_a, variant, scenario_id, group)],
                outcomes_b[(target_b, variant, scenario_id, group)],
            )
            matched_a.add((target_a, variant, scenario_id, group))
            matched_b.add((target_b, variant, scenario_id, group))
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
                        variant=variant,
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
                        variant=variant,
                    )
                )
    _holm(changes)
    where = presence(asked_a, asked_b, pairs)
    return Comparison(
        run_a=snap_a,
        run_b=snap_b,
        snapshot_changes=snapshot_changes(snap_a, snap_b, pairs) + where.lines(),
        changes=changes,
        only_a=_only(set(outcomes_a) - matched_a, asked_b, pairs),
        only_b=_only(set(outcomes_b) - matched_b, asked_a, [(b, a) for a, b in pairs]),
        pooled=pooled(items_a, items_b, pairs),
        presence=where,
        same_run=run_a.resolve() == run_b.resolve() or snap_a.run_id == snap_b.run_id,
        who_decided=who,
    )


def who_decided(corpus: Corpus) -> str:
    """`12 groups decided by the judges, 3 by people (3 of them blind)`, over the scored groups."""
    row = corpus.query(
        "SELECT count(*) FILTER (decided_by = 'judges'), count(*) FILTER (decided_by <> 'judges'), "
        "count(*) FILTER (decided_by <> 'judges' AND decided_blind) FROM trial_groups WHERE scored"
    )[0]
    return f"{row[0]} group(s) decided by the judges, {row[1]} by people ({row[2]} of them blind)"


def _only(unmatched: set[Key], other: Asked, pairs: list[tuple[str, str]]) -> list[str]:
    """Groups one run decided and the other did not, leaving out those the other run asked and left
    in review: those are in both runs, just not decided in both."""
    return [
        " / ".join(x for x in key if x)
        for key in sorted(unmatched)
        if not any(
            (key[2], key[1], key[3]) in other.get(partner, set()) for mine, partner in pairs if mine == key[0]
        )
    ]


def _holm(changes: list[Change]) -> None:
    tested = [c for c in changes if c.result.p_value is not None]
    if not tested:
        return
    adjusted = multipletests([c.result.p_value for c in tested], alpha=SIGNIFICANCE, method="holm")[1]
    for change, p_value in zip(tested, adjusted, strict=True):
        change.p_adjusted = float(p_value)
