"""The headline's rates corrected for judge error, as Markdown lines (report.html renders the same
objects from templates/_corrected.html.j2)."""

from __future__ import annotations

from medeval.records.safe_output import md_text
from medeval.reporting.stats.ppi import CorrectedDifference, CorrectedRate
from medeval.reporting.tables.corrected import PAIR_CATEGORIES, Corrected
from medeval.reporting.tables.headline import HEADLINE_CATEGORIES, SHORT_LABELS

CORRECTED_CSV = "corrected.csv"


def judge_cell(rate: CorrectedRate) -> str:
    return "n/a" if rate.judge is None else f"{100 * rate.judge:.1f}%"


def corrected_cell(rate: CorrectedRate) -> str:
    if rate.estimate is None:
        return "not corrected"
    if rate.low is None or rate.high is None:
        return f"{100 * rate.estimate:.1f}%"
    return f"{100 * rate.estimate:.1f}% ({100 * rate.low:.1f}–{100 * rate.high:.1f})"


def difference_cell(d: CorrectedDifference) -> str:
    if d.difference is None or d.low is None or d.high is None:
        return "n/a"
    return f"{100 * d.difference:+.1f} pp ({100 * d.low:+.1f} to {100 * d.high:+.1f})"


class _Cells:
    """The cell formatters, handed to the HTML template so both documents print the same text."""

    judge = staticmethod(judge_cell)
    corrected = staticmethod(corrected_cell)
    difference = staticmethod(difference_cell)


CELLS = _Cells()


def corrected_markdown(result: Corrected) -> list[str]:
    lines = ["### Corrected for judge error", ""]
    if result.codes:
        header = ["Target", "n", "Audit codes"]
        for c in HEADLINE_CATEGORIES:
            header += [f"{SHORT_LABELS[c]}, judges", f"{SHORT_LABELS[c]}, corrected"]
        header.append("Δ A&C vs counselors, corrected")
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for t in result.targets:
            cells = [t.target, str(t.n), str(t.codes)]
            for c in HEADLINE_CATEGORIES:
                cells += [judge_cell(t.rates[c]), corrected_cell(t.rates[c])]
            cells.append(difference_cell(t.vs_counselors["accurate_complete"]))
            lines.append("| " + " | ".join(md_text(x) for x in cells) + " |")
        lines.append("")
        if result.pairs:
            head = ["B − A", *(f"Δ {SHORT_LABELS[c]}, corrected" for c in PAIR_CATEGORIES)]
            lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            for pair in result.pairs:
                cells = [
                    f"{pair.b} − {pair.a}",
                    *(difference_cell(pair.differences[c]) for c in PAIR_CATEGORIES),
                ]
                lines.append("| " + " | ".join(md_text(x) for x in cells) + " |")
            lines.append("")
    for sentence in result.sentences():
        lines += [sentence, ""]
    if result.codes:
        lines += [f"Every figure, with the codes each category needs for ±5 points: `{CORRECTED_CSV}`.", ""]
    return lines
