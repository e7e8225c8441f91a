"""Judge-validity figures as text: the one line, the headline sentences and the tables that both
`medeval calibrate` and a run report's "Judge validity" section show."""

from __future__ import annotations

from collections.abc import Sequence

from medeval.calibration.measures import Interval, Kappa
from medeval.calibration.validity import JUDGE_COLUMNS, CoderAgreement, Validity
from medeval.records.safe_output import md_text
from medeval.review.categories import CATEGORY_SHORT, STUDY_CATEGORIES

MATRIX_HEADER = ("Person \\ Judges", *(CATEGORY_SHORT[j] for j in JUDGE_COLUMNS), "Total")
CATEGORY_HEADER = (
    "Category",
    "People",
    "Judges",
    "Sensitivity (recall, 95% CI)",
    "Specificity (95% CI)",
    "Precision (95% CI)",
)
CODER_HEADER = ("Coders", "Groups", "Agreement (95% CI)", "Cohen's kappa", "Gwet's AC1", "PABAK")


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def rate(interval: Interval) -> str:
    if interval.estimate is None:
        return "n/a"
    if interval.low is None or interval.high is None:
        return pct(interval.estimate)
    return f"{pct(interval.estimate)} ({pct(interval.low)}–{pct(interval.high)}, n={interval.n})"


def coefficient(value: Kappa | None) -> str:
    return "n/a" if value is None else value.fmt()


def coder_rows(coders: Sequence[CoderAgreement]) -> list[list[str]]:
    return [
        [
            f"{c.coder_a} / {c.coder_b}",
            str(c.items),
            rate(c.agreement),
            c.kappa.fmt(),
            coefficient(c.ac1),
            coefficient(c.pabak),
        ]
        for c in coders
    ]


def headline(v: Validity) -> list[str]:
    incorrect = v.category("incorrect")
    return [
        f"On {v.pairs} group(s) coded by both a person and the judges: the judges decided {v.decided}, "
        f"sent {v.needs_review} to review ({pct(v.review_rate)}) and could not score {v.not_scored}.",
        f"Agreement on the decided groups: {rate(v.agreement)}; Cohen's kappa {v.kappa.fmt()}; "
        f"Gwet's AC1 {coefficient(v.ac1)}; PABAK {coefficient(v.pabak)} (AC1 and PABAK hold up when one "
        "category dominates, where kappa falls).",
        f"Incorrect recall (people's Incorrect the judges also called Incorrect, among those they "
        f"decided): {rate(incorrect.recall)}; {v.incorrect_to_review} more of the people's Incorrect went "
        f"to review, so {rate(v.incorrect_caught)} were caught (called Incorrect or sent to a person).",
    ]


def matrix_rows(v: Validity) -> list[list[str]]:
    return [
        [CATEGORY_SHORT[h], *(str(v.matrix[h][j]) for j in JUDGE_COLUMNS), str(sum(v.matrix[h].values()))]
        for h in STUDY_CATEGORIES
    ]


def category_rows(v: Validity) -> list[list[str]]:
    return [
        [
            CATEGORY_SHORT[c.category],
            str(c.human),
            str(c.judges),
            rate(c.recall),
            rate(c.specificity) if c.specificity else "n/a",
            rate(c.precision),
        ]
        for c in v.per_category
    ]


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(md_text(c) for c in row) + " |" for row in rows]
    return [*out, ""]


def validity_markdown(v: Validity) -> list[str]:
    lines = [f"- {text}" for text in headline(v)]
    lines += ["", "Confusion matrix (rows: people; columns: the judges):", ""]
    lines += md_table(MATRIX_HEADER, matrix_rows(v))
    lines += ["Per category, Incorrect first (on the groups the judges decided):", ""]
    lines += md_table(CATEGORY_HEADER, category_rows(v))
    return lines
