"""Judge validity: how well the judges' group categories agree with people's codes.

Pure functions over (human, judges) pairs of categories. The same figures appear in `medeval
calibrate` and in a run report's "Judge validity" section, so a judge panel is described the same
way wherever it is measured. docs/methodology.md says what each figure means.

- Agreement and Cohen's kappa are computed on the groups the judges *decided* (one of the study's
  four categories). A group the judges sent to review is not a disagreement: it counts in the review
  rate. A group the judges could not judge counts as not scored.
- Kappa's 95% interval is the asymptotic one of Fleiss, Cohen and Everitt (1969), via statsmodels.
- Gwet's AC1 and PABAK beside kappa (calibration/chance.py): they do not collapse when one
  category dominates, as kappa does.
- Per category, Incorrect first, each with a Wilson interval: the judges' sensitivity (recall of
  the people's category), specificity (of the groups people put elsewhere, the share the judges
  put elsewhere too) and precision.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import combinations

import numpy as np
from pydantic import BaseModel
from statsmodels.stats.inter_rater import cohens_kappa

from medeval.calibration.chance import gwet_ac1, pabak
from medeval.calibration.measures import Interval, Kappa, wilson
from medeval.review.categories import STUDY_CATEGORIES

#: Judge outcomes that are not one of the study's categories: shown as their own matrix columns.
UNDECIDED = ("needs_review", "not_scored")
JUDGE_COLUMNS = (*STUDY_CATEGORIES, *UNDECIDED)


class Pair(BaseModel):
    """One group coded by a person (`human`, one of the four) and by the judges (`judges`, any
    group category: one of the four, needs_review or not_scored)."""

    item_id: str
    human: str
    judges: str


class CategoryScore(BaseModel):
    category: str
    human: int  # groups people put in this category (among the judge-decided ones)
    judges: int  # groups the judges put in it
    precision: Interval
    recall: Interval  # the judges' sensitivity for this category
    #: Of the groups people put in another category, the share the judges did too.
    specificity: Interval | None = None


class Validity(BaseModel):
    pairs: int
    decided: int
    needs_review: int
    not_scored: int
    agreement: Interval
    kappa: Kappa
    ac1: Kappa | None = None
    pabak: Kappa | None = None
    per_category: list[CategoryScore]
    #: matrix[human][judges] = count; rows the four categories, columns the four plus undecided.
    matrix: dict[str, dict[str, int]]
    #: People's Incorrect the judges sent to review rather than deciding.
    incorrect_to_review: int
    #: People's Incorrect the judges called Incorrect or sent to review (a person then sees it), over
    #: all the people's Incorrect: the share that does not pass as a decided right answer.
    incorrect_caught: Interval

    @property
    def review_rate(self) -> float | None:
        return self.needs_review / self.pairs if self.pairs else None

    def category(self, name: str) -> CategoryScore:
        return next(c for c in self.per_category if c.category == name)

    def one_line(self) -> str:
        """The figures a reader needs first, in one line (the demo prints it)."""
        incorrect = self.category("incorrect").recall
        return (
            f"agreement {_pct(self.agreement.estimate)} on {self.decided} decided of {self.pairs}; "
            f"kappa {self.kappa.fmt()}; AC1 {_short(self.ac1)}; PABAK {_short(self.pabak)}; "
            f"Incorrect recall {_pct(incorrect.estimate)} of {incorrect.n} "
            f"decided ({_pct(self.incorrect_caught.estimate)} caught counting review); "
            f"review rate {_pct(self.review_rate)}; not scored {self.not_scored}"
        )


def _short(value: Kappa | None) -> str:
    return "n/a" if value is None or value.estimate is None else f"{value.estimate:.2f}"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def cohen_kappa(pairs: Sequence[tuple[str, str]], categories: Sequence[str] = STUDY_CATEGORIES) -> Kappa:
    """Cohen's kappa of two raters over nominal categories, with its asymptotic 95% interval."""
    n = len(pairs)
    if n == 0:
        return Kappa(estimate=None, low=None, high=None, n=0, note="no groups to compare")
    index = {c: i for i, c in enumerate(categories)}
    table = np.zeros((len(categories), len(categories)))
    for a, b in pairs:
        table[index[a], index[b]] += 1
    used = sorted({index[a] for a, _ in pairs} | {index[b] for _, b in pairs})
    if len(used) < 2:
        # Expected agreement is 1: kappa is 0/0, undefined rather than perfect.
        return Kappa(estimate=None, low=None, high=None, n=n, note="one category only")
    table = table[np.ix_(used, used)]
    with np.errstate(divide="ignore", invalid="ignore"):
        result = cohens_kappa(table)
    estimate = float(result.kappa)
    if math.isnan(estimate):
        return Kappa(estimate=None, low=None, high=None, n=n, note="undefined")
    low, high = float(result.kappa_low), float(result.kappa_upp)
    if math.isnan(low) or math.isnan(high) or n < 2:
        return Kappa(estimate=estimate, low=None, high=None, n=n)
    return Kappa(estimate=estimate, low=max(-1.0, low), high=min(1.0, high), n=n)


def validity(pairs: Sequence[Pair]) -> Validity:
    matrix: dict[str, dict[str, int]] = {h: dict.fromkeys(JUDGE_COLUMNS, 0) for h in STUDY_CATEGORIES}
    for pair in pairs:
        matrix[pair.human][pair.judges if pair.judges in JUDGE_COLUMNS else "not_scored"] += 1
    decided = [(p.human, p.judges) for p in pairs if p.judges in STUDY_CATEGORIES]
    agree = sum(h == j for h, j in decided)
    human_counts = Counter(h for h, _ in decided)
    judge_counts = Counter(j for _, j in decided)
    scores = [
        CategoryScore(
            category=c,
            human=human_counts[c],
            judges=judge_counts[c],
            precision=wilson(matrix[c][c], judge_counts[c]),
            recall=wilson(matrix[c][c], human_counts[c]),
            specificity=wilson(
                len(decided) - human_counts[c] - judge_counts[c] + matrix[c][c],
                len(decided) - human_counts[c],
            ),
        )
        for c in STUDY_CATEGORIES
    ]
    return Validity(
        pairs=len(pairs),
        decided=len(decided),
        needs_review=sum(p.judges == "needs_review" for p in pairs),
        not_scored=sum(p.judges not in STUDY_CATEGORIES and p.judges != "needs_review" for p in pairs),
        agreement=wilson(agree, len(decided)),
        kappa=cohen_kappa(decided),
        ac1=gwet_ac1(table(decided)),
        pabak=pabak(table(decided)),
        per_category=scores,
        matrix=matrix,
        incorrect_to_review=matrix["incorrect"]["needs_review"],
        incorrect_caught=wilson(
            matrix["incorrect"]["incorrect"] + matrix["incorrect"]["needs_review"],
            sum(matrix["incorrect"].values()),
        ),
    )


def table(pairs: Sequence[tuple[str, str]], categories: Sequence[str] = STUDY_CATEGORIES) -> np.ndarray:
    """The q x q counts of (first, second) over every category either could use."""
    index = {c: i for i, c in enumerate(categories)}
    out = np.zeros((len(categories), len(categories)))
    for a, b in pairs:
        out[index[a], index[b]] += 1
    return out


class CoderAgreement(BaseModel):
    coder_a: str
    coder_b: str
    items: int
    agreement: Interval
    kappa: Kappa
    ac1: Kappa | None = None
    pabak: Kappa | None = None


def inter_coder(codes: Mapping[str, Mapping[str, str]]) -> list[CoderAgreement]:
    """Cohen's kappa for every pair of coders over the items both coded; `codes[item][coder]`."""
    coders = sorted({c for by_coder in codes.values() for c in by_coder})
    out = []
    for a, b in combinations(coders, 2):
        shared = [(by[a], by[b]) for by in codes.values() if a in by and b in by]
        if shared:
            out.append(
                CoderAgreement(
                    coder_a=a,
                    coder_b=b,
                    items=len(shared),
                    agreement=wilson(sum(x == y for x, y in shared), len(shared)),
                    kappa=cohen_kappa(shared),
                    ac1=gwet_ac1(table(shared)),
                    pabak=pabak(table(shared)),
                )
            )
    return out
