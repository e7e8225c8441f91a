"""Paper-ready tables: the headline and the per-group table as CSV and as LaTeX (booktabs), each
with the footnotes that say what its numbers are, so a researcher pastes them in unchanged.

headline.csv / headline.tex: the study block of the headline (reporting/tables/headline.py), with
the corrected A&C rate beside the judges' when people coded an audit sample. groups.csv /
groups.tex: every study question group, each target beside the counselors. In the CSV files the
footnotes follow the rows as lines starting with "#" (read them with `comment="#"` in pandas or
`#` as R's comment.char); in LaTeX they sit under the table in a footnote-size paragraph.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from medeval.records.safe_output import csv_values
from medeval.reporting.stats.intervals import Difference, Interval
from medeval.reporting.stats.ppi import CorrectedDifference
from medeval.reporting.tables.corrected import Corrected
from medeval.reporting.tables.headline import HEADLINE_CATEGORIES, SHORT_LABELS, Headline
from medeval.reporting.tables.run_tables import POOLED, POOLED_OTHER, ShipRow

HEADLINE_TEX, HEADLINE_CSV = "headline.tex", "headline.csv"
GROUPS_TEX, GROUPS_CSV = "groups.tex", "groups.csv"

_TEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "−": "--",
    "–": "--",
    "±": r"$\pm$",
    "Δ": r"$\Delta$",
}


def tex(text: str) -> str:
    """Text safe inside a LaTeX table cell (a target's name may hold _ or &)."""
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in text)


#: A cell: text, or a figure with its interval in percent (estimate, low, high; None where absent),
#: which the LaTeX shows as "41.2 (35.0–47.6)" and the CSV as three numeric columns.
Figure = tuple[float | None, float | None, float | None]
Cell = str | Figure


def _pct(value: float | None) -> float | None:
    return None if value is None else round(100 * value, 1)


def _rate(interval: Interval) -> Figure:
    return (_pct(interval.estimate), _pct(interval.low), _pct(interval.high))


def _delta(d: Difference | CorrectedDifference) -> Figure:
    return (_pct(d.difference), _pct(d.low), _pct(d.high))


def _shown(cell: Cell, signed: bool) -> str:
    if isinstance(cell, str):
        return cell
    estimate, low, high = cell
    if estimate is None:
        return "n/a"
    fmt = "{:+.1f}" if signed else "{:.1f}"
    if low is None or high is None:
        return fmt.format(estimate)
    joiner = " to " if signed else "–"
    return f"{fmt.format(estimate)} ({fmt.format(low)}{joiner}{fmt.format(high)})"


Table = tuple[list[str], list[list[Cell]], list[str]]


def headline_table(headline: Headline, corrected: Corrected | None) -> Table:
    """Header, rows and footnotes of the paper's headline table."""
    block = headline.study
    with_corrected = corrected is not None and corrected.codes > 0
    header = ["Responder", "n", *(f"{SHORT_LABELS[c]}, %" for c in HEADLINE_CATEGORIES)]
    header.append("A&C minus counselors, pp")
    if with_corrected:
        header.append("A&C corrected for judge error, %")
    by_target = {t.target: t for t in corrected.targets} if corrected is not None else {}
    rows: list[list[Cell]] = []
    for t in block.targets:
        row: list[Cell] = [
            t.name,
            str(t.n),
            *(_rate(t.rates[c]) for c in HEADLINE_CATEGORIES),
            _delta(t.delta_ac["combined"]),
        ]
        if with_corrected:
            fixed = by_target.get(t.name)
            rate = fixed.rates["accurate_complete"] if fixed else None
            row.append((_pct(rate.estimate), _pct(rate.low), _pct(rate.high)) if rate else "n/a")
        rows.append(row)
    for human in block.counselors:
        row = [human.label, str(human.n), *(_rate(human.rates[c]) for c in HEADLINE_CATEGORIES), ""]
        if with_corrected:
            row.append("")
        rows.append(row)
    notes = [
        f"Rates over the {len(block.groups)} question groups of the SHIP study's two scripts that were "
        f"scored ({', '.join(block.groups)}); n counts the groups answered in the four categories and "
        "incomplete data; groups the judges could not settle are left out.",
        "Percentages with Wilson 95% intervals; the difference from the counselors (combined phone and "
        "face to face, Dugan et al., JAMA Netw Open 2025;8(4):e252834) in percentage points with "
        "Newcombe's hybrid score 95% interval. Answers are treated as independent, so the intervals "
        "are a lower bound on the uncertainty.",
        f"Categories decided by the judges ({', '.join(headline.judges) or 'none recorded'}); "
        f"{headline.decided_by_people} group decision(s) by people.",
    ]
    if corrected is not None:
        notes.extend(corrected.sentences()[:1])
    return header, rows, notes


def group_table(rows: Sequence[ShipRow]) -> Table:
    """Header, rows and footnotes of the per-group table (study groups, then the pooled rows)."""
    header = ["Question group", "Responder", "n", *(f"{SHORT_LABELS[c]}, %" for c in HEADLINE_CATEGORIES)]
    body: list[list[Cell]] = []
    for row in rows:
        if row.question_group == POOLED_OTHER:
            continue
        shares = [row.pct(c) for c in HEADLINE_CATEGORIES]
        cells: list[Cell] = [_rate(row.ac)]
        cells += ["n/a" if x is None else f"{100 * x:.1f}" for x in shares[1:]]
        group = "All study groups" if row.question_group == POOLED else row.question_group
        body.append([group, row.target, str(row.n), *cells])
    notes = [
        "AI rows: each target over every answer to the group; counselor rows: the SHIP study's published "
        "counts (Dugan et al., JAMA Netw Open 2025;8(4):e252834, eTables 2 and 3).",
        "A&C with its Wilson 95% interval; n counts the four categories and incomplete data. Groups the "
        "judges could not settle are left out of n.",
    ]
    return header, body, notes


def to_csv(header: Sequence[str], rows: Sequence[Sequence[Cell]], notes: Sequence[str]) -> str:
    """Each figure column as three numeric columns (value, low, high); text cells neutralised."""
    figures = [any(isinstance(row[i], tuple) for row in rows) for i in range(len(header))]
    columns: list[str] = []
    for name, figure in zip(header, figures, strict=True):
        columns += [name, f"{name} 95% CI low", f"{name} 95% CI high"] if figure else [name]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        out: list[object] = []
        for cell, figure in zip(row, figures, strict=True):
            if figure:
                values = cell if isinstance(cell, tuple) else (None, None, None)
                out += ["" if v is None else v for v in values]
            else:
                out.append(cell)
        writer.writerow(csv_values(out))
    return buffer.getvalue() + "".join(f"# {note}\n" for note in notes)


def to_latex(
    caption: str, header: Sequence[str], rows: Sequence[Sequence[Cell]], notes: Sequence[str]
) -> str:
    signed = ["minus" in h for h in header]
    spec = "l" * min(2, len(header)) + "r" * max(0, len(header) - 2)
    lines = [
        "% Written by medeval report; needs \\usepackage{booktabs}.",
        "\\begin{table}[htbp]",
        "\\centering",
        "\\small",
        f"\\caption{{{tex(caption)}}}",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(tex(h) for h in header) + " \\\\",
        "\\midrule",
        *(
            " & ".join(tex(_shown(c, sign)) for c, sign in zip(row, signed, strict=True)) + " \\\\"
            for row in rows
        ),
        "\\bottomrule",
        "\\end{tabular}",
        "\\par\\smallskip",
        "\\begin{minipage}{\\linewidth}\\footnotesize",
        *(f"{tex(note)}\\par" for note in notes),
        "\\end{minipage}",
        "\\end{table}",
    ]
    return "\n".join(lines) + "\n"


def write_paper_tables(
    directory: Path, headline: Headline | None, corrected: Corrected | None, groups: Sequence[ShipRow]
) -> list[Path]:
    """headline.csv/.tex (when the run answered any study group) and groups.csv/.tex."""
    written = []
    if headline is not None and headline.study.targets:
        header, rows, notes = headline_table(headline, corrected)
        caption = "Accuracy and completeness of the AI targets beside the SHIP counselors"
        written += _write(directory, HEADLINE_CSV, HEADLINE_TEX, caption, header, rows, notes)
    header, rows, notes = group_table(groups)
    caption = "Per question group: the AI targets beside the SHIP counselors"
    written += _write(directory, GROUPS_CSV, GROUPS_TEX, caption, header, rows, notes)
    return written


def _write(
    directory: Path,
    csv_name: str,
    tex_name: str,
    caption: str,
    header: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    notes: Sequence[str],
) -> list[Path]:
    csv_path, tex_path = directory / csv_name, directory / tex_name
    csv_path.write_text(to_csv(header, rows, notes), encoding="utf-8")
    tex_path.write_text(to_latex(caption, header, rows, notes), encoding="utf-8")
    return [csv_path, tex_path]
