"""The report's "Human coding and judge validity" section, as Markdown lines and as an HTML fragment,
both from the same `HumanReview` (so report.md and report.html say the same)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from markupsafe import Markup, escape

from medeval.calibration.render import (
    CATEGORY_HEADER,
    CODER_HEADER,
    MATRIX_HEADER,
    category_rows,
    coder_rows,
    headline,
    matrix_rows,
    md_table,
    rate,
    validity_markdown,
)
from medeval.records.safe_output import md_text
from medeval.reporting.tables.findings import LIST_CAP
from medeval.reporting.tables.people import HumanReview
from medeval.review.categories import CATEGORY_SHORT

HOW_TO = (
    "Export the groups to code with `medeval review export RUN_DIR --sample 0.2 --blind`, code them in "
    "the HTML page (or the CSV), and import each coder's file with `medeval review import RUN_DIR "
    'CODES_FILE --coder NAME`; see docs/methodology.md, "Human coding and judge validity".'
)


def intro(human: HumanReview, name: Callable[[str], str] = str) -> list[str]:
    """The section's opening sentences; `name` escapes coder names for the document's format."""
    if not human.imports:
        return [
            "No person has coded any group of this run yet, so every category in this report is the "
            "judges' and their validity against people is unknown. " + HOW_TO
        ]
    lines = [
        f"{human.decided_by_people} question group(s) were decided by people "
        f"({human.by_consensus} by consensus of two or more coders), from {human.imports} import(s) by "
        f"{len(human.coders)} coder(s) ({', '.join(name(c) for c in human.coders)}); {human.changed} of "
        "them differ from "
        "the judges' category. A group's final category is the people's where they decided it "
        "(precedence: consensus of coders, else the single coder, else the judges), and every table "
        "of this report counts the final category.",
        f"{human.blind_codes} of the people's decisions were made blind (without the judges' codes).",
    ]
    if human.shared_sessions:
        # Several coder names on one export are one coding session (review/precedence.py).
        flags = "; ".join(name(f) for f in human.shared_sessions)
        lines.append(f"Not independent, so counted once and never as consensus: {flags}.")
    if human.splits:
        lines.append(
            f"{len(human.splits)} group(s) split the coders with no majority: the judges' category stands "
            "(a group the judges left for review stays in review) until a further coder breaks the tie."
        )
    return lines


def item_line(human: HumanReview) -> str | None:
    if human.item_agreement is None:
        return None
    return (
        f"Checklist items coded by both a person and the judges: {human.item_pairs}; the codes "
        f"(covered, contradicted, absent) agree on {rate(human.item_agreement)}."
    )


def override_rows(human: HumanReview) -> list[list[str]]:
    return [
        [
            o.item_id,
            o.target,
            o.question_group,
            CATEGORY_SHORT[o.judges],
            CATEGORY_SHORT[o.people],
            o.decided_by,
        ]
        for o in human.overrides
    ]


OVERRIDE_HEADER = ("Item", "Target", "Group", "Judges", "People", "Decided by")
SPLIT_HEADER = ("Item", "Target", "Codes", "Standing category")
#: Every override and split, beside report.md (which shows the first LIST_CAP of each).
OVERRIDES_CSV = "human_overrides.csv"
SPLITS_CSV = "coder_splits.csv"


def capped_md(header: Sequence[str], rows: list[list[str]], csv_name: str) -> list[str]:
    lines = md_table(header, rows[:LIST_CAP])
    if len(rows) > LIST_CAP:
        lines += [
            f"Showing the first {LIST_CAP} of {len(rows):,}: {len(rows) - LIST_CAP:,} more are left out "
            f"here. All {len(rows):,} are in `{csv_name}`.",
            "",
        ]
    return lines


def split_rows(human: HumanReview) -> list[list[str]]:
    return [
        [s.item_id, s.target, ", ".join(f"{k}: {v}" for k, v in s.codes.items()), s.standing]
        for s in human.splits
    ]


def markdown_lines(human: HumanReview) -> list[str]:
    lines = ["## Human coding and judge validity", ""]
    for text in intro(human, md_text):
        lines += [text, ""]
    if human.overrides:
        lines += ["Groups where the people's category replaced the judges':", ""]
        lines += capped_md(OVERRIDE_HEADER, override_rows(human), OVERRIDES_CSV)
    if human.splits:
        lines += ["Groups the coders split on (no majority):", ""]
        lines += capped_md(SPLIT_HEADER, split_rows(human), SPLITS_CSV)
    lines += ["### Judge validity", ""]
    for text in human.judge_bias:
        lines += [md_text(text), ""]
    v = human.validity
    if v is None:
        lines += ["No group has both a person's code and the judges' yet. " + HOW_TO, ""]
        return lines
    lines += validity_markdown(v)
    items = item_line(human)
    if items:
        lines += [items, ""]
    if human.inter_coder:
        lines += ["### Agreement between coders", ""]
        lines += md_table(CODER_HEADER, coder_rows(human.inter_coder))
    return lines


def _html_table(header: Sequence[str], rows: Sequence[Sequence[str]], table_id: str = "") -> str:
    ident = f' id="{escape(table_id)}"' if table_id else ""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table{ident}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_section(human: HumanReview) -> Markup:
    parts = ['<section id="human-coding"><h2>Human coding and judge validity</h2>']
    parts += [f"<p>{escape(text)}</p>" for text in intro(human)]
    if human.overrides:
        parts.append("<p>Groups where the people's category replaced the judges':</p>")
        parts.append(_html_table(OVERRIDE_HEADER, override_rows(human), "human-overrides"))
    if human.splits:
        parts.append("<p>Groups the coders split on (no majority):</p>")
        parts.append(_html_table(SPLIT_HEADER, split_rows(human), "coder-splits"))
    parts.append('<h3 id="judge-validity">Judge validity</h3>')
    parts += [f'<p class="judge-bias">{escape(text)}</p>' for text in human.judge_bias]
    v = human.validity
    if v is None:
        parts.append(f"<p>{escape('No group has both a person’s code and the judges’ yet. ' + HOW_TO)}</p>")
    else:
        parts.append("<ul>" + "".join(f"<li>{escape(t)}</li>" for t in headline(v)) + "</ul>")
        parts.append("<p>Confusion matrix (rows: people; columns: the judges):</p>")
        parts.append(_html_table(MATRIX_HEADER, matrix_rows(v), "validity-matrix"))
        parts.append("<p>Per category, Incorrect first (on the groups the judges decided):</p>")
        parts.append(_html_table(CATEGORY_HEADER, category_rows(v), "validity-categories"))
        items = item_line(human)
        if items:
            parts.append(f"<p>{escape(items)}</p>")
        if human.inter_coder:
            parts.append("<h3>Agreement between coders</h3>")
            parts.append(_html_table(CODER_HEADER, coder_rows(human.inter_coder)))
    parts.append("</section>")
    return Markup("".join(parts))
