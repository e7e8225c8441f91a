"""The headline: how each target did beside the SHIP counselors, over the study's question groups only.

Per target: the four SHIP categories over the question groups of the study's two scripts (scenarios
whose `script` is medicare_only or dual_eligible, groups the study scored), each with n and a Wilson
95% interval; the counselors' published rates (phone, face to face, combined); and the difference in
percentage points with its Newcombe interval. The same again over the groups with no declared
deviation from the study, beside the counselors over those same groups. Groups the judges could not
settle (needs_review) and groups whose judges failed (not_scored) are counted beside, never in, the
rates.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from medeval.reporting.loading.baseline import (
    MODE_LABELS,
    MODES,
    SHIP_CATEGORIES,
    group_sort_key,
    load_baseline,
)
from medeval.reporting.loading.run import Corpus
from medeval.reporting.loading.seasons import season_join, season_table
from medeval.reporting.stats.intervals import Difference, Interval, proportion_difference, wilson
from medeval.reporting.tables.families import same_family
from medeval.reporting.tables.provenance import coded_label, counselor_targets
from medeval.reporting.tables.run_tables import target_order

STUDY_SCRIPTS = ("medicare_only", "dual_eligible")
HEADLINE_CATEGORIES = ("accurate_complete", "substantive_incomplete", "not_substantive", "incorrect")
SHORT_LABELS = {
    "accurate_complete": "A&C",
    "substantive_incomplete": "SBI",
    "not_substantive": "NS",
    "incorrect": "Incorrect",
}


class CounselorRates(BaseModel):
    mode: str
    label: str
    n: int
    counts: dict[str, int]
    rates: dict[str, Interval]


class TargetHeadline(BaseModel):
    target: str
    #: How the row is named: the target, or for counselors' transcripts (`medeval ingest
    #: --counselor`) the target marked as counselors coded by these judges.
    label: str = ""
    n: int
    rates: dict[str, Interval]
    #: Target minus counselors, A&C, per counselor mode (phone, face_to_face, combined).
    delta_ac: dict[str, Difference]
    #: Target minus counselors (combined), per category.
    delta_combined: dict[str, Difference]
    needs_review: int
    not_scored: int
    #: Answered with its provider's own web search on: flagged wherever the row is shown.
    web_search: bool = False
    #: The plan year of the keys these rates were judged with, when the report mixes seasons (a
    #: target then has one row per season: two seasons are never pooled).
    season: int | None = None

    @property
    def name(self) -> str:
        return self.target if self.season is None else f"{self.target} ({self.season} keys)"


class HeadlineBlock(BaseModel):
    title: str
    groups: list[str]
    targets: list[TargetHeadline]
    counselors: list[CounselorRates]


class Headline(BaseModel):
    study: HeadlineBlock
    no_deviation: HeadlineBlock
    judges: list[str]
    decided_by_people: int
    #: Groups with a declared deviation from the study (left out of the second block).
    deviating: list[str]
    #: (target, judge) of one vendor family: the self-preference flag (reporting/tables/families.py).
    same_family: list[tuple[str, str]] = []
    #: The seasons whose keys judged these groups, when more than one (each target a row per season).
    seasons: list[int] = []
    #: The variation matrix's levels in these groups: each target's rates pool them all.
    variants: list[str] = []
    #: Targets that searched the web through their provider (`--web-search`).
    search_targets: list[str] = Field(default_factory=list)

    def blocks(self) -> list[HeadlineBlock]:
        """The study block, and the no-deviation block when it differs (some group deviates)."""
        blocks = [self.study]
        if self.deviating and self.no_deviation.targets:
            blocks.append(self.no_deviation)
        return blocks

    def sentence(self) -> str:
        groups = self.study.groups
        if not groups:
            return (
                "No question group of the study's two scripts was scored in this run, so there is no "
                "headline beside the counselors; the tables below cover every group asked."
            )
        judges = ", ".join(self.judges) or "none recorded"
        people = self.decided_by_people
        deviating = (
            f"; the second table leaves out {len(self.deviating)} with a declared deviation "
            f"({', '.join(self.deviating)})"
            if self.deviating
            else "; no group answered has a declared deviation from the study, so these are also the rates "
            "over groups without one"
        )
        return (
            f"Rates over the {len(groups)} question groups of the study's scripts that were scored "
            f"({', '.join(groups)}){deviating}. Categories were decided by the judges "
            f"({judges}); {people} group decision{'s' if people != 1 else ''} by people"
            + (", so these rates are uncorrected for judge error. " if not people else ". ")
            + "Counselors: the study's published rates over all its scored groups"
            + (" (first table) and over the same groups (second table)" if self.deviating else "")
            + ". Wilson 95% intervals; differences in percentage points, Newcombe 95% intervals. Needs "
            "review and not scored are counted apart, outside n."
            + self.pooling()
            + self.season_note()
            + self.searching()
            + self.self_preference()
        )

    def season_note(self) -> str:
        if len(self.seasons) < 2:
            return ""
        return (
            f" These runs were judged with {len(self.seasons)} seasons' keys "
            f"({', '.join(map(str, self.seasons))}): each target has one row per season, named by its keys' "
            "plan year, and seasons are never pooled; the season-over-season section compares them."
        )

    def self_preference(self) -> str:
        if not self.same_family:
            return ""
        pairs = "; ".join(f"judge {j} and target {t}" for t, j in self.same_family)
        return (
            f" Self-preference risk: {pairs} are of one vendor family, and LLM judges tend to favour "
            "their own family's answers; compare with a judge of another family."
        )

    def searching(self) -> str:
        if not self.search_targets:
            return ""
        return (
            " Search-enabled (their provider's web search on; not model-only answers): "
            f"{', '.join(self.search_targets)}."
        )

    def pooling(self) -> str:
        if len(self.variants) < 2:
            return ""
        return (
            f" Each target's rates pool its {len(self.variants)} variants ({', '.join(self.variants)}); "
            "the variants are compared in the sensitivity section."
        )


PEOPLE = ("consensus", "coder")


def decided_by_people(corpus: Corpus, scenarios: list[str]) -> int:
    """Study groups whose category people decided: the `decided_by` column that
    reporting/human.apply_reviews adds from reviews.jsonl (absent, so 0, before reviews are applied,
    as in the terminal summary after a run)."""
    present = corpus.query(
        "SELECT count(*) FROM information_schema.columns "
        "WHERE table_name = 'trial_groups' AND column_name = 'decided_by'"
    )[0][0]
    if not present:
        return 0
    return int(
        corpus.query(
            "SELECT count(*) FROM trial_groups WHERE decided_by IN (SELECT unnest(?::VARCHAR[])) "
            "AND scenario_id IN (SELECT unnest(?::VARCHAR[]))",
            [list(PEOPLE), scenarios],
        )[0][0]
    )


def study_scenarios(corpus: Corpus) -> set[str]:
    """Scenarios of the study's two scripts; a scenario whose file is gone counts when its groups are
    the study's (they carry counselor rows)."""
    baseline_groups = {row.question_group for row in load_baseline()}
    out = set()
    for scenario_id, groups in corpus.query(
        "SELECT scenario_id, list(DISTINCT question_group) FROM trial_groups GROUP BY 1"
    ):
        scenario = corpus.scenario(scenario_id)
        if scenario is not None:
            if scenario.script in STUDY_SCRIPTS:
                out.add(scenario_id)
        elif set(groups) & baseline_groups:
            out.add(scenario_id)
    return out


def _counselors(groups: set[str] | None) -> list[CounselorRates]:
    out = []
    for mode in MODES:
        totals = dict.fromkeys(SHIP_CATEGORIES, 0)
        n = 0
        for row in load_baseline():
            if row.mode == mode and (groups is None or row.question_group in groups):
                n += row.n
                for category in SHIP_CATEGORIES:
                    totals[category] += row.counts[category]
        out.append(
            CounselorRates(
                mode=mode,
                label=MODE_LABELS[mode],
                n=n,
                counts={c: totals[c] for c in HEADLINE_CATEGORIES},
                rates={c: wilson(totals[c], n) for c in HEADLINE_CATEGORIES},
            )
        )
    return out


Row = tuple[str, int | None, str, str, int]  # (target, season or None, group, category, count)


def _block(
    title: str,
    rows: list[Row],
    groups: set[str],
    targets: list[str],
    counselors: list[CounselorRates],
    coded: set[str] | None = None,
) -> HeadlineBlock:
    counts: dict[tuple[str, int | None], dict[str, int]] = {}
    for target, season, group, category, count in rows:
        if group in groups:
            per = counts.setdefault((target, season), {})
            per[category] = per.get(category, 0) + count
    by_mode = {c.mode: c for c in counselors}
    out = []
    order = {t: i for i, t in enumerate(targets)}
    entries = sorted((k for k in counts if k[0] in order), key=lambda k: (order[k[0]], k[1] or 0))
    for target, season in entries:
        per = counts[(target, season)]
        n = sum(per.get(c, 0) for c in SHIP_CATEGORIES)
        successes = per.get("accurate_complete", 0)
        delta_ac = {}
        for mode, human in by_mode.items():
            delta_ac[mode] = proportion_difference(human.counts["accurate_complete"], human.n, successes, n)
        combined = by_mode["combined"]
        delta_combined = {
            c: proportion_difference(combined.counts[c], combined.n, per.get(c, 0), n)
            for c in HEADLINE_CATEGORIES
        }
        out.append(
            TargetHeadline(
                target=target,
                label=(coded_label(target) if target in (coded or set()) else target)
                + (f" ({season} keys)" if season is not None else ""),
                season=season,
                n=n,
                rates={c: wilson(per.get(c, 0), n) for c in HEADLINE_CATEGORIES},
                delta_ac=delta_ac,
                delta_combined=delta_combined,
                needs_review=per.get("needs_review", 0),
                not_scored=per.get("not_scored", 0),
            )
        )
    return HeadlineBlock(
        title=title, groups=sorted(groups, key=group_sort_key), targets=out, counselors=counselors
    )


def headline(corpus: Corpus) -> Headline:
    baseline_groups = {row.question_group for row in load_baseline()}
    scenarios = sorted(study_scenarios(corpus))
    season_table(corpus)
    rows = corpus.query(
        "SELECT target, ss.season, question_group, ship_category, count(*) FROM trial_groups tg "
        f"{season_join('tg')} WHERE tg.scenario_id IN (SELECT unnest(?::VARCHAR[])) AND scored GROUP BY ALL",
        [scenarios],
    )
    seasons = sorted({int(s) for _, s, _, _, _ in rows if s is not None})
    # One season (or none recorded): no season column; more: a row per target and season.
    typed: list[Row] = [
        (str(t), int(s) if s is not None and len(seasons) > 1 else None, str(g), str(c), int(n))
        for t, s, g, c, n in rows
    ]
    # The groups the study scored that this run scored (a group answered only as needs_review counts).
    groups = {g for _, _, g, c, _ in typed if g in baseline_groups and c != "not_applicable"}
    deviating = {
        str(row[0])
        for row in corpus.query(
            "SELECT DISTINCT question_group FROM trial_groups WHERE len(deviations) > 0 "
            "AND scenario_id IN (SELECT unnest(?::VARCHAR[]))",
            [scenarios],
        )
    }
    targets = target_order(corpus)
    coded = counselor_targets(corpus.snapshots)
    clean = groups - deviating
    judges = sorted({j for snap in corpus.snapshots for j in snap.judge_panel()})
    search = sorted({t for snap in corpus.snapshots for t in snap.search_targets})
    return Headline(
        study=_mark_search(
            _block("Study question groups", typed, groups, targets, _counselors(None), coded), search
        ),
        no_deviation=_mark_search(
            _block(
                "Study question groups with no declared deviation",
                typed,
                clean,
                targets,
                _counselors(clean),
                coded,
            ),
            search,
        ),
        judges=judges,
        decided_by_people=decided_by_people(corpus, scenarios),
        deviating=sorted(deviating & groups, key=group_sort_key),
        variants=sorted(
            str(row[0])
            for row in corpus.query(
                "SELECT DISTINCT variant FROM trial_groups WHERE variant <> '' "
                "AND scenario_id IN (SELECT unnest(?::VARCHAR[]))",
                [scenarios],
            )
        ),
        search_targets=search,
        same_family=same_family(targets, judges),
        seasons=seasons if len(seasons) > 1 else [],
    )


def _mark_search(block: HeadlineBlock, search: list[str]) -> HeadlineBlock:
    return block.model_copy(
        update={"targets": [t.model_copy(update={"web_search": t.target in search}) for t in block.targets]}
    )
