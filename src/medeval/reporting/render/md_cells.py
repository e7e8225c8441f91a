"""Markdown table cells and number formats for report.md: one place decides how a value, a rate and an
interval print, so every section of the report writes them alike. A text cell is escaped
(records.safe_output.md_text), since most come from outside the tool (model names, answers, errors,
scenario text); Markdown the report writes itself is marked `Md` and passes through."""

from __future__ import annotations

from collections.abc import Sequence

from medeval.records.safe_output import md_text
from medeval.reporting.stats.intervals import Interval
from medeval.reporting.tables.findings import LIST_CAP


class Md(str):
    """Markdown the report wrote itself (a code span around a hash): a cell keeps it as it is."""


def cell(text: object) -> str:
    if isinstance(text, Md):
        return text.replace("|", "\\|").replace("\n", " ")
    if isinstance(text, int | float):
        return str(text)
    return md_text(text)


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(cell(c) for c in row) + " |" for row in rows)
    return [*lines, ""]


def capped(header: Sequence[str], rows: Sequence[Sequence[object]], total: int, csv_name: str) -> list[str]:
    """A table of at most LIST_CAP rows; past it, how many were left out and the CSV with all of them."""
    lines = table(header, rows[:LIST_CAP])
    shown = min(len(rows), LIST_CAP)
    if total > shown:
        lines += [
            f"Showing the first {shown:,} of {total:,}: {total - shown:,} more are left out here. "
            f"All {total:,} are in `{csv_name}`.",
            "",
        ]
    return lines


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def ci(interval: Interval, percent: bool = False) -> str:
    if interval.low is None or interval.high is None:
        return "n/a"
    low, high = (100 * interval.low, 100 * interval.high) if percent else (interval.low, interval.high)
    digits, unit = (1, "%") if percent else (2, "")
    # "to" rather than a dash keeps negative bounds readable.
    joiner = " to " if low < 0 or high < 0 else "–"
    return f"{low:.{digits}f}{joiner}{high:.{digits}f}{unit}"


def with_ci(interval: Interval, percent: bool = False) -> str:
    """Estimate and interval; the estimate alone when no interval exists (one unit to resample)."""
    estimate = pct(interval.estimate) if percent else num(interval.estimate)
    if interval.estimate is None or interval.low is None:
        return estimate
    return f"{estimate} ({ci(interval, percent)})"


def short(digest: str, length: int = 12) -> str:
    return digest[:length] if digest else "-"
