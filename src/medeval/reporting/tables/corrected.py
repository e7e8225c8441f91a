"""The headline's category rates corrected for judge error (reporting/stats/ppi.py).

Over the headline's first block (the study's question groups): for each target, the judges'
category of every group they decided, people's category of the judge-decided groups they coded
(the audit sample of `review export --sample`), and the groups whose category is not the judges'
guess (people decided a group the judges could not; incomplete data). Run after
people.apply_reviews, which keeps the judges' category in `judge_category` and puts people's in
`ship_category` with `decided_by`. A group people coded but split on without consensus has no
people's category and is left out of the audit.
"""

from __future__ import annotations

from itertools import combinations

from pydantic import BaseModel

from medeval.reporting.loading.baseline import SHIP_CATEGORIES
from medeval.reporting.loading.run import Corpus
from medeval.reporting.loading.seasons import season_join
from medeval.reporting.stats.ppi import (
    USEFUL_HALF_WIDTH,
    CorrectedDifference,
    CorrectedRate,
    corrected_difference,
    corrected_rate,
    difference_from_published,
)
from medeval.reporting.tables.headline import HEADLINE_CATEGORIES, SHORT_LABELS, Headline, study_scenarios
from medeval.review.categories import STUDY_CATEGORIES

PEOPLE = ("consensus", "coder")
#: Target pairs compared, as in the paired comparison.
MAX_PAIRS = 15
PAIR_CATEGORIES = ("accurate_complete", "incorrect")


class CorrectedTarget(BaseModel):
    target: str
    n: int
    decided: int
    codes: int
    rates: dict[str, CorrectedRate]
    #: Corrected rate minus the counselors' combined published rate, per category.
    vs_counselors: dict[str, CorrectedDifference]

    @property
    def useful(self) -> bool:
        return all(r.useful for r in self.rates.values())

    def more_codes(self) -> int | None:
        """Further audit codes that bring every category to +/-5 points; None if none would."""
        needed = [r.codes_for_useful for r in self.rates.values()]
        if any(n is None for n in needed):
            return None
        return max(0, max(n for n in needed if n is not None) - self.codes)


class CorrectedPair(BaseModel):
    a: str
    b: str
    differences: dict[str, CorrectedDifference]  # b minus a


class Corrected(BaseModel):
    codes: int
    targets: list[CorrectedTarget]
    pairs: list[CorrectedPair]

    def sentences(self) -> list[str]:
        if not self.codes:
            return [
                "These rates are the judges' codes, uncorrected for judge error: people have coded no "
                "random audit sample of the groups the judges decided. `medeval review export --sample 60` "
                "and `medeval review import` give the corrected rates (docs/statistics.md)."
            ]
        out = [
            f"Corrected for judge error by prediction-powered inference on {self.codes} people's "
            f"code{'s' if self.codes != 1 else ''} of a random audit sample of the groups the judges "
            "decided (stratified by target and question group); the 95% intervals carry the sampling of "
            "groups and of the audit. Judges: the judges' own rate over the same groups, uncorrected. "
            "Valid only if the audit sample was drawn at random (docs/statistics.md)."
        ]
        for target in self.targets:
            if target.useful:
                continue
            if target.codes < 2:
                out.append(
                    f"{target.target}: {target.codes} audit code(s), too few for a corrected interval; "
                    "its rates above are uncorrected."
                )
                continue
            widest = max((r.half_width or 0.0) for r in target.rates.values())
            more = target.more_codes()
            goal = f"±{100 * USEFUL_HALF_WIDTH:.0f} points"
            what = f"{target.target}: corrected intervals up to ±{100 * widest:.1f} points"
            what += f" on {target.codes} codes"
            if more is None:
                what += f"; coding every decided group would not bring them to {goal}: more trials are needed"
            else:
                what += f"; about {more} more codes would bring every category to {goal}"
            out.append(what + ".")
        return out


def corrected(corpus: Corpus, headline: Headline) -> Corrected:
    """Corrected rates over the headline's study groups, per target."""
    groups = headline.study.groups
    scenarios = sorted(study_scenarios(corpus))
    # Mixed seasons: each headline row is one target's season, and so is its correction.
    season = "ss.season" if headline.seasons else "NULL"
    rows = corpus.query(
        f"SELECT target, {season}, judge_category, ship_category, decided_by FROM trial_groups tg "
        f"{season_join('tg')} WHERE scored AND tg.scenario_id IN (SELECT unnest(?::VARCHAR[])) "
        "AND question_group IN (SELECT unnest(?::VARCHAR[]))",
        [scenarios, groups],
    )
    by_target: dict[tuple[str, int | None], list[tuple[str, str, str]]] = {}
    for target, year, judged, final, decided_by in rows:
        key = (str(target), None if year is None else int(year))
        by_target.setdefault(key, []).append((str(judged), str(final), str(decided_by)))
    combined = next(c for c in headline.study.counselors if c.mode == "combined")
    targets = []
    for row in headline.study.targets:
        groups_of = by_target.get((row.target, row.season), [])
        # The population the audit samples: the groups the judges put in one of the four categories.
        decided = [(j, f, d) for j, f, d in groups_of if j in STUDY_CATEGORIES]
        audit = [(j, f) for j, f, d in decided if d in PEOPLE]
        # Groups whose category is not the judges' guess, counted as they stand (as in the headline's n).
        known = [f for j, f, _ in groups_of if j not in STUDY_CATEGORIES and f in SHIP_CATEGORIES]
        rates = {
            c: corrected_rate(
                [j == c for j, _, _ in decided], [(j == c, f == c) for j, f in audit], [f == c for f in known]
            )
            for c in HEADLINE_CATEGORIES
        }
        targets.append(
            CorrectedTarget(
                target=row.name,
                n=len(decided) + len(known),
                decided=len(decided),
                codes=len(audit),
                rates=rates,
                vs_counselors={
                    c: difference_from_published(rates[c], combined.counts[c], combined.n)
                    for c in HEADLINE_CATEGORIES
                },
            )
        )
    pairs = [
        CorrectedPair(
            a=a.target,
            b=b.target,
            differences={c: corrected_difference(a.rates[c], b.rates[c]) for c in PAIR_CATEGORIES},
        )
        for a, b in list(combinations(targets, 2))[:MAX_PAIRS]
    ]
    return Corrected(codes=sum(t.codes for t in targets), targets=targets, pairs=pairs)


def csv_rows(result: Corrected) -> list[dict[str, object]]:
    """corrected.csv: one row per target and category."""
    out: list[dict[str, object]] = []
    for target in result.targets:
        for category in HEADLINE_CATEGORIES:
            rate = target.rates[category]
            delta = target.vs_counselors[category]
            out.append(
                {
                    "target": target.target,
                    "category": SHORT_LABELS[category],
                    "n": rate.n,
                    "judge_decided": rate.decided,
                    "audit_codes": rate.codes,
                    "judge_rate": _round(rate.judge),
                    "corrected_rate": _round(rate.estimate),
                    "corrected_low": _round(rate.low),
                    "corrected_high": _round(rate.high),
                    "codes_for_5pp": "" if rate.codes_for_useful is None else rate.codes_for_useful,
                    "minus_counselors_combined": _round(delta.difference),
                    "minus_counselors_low": _round(delta.low),
                    "minus_counselors_high": _round(delta.high),
                }
            )
    return out


def _round(value: float | None) -> object:
    return "" if value is None else round(value, 4)
