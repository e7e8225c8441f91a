"""`medeval review export`: the coding page (one self-contained HTML file) and the same rows as CSV.

The page opens offline (inline CSS and script, no external URL). Every text from a model is
escaped by Jinja's autoescape and shown as text, never as markup. The items travel inside the page
as JSON in a non-executed script element, with `<` escaped, so an answer containing `</script>`
cannot end it. The coder's choices are kept in the browser's local storage (a reload loses
nothing) and leave the page only through the "Download codes" button, as a JSON file that
`medeval review import` reads.
"""

from __future__ import annotations

import csv
import json
import secrets
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from pydantic import BaseModel

from medeval.errors import UserError
from medeval.records.safe_output import csv_row
from medeval.records.storage import utc_now
from medeval.review.categories import CATEGORY_LABELS, ITEM_CODES, STUDY_CATEGORIES
from medeval.review.items import KeyFact, ReviewItem, build_items, load_run
from medeval.review.sample import select

CODES_FORMAT = "medeval-review-codes/1"
CSV_COLUMNS = (
    "item_id",
    "item_hash",
    "run_id",
    "trial_id",
    "scenario_id",
    "target",
    "question_group",
    "selection",
    "judge_category",
    "question",
    "answer",
    "checklist",
    "judge_item_codes",
    "claims",
    "category",
    "item_codes",
    "note",
    # Which export the sheet is, and whether it was blind: the import records both, as it does from
    # the coding page's file.
    "export_id",
    "blind",
)


class Export(BaseModel):
    export_id: str
    run_id: str
    created_at: str
    blind: bool
    seed: int
    sample: str
    items: list[ReviewItem]

    def counts(self) -> tuple[int, int]:
        audit = sum(i.selection == "audit" for i in self.items) if not self.blind else 0
        return len(self.items) - audit, audit


class ExportPaths(BaseModel):
    html: Path
    csv: Path


def make_export(run_dir: Path, sample: float | int, seed: int, *, blind: bool) -> Export:
    run = load_run(run_dir)
    if not run.records:
        raise UserError(f"{run_dir}: the run has no readable trials yet; nothing to review")
    items = build_items(run)
    if not items:
        raise UserError(
            f"{run_dir}: no scored question group can be shown (are the run's scenario files still "
            "where its manifest says?)"
        )
    chosen = select(items, sample, seed)
    if not chosen:
        raise UserError(
            f"{run_dir}: nothing to code: the judges decided every group and no audit sample was asked "
            "for; pass --sample 0.2 (a fraction) or --sample 30 (a number of groups)"
        )
    if blind:
        # Blind: no judge code, and an order that does not give away which groups the judges
        # could not decide.
        chosen = sorted((i.blinded() for i in chosen), key=lambda i: i.item_id)
    # A nonce: each export is its own coding session, and the codes come back with its id, so two
    # coder names on one export are seen to be one session (review/precedence.py).
    export_id = secrets.token_hex(8)
    return Export(
        export_id=export_id,
        run_id=run.run_id,
        created_at=utc_now(),
        blind=blind,
        seed=seed,
        sample=str(sample),
        items=chosen,
    )


def _script_json(value: object) -> Markup:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    # Inside <script>, only "</" (and "<!--") can end or confuse the element: escape every "<".
    return Markup(text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def render_html(export: Export) -> str:
    env = Environment(
        loader=PackageLoader("medeval", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    template = env.get_template("review.html.j2")
    meta = {
        "format": CODES_FORMAT,
        "export_id": export.export_id,
        "run_id": export.run_id,
        "blind": export.blind,
        "items": [{"item_id": i.item_id, "item_hash": i.item_hash} for i in export.items],
    }
    return template.render(
        export=export,
        categories=[(c, CATEGORY_LABELS[c]) for c in STUDY_CATEGORIES],
        item_codes=ITEM_CODES,
        labels=CATEGORY_LABELS,
        meta=_script_json(meta),
    )


def _checklist_line(fact: KeyFact) -> str:
    notes = ("optional" if fact.optional else "", "" if fact.checklist else "partial credit only")
    flag = "".join(f" ({n})" for n in notes if n)
    wording = f"study: {fact.study_wording}; " if fact.study_wording else ""
    return f"{fact.fact_id}{flag}: {wording}key: {fact.statement} (source: {fact.source})"


def csv_rows(export: Export) -> list[dict[str, str]]:
    rows = []
    for item in export.items:
        rows.append(
            {
                "item_id": item.item_id,
                "item_hash": item.item_hash,
                "run_id": item.run_id,
                "trial_id": item.trial_id,
                "scenario_id": item.scenario_id,
                "target": item.target,
                "question_group": item.question_group,
                "selection": item.selection,
                "judge_category": item.judge_category,
                "question": "\n\n".join(e.question for e in item.exchanges),
                "answer": "\n\n".join(e.answer for e in item.exchanges),
                "checklist": "\n".join(_checklist_line(f) for f in item.facts),
                "judge_item_codes": "; ".join(
                    f"{f.fact_id}={f.judge_code}" for f in item.facts if f.judge_code is not None
                ),
                "claims": "\n".join(f"{c.label + ': ' if c.label else ''}{c.text}" for c in item.claims),
                "category": "",
                "item_codes": "",
                "note": "",
                "export_id": export.export_id,
                "blind": "true" if export.blind else "false",
            }
        )
    return rows


def write_export(export: Export, out: Path) -> ExportPaths:
    """`out` is the HTML path; the CSV goes beside it with the same stem."""
    html = out if out.suffix.lower() in (".html", ".htm") else out / f"review-{export.export_id}.html"
    paths = ExportPaths(html=html, csv=html.with_suffix(".csv"))
    try:
        html.parent.mkdir(parents=True, exist_ok=True)
        html.write_text(render_html(export), encoding="utf-8")
        with paths.csv.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            writer.writerows(csv_row(row) for row in csv_rows(export))
    except OSError as error:
        raise UserError(f"{html.parent}: cannot write the export ({error.strerror}); pass --out") from None
    return paths
