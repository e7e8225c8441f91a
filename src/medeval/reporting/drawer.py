"""What the question table's drawer shows for a model row: per epoch, the question, the verbatim
answer as safe Markdown with claims highlighted by verdict, each claim with its verifiers' labels, and
the checklist items covered or missed with their sources.

The entries go into report.html as one JSON block; past `COMPRESS_OVER` characters the block is
gzip-compressed and base64-encoded, and the page inflates it (DecompressionStream) the first time a
drawer opens, so a page with thousands of trials stays quick to load.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterable
from typing import Any

from markupsafe import Markup

from medeval.reporting.findings import fact_ref
from medeval.reporting.load import Corpus
from medeval.reporting.question_table import drawer_key, script_of
from medeval.reporting.safe_markdown import defang, render
from medeval.schemas import GroupResult, TrialRecord

COMPRESS_OVER = 200_000
LABELS = {
    "accurate_complete": "Accurate & complete",
    "substantive_incomplete": "Substantive, incomplete",
    "not_substantive": "Not substantive",
    "incorrect": "Incorrect",
    "incomplete_data": "Incomplete data",
    "needs_review": "Needs review",
    "not_scored": "Not scored",
    "not_applicable": "Asked, not scored",
}


def _items(group: GroupResult) -> tuple[list[str], list[str], list[str]]:
    """Covered, missed and contradicted checklist items (schema 1: required points minus missed)."""
    if group.checklist:
        covered = [i.fact_id for i in group.checklist if i.code == "covered"]
        missed = [i.fact_id for i in group.checklist if i.code in ("absent", None)]
        contradicted = [i.fact_id for i in group.checklist if i.code == "contradicted"]
        return covered, missed, contradicted
    missed = list(group.scores.missing_required_points)
    return [p for p in group.required_points if p not in missed], missed, []


def _entry(
    corpus: Corpus, record: TrialRecord, group: GroupResult, facts: dict[tuple[str, str], list[str]]
) -> dict[str, Any]:
    finals = {fc.claim_id: fc for fc in record.final_claims}
    turns = set(group.turn_ids)
    question: list[str] = []
    answers: list[str] = []
    claims_out: list[dict[str, Any]] = []
    for turn in record.conversation:
        if turn.turn_id not in turns:
            continue
        if turn.role == "user":
            question.append(turn.text)
            continue
        spans = []
        for claim in record.claims:
            if claim.turn_id != turn.turn_id:
                continue
            final = finals.get(claim.claim_id)
            verdict = final.label.value if final is not None and final.label is not None else "PENDING"
            spans.append((verdict, [(s.start, s.end) for s in claim.quote_spans]))
            votes = []
            for vote in final.votes if final else []:
                judge = record.judges[vote.judge_index] if vote.judge_index < len(record.judges) else "?"
                votes.append(
                    f"#{vote.judge_index + 1} {judge}: {vote.label.value if vote.label else 'abstained'}"
                )
            claims_out.append(
                {
                    "verdict": verdict,
                    "text": defang(claim.text),
                    "votes": votes,
                    "facts": list(final.evidence) if final else [],
                }
            )
        answers.append(str(render(turn.text, spans)))

    def refs(ids: Iterable[str]) -> list[list[str]]:
        out = []
        for fact_id in ids:
            key = (record.scenario_id, fact_id)
            if key not in facts:
                ref = fact_ref(corpus, record.scenario_id, fact_id)
                facts[key] = [fact_id, defang(ref.text), defang(ref.source)]
            out.append(facts[key])
        return out

    covered, missed, contradicted = _items(group)
    return {
        "trial": record.trial_id,
        "epoch": record.epoch,
        "scenario": record.scenario_id,
        "category": group.ship_category.value,
        "label": LABELS.get(group.ship_category.value, group.ship_category.value),
        "question": defang("\n".join(question)),
        "answer": "".join(answers),
        "claims": claims_out,
        "covered": refs(covered),
        "missed": refs(missed),
        "contradicted": refs(contradicted),
        "served": ", ".join(record.target.served_models),
    }


def drawer_entries(corpus: Corpus, records: Iterable[TrialRecord]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    facts: dict[tuple[str, str], list[str]] = {}
    for record in records:
        for group in record.groups:
            key = drawer_key(
                script_of(group.question_group, record.scenario_id, corpus),
                group.question_group,
                record.target.spec,
            )
            out.setdefault(key, []).append(_entry(corpus, record, group, facts))
    for entries in out.values():
        entries.sort(key=lambda e: (e["epoch"], e["scenario"], e["trial"]))
    return out


def drawer_block(entries: dict[str, list[dict[str, Any]]]) -> tuple[str, Markup]:
    """(encoding, payload) for the page: plain JSON, or gzip+base64 past COMPRESS_OVER characters."""
    return embedded_block(entries, COMPRESS_OVER)


def embedded_block(value: Any, compress_over: int) -> tuple[str, Markup]:
    """(encoding, payload) of a JSON value for a script block: plain, or gzip+base64 when longer."""
    text = json.dumps(value, ensure_ascii=True, sort_keys=True)
    if len(text) > compress_over:
        packed = base64.b64encode(gzip.compress(text.encode("ascii"), mtime=0)).decode("ascii")
        return "gzip-base64", Markup(packed)
    # "</" cannot end the script block; the answers are already escaped HTML.
    return "json", Markup(text.replace("</", "<\\/"))
