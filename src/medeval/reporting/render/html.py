"""report.html: one self-contained page (inline CSS and JS, charts as data: URIs, no external URL).

Transcripts show each claim's quote highlighted by its final verdict; a claim expands to every
verifier's label and the cited facts with their text and source.
"""

from __future__ import annotations

import base64
import json
import re
from collections import Counter, defaultdict
from itertools import pairwise
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup, escape

from medeval.records.redact import redact
from medeval.reporting.loading.baseline import SHIP_CATEGORIES, baseline_citation, group_sort_key
from medeval.reporting.loading.run import Corpus, key_name
from medeval.reporting.render.charts import CATEGORY_COLOURS, CATEGORY_LABELS
from medeval.reporting.render.corrected import CELLS
from medeval.reporting.render.drawer import LABELS, drawer_blocks, drawer_entries, embedded_block, fact_source
from medeval.reporting.render.pairs import PAIRED_NOTE
from medeval.reporting.render.people import html_section
from medeval.reporting.render.provenance import HEADER as PROVENANCE_HEADER
from medeval.reporting.render.provenance import cells as provenance_cells
from medeval.reporting.render.seasons import intro as season_intro
from medeval.reporting.stats.intervals import fmt_p
from medeval.reporting.tables.corrected import PAIR_CATEGORIES
from medeval.reporting.tables.findings import fact_ref
from medeval.reporting.tables.headline import HEADLINE_CATEGORIES, SHORT_LABELS
from medeval.reporting.tables.model import ReportData, ReportPaths
from medeval.reporting.tables.questions import TABLE_CATEGORIES, question_rows
from medeval.reporting.tables.run_tables import POOLED
from medeval.reporting.tables.seasons import label as season_label
from medeval.review.resolution import Final, Resolution
from medeval.schemas import STUDY_CATEGORIES, FinalClaim, ShipCategory, TrialRecord

#: Transcript bodies past this many characters in all are embedded compressed and loaded on demand.
LAZY_OVER = 500_000
#: Transcripts per compressed block of a large page.
BODY_CHUNK = 50
# Worst verdict wins where two claims' quotes overlap.
VERDICT_RANK = {"CONTRADICTED": 3, "PENDING": 2, "NOT_IN_KEY": 1, "SUPPORTED": 0}
_SCHEME = re.compile(r"(?i)\b(https?):(//)")


def safe_text(text: str) -> Markup:
    """Escaped text in which a URL in a model's answer cannot read as a link to an external asset."""
    return Markup(_SCHEME.sub(lambda m: f"{m.group(1)}:\u200b{m.group(2)}", str(escape(text))))


def highlight(text: str, claims: list[tuple[str, str, list[tuple[int, int]]]]) -> Markup:
    """`claims` = (dom id, verdict, spans). Overlaps take the worst verdict and list every claim.

    One sweep over the span boundaries: each claim enters and leaves the open set once per span, so
    the work grows with the text and the spans, not with their product (a 5 MB answer with
    thousands of claims took minutes when every piece scanned every claim). A span outside the text
    marks nothing."""
    cuts = {0, len(text)}
    opening: dict[int, list[int]] = defaultdict(list)
    closing: dict[int, list[int]] = defaultdict(list)
    for index, (_, _, spans) in enumerate(claims):
        for start, end in spans:
            if 0 <= start < end <= len(text):
                cuts.update((start, end))
                opening[start].append(index)
                closing[end].append(index)
    points = sorted(cuts)
    open_spans: Counter[int] = Counter()  # claim index -> its spans covering the current piece
    out: list[str] = []
    for start, end in pairwise(points):
        for index in closing.get(start, ()):
            open_spans[index] -= 1
            if not open_spans[index]:
                del open_spans[index]
        for index in opening.get(start, ()):
            open_spans[index] += 1
        covering = [(claims[i][0], claims[i][1]) for i in sorted(open_spans)]
        piece = str(safe_text(text[start:end]))
        if covering:
            verdict = max((v for _, v in covering), key=lambda v: VERDICT_RANK.get(v, 0))
            ids = " ".join(dom_id for dom_id, _ in covering)
            out.append(
                f'<mark class="v-{verdict.lower()}" data-claims="{ids}" title="{verdict}">{piece}</mark>'
            )
        else:
            out.append(piece)
    return Markup("".join(out))


def verdict_of(final: FinalClaim | None) -> str:
    if final is None or final.label is None:
        return "PENDING"
    return final.label.value


def trial_view(
    corpus: Corpus, record: TrialRecord, index: int, decisions: dict[str, Final] | None = None
) -> dict[str, Any]:
    finals = {fc.claim_id: fc for fc in record.final_claims}
    prefix = f"t{index}"
    claim_views: dict[str, list[dict[str, Any]]] = {}
    for claim in record.claims:
        final = finals.get(claim.claim_id)
        votes = []
        for vote in final.votes if final else []:
            judge = record.judges[vote.judge_index] if vote.judge_index < len(record.judges) else "?"
            votes.append(
                {
                    "judge": f"#{vote.judge_index + 1} {judge}",
                    "label": vote.label.value if vote.label else "abstained",
                    "evidence": ", ".join(vote.evidence),
                }
            )
        facts = list(final.evidence) if final else []
        claim_views.setdefault(claim.turn_id, []).append(
            {
                "dom_id": f"{prefix}-{claim.claim_id}",
                "claim": claim,
                "verdict": verdict_of(final),
                "decided_by": final.decided_by if final else "none",
                "votes": votes,
                "facts": facts,
            }
        )
    turns = []
    offsets = exchange_offsets(record)
    for position, turn in enumerate(record.conversation):
        views = claim_views.get(turn.reply_to or turn.turn_id, []) if turn.role == "assistant" else []
        # A scripted turn's claims quote the text of its whole exchange (trial.answered_text): each
        # answer of the exchange shows the spans that fall in it, shifted to its own text.
        shift = offsets.get(position)
        spans = {
            v["dom_id"]: [
                (span.start - (shift or 0), span.end - (shift or 0)) for span in v["claim"].quote_spans
            ]
            for v in views
        }
        if shift is not None:
            views = [v for v in views if any(0 <= a < b <= len(turn.text) for a, b in spans[v["dom_id"]])]
        body = highlight(turn.text, [(v["dom_id"], v["verdict"], spans[v["dom_id"]]) for v in views])
        turns.append({"turn": turn, "body": body, "claims": views})
    groups = [
        {
            "group": g,
            "missed": list(g.scores.missing_required_points),
            "decided": decisions[g.question_group].label() if decisions else "decided by the judges",
        }
        for g in record.groups
    ]
    return {
        "record": record,
        "dom_id": prefix,
        # The answer key this trial was judged with, as the page's fact glossary names it.
        "key": key_name(record.scenario_id, record.scenario_sha256),
        "turns": turns,
        "groups": groups,
        "group_cats": " ".join(f"{g.question_group}:{g.ship_category.value}" for g in record.groups),
    }


def exchange_offsets(record: TrialRecord) -> dict[int, int]:
    """Where each assistant turn of an exchange with persona replies starts in the text its group
    was coded on (the answers joined by a blank line), by position in the conversation; turns of
    scripted questions the chatbot asked nothing back on are not listed."""
    asked_back = {t.reply_to for t in record.conversation if t.reply_to}
    ends: dict[str, int] = {}
    offsets: dict[int, int] = {}
    for position, turn in enumerate(record.conversation):
        if turn.role != "assistant" or turn.error:
            continue
        if turn.reply_to is None and turn.turn_id in asked_back:
            offsets[position], ends[turn.turn_id] = 0, len(turn.text)
        elif turn.reply_to in ends and turn.text:
            offsets[position] = ends[turn.reply_to] + 2
            ends[turn.reply_to] = offsets[position] + len(turn.text)
    return offsets


def fact_glossary(corpus: Corpus, trials: list[dict[str, Any]]) -> Markup:
    """Every fact the shown transcripts cite or miss, once per page, as JSON for the page script.

    A fact is often cited by hundreds of claims; writing its text once keeps a page of thousands of
    trials small. The script fills a trial's fact lists when the trial is opened (or printed)."""
    glossary: dict[str, dict[str, list[str]]] = {}
    for view in trials:
        scenario_id, sha256 = view["record"].scenario_id, view["record"].scenario_sha256
        ids = {f for t in view["turns"] for c in t["claims"] for f in c["facts"]}
        ids |= {f for g in view["groups"] for f in g["missed"]}
        # By the key the trial was judged with: two seasons' keys share scenario ids.
        known = glossary.setdefault(view["key"], {})
        for fact_id in ids - known.keys():
            text = fact_ref(corpus, scenario_id, fact_id, sha256=sha256).text
            source = fact_source(corpus, scenario_id, fact_id, sha256)
            known[fact_id] = [str(safe_text(text)), str(safe_text(source))]
    # Escaped HTML inside JSON, decoded by the script with textContent; "</" cannot end the block.
    return Markup(json.dumps(glossary, ensure_ascii=True, sort_keys=True).replace("</", "<\\/"))


def trial_index(trials: list[dict[str, Any]], groups: list[str]) -> Markup:
    """The transcript list as compact JSON: the page draws the rows it shows from it, so a page of
    thousands of trials parses a few bytes per trial at load instead of thousands of elements.

    Each row: [target, scenario, epoch, trial id, [group, category, group, category, ...], review,
    variant ("" without one)], with targets, scenarios, groups and categories as indexes into the
    lists beside the rows."""
    targets = sorted({t["record"].target.spec for t in trials})
    scenarios = sorted({t["record"].scenario_id for t in trials})
    categories = [c.value for c in ShipCategory]
    rows = []
    for view in trials:
        record = view["record"]
        pairs: list[int] = []
        for g in record.groups:
            pairs += [groups.index(g.question_group), categories.index(g.ship_category.value)]
        rows.append(
            [
                targets.index(record.target.spec),
                scenarios.index(record.scenario_id),
                record.epoch,
                record.trial_id,
                pairs,
                int(record.flags.needs_manual_review),
                record.variant or "",
            ]
        )
    index = {
        "targets": targets,
        "scenarios": scenarios,
        "groups": groups,
        "categories": categories,
        "labels": [LABELS.get(c, c) for c in categories],
        "rows": rows,
    }
    # No "<" can end or comment the script block; the script writes every string as text.
    return Markup(json.dumps(index, ensure_ascii=True, separators=(",", ":")).replace("<", "\\u003c"))


def transcript_bodies(
    environment: Environment, trials: list[dict[str, Any]]
) -> tuple[dict[str, Markup], list[tuple[int, str, Markup]]]:
    """Each transcript's body, inline when the page stays small; past LAZY_OVER characters they move
    into compressed blocks of BODY_CHUNK trials (t1..t50 in block 0, ...), and opening a transcript
    inflates only its own block, so a page of thousands of trials loads as quickly as its summaries."""
    macro = environment.get_template("_trial_body.html.j2").module.trial_body  # type: ignore[attr-defined]
    bodies = {view["dom_id"]: Markup(macro(view, CATEGORY_LABELS)) for view in trials}
    if sum(len(body) for body in bodies.values()) <= LAZY_OVER:
        return bodies, []
    items = [(k, str(v)) for k, v in bodies.items()]
    chunks = []
    for start in range(0, len(items), BODY_CHUNK):
        encoding, payload = embedded_block(dict(items[start : start + BODY_CHUNK]), 0)
        chunks.append((start // BODY_CHUNK, encoding, payload))
    return {}, chunks


def data_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def write_html(data: ReportData, corpus: Corpus, paths: ReportPaths, max_trials: int) -> None:
    environment = Environment(
        loader=PackageLoader("medeval", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["t"] = safe_text
    template = environment.get_template("report.html.j2")
    # People's codes over the judges', from the one resolution every view reads.
    resolutions = {s.run_id: Resolution.of_run(s.directory) for s in corpus.snapshots}
    trials = []
    for i, raw in enumerate(corpus.records(limit=max_trials), start=1):
        resolution = resolutions.get(raw.run_id) or Resolution([])
        record, finals = resolution.apply(raw)
        trials.append(trial_view(corpus, record, i, finals))
    decided = {
        (t["record"].trial_id, g["group"].question_group): g["decided"] for t in trials for g in t["groups"]
    }
    drawer_facts, drawer_data = drawer_blocks(drawer_entries(corpus, [t["record"] for t in trials], decided))
    bodies, body_chunks = transcript_bodies(environment, trials)
    groups = sorted({g.question_group for t in trials for g in t["record"].groups}, key=group_sort_key)
    html = template.render(
        data=data,
        trials=trials,
        shown=len(trials),
        question_tables=question_rows(corpus),
        drawer_facts=drawer_facts,
        drawer_data=drawer_data,
        bodies=bodies,
        body_chunks=body_chunks,
        body_chunk=BODY_CHUNK,
        categories=TABLE_CATEGORIES,
        study_categories=[c.value for c in STUDY_CATEGORIES],
        all_categories=SHIP_CATEGORIES,
        labels=CATEGORY_LABELS,
        colours=CATEGORY_COLOURS,
        citation=baseline_citation(),
        charts=[(path.name, data_uri(path)) for path in paths.charts],
        targets=sorted({t["record"].target.spec for t in trials}),
        scenarios=sorted({t["record"].scenario_id for t in trials}),
        groups=groups,
        trial_index=trial_index(trials, groups),
        pooled=POOLED,
        glossary=fact_glossary(corpus, trials),
        anchors={view["record"].trial_id: view["dom_id"] for view in trials},
        human=html_section(data.human),
        headline=data.headline,
        headline_categories=HEADLINE_CATEGORIES,
        corrected=data.corrected,
        corrected_cells=CELLS,
        short_labels=SHORT_LABELS,
        pair_categories=PAIR_CATEGORIES,
        fmt_p=fmt_p,
        paired_note=PAIRED_NOTE,
        provenance_header=PROVENANCE_HEADER,
        provenance_cells=provenance_cells,
        season_intro=season_intro,
        season_label=season_label,
    )
    paths.html.write_text(redact(html), encoding="utf-8")
