"""What the question table's drawer shows for a model row: per epoch, the question, the verbatim
answer as safe Markdown with claims highlighted by verdict, each claim with its verifiers' labels and
the facts they cite, and the checklist items covered, missed or contradicted with the verifiers' codes.
Every fact shown carries the answer key's text, source and date; the page holds each fact once.

The entries go into report.html as one JSON block per question group; past `COMPRESS_OVER` characters
a block is gzip-compressed and base64-encoded, and the page inflates it (DecompressionStream) the first
time a drawer of its group opens, so a page with thousands of trials stays quick to load and to open.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterable
from typing import Any

from markupsafe import Markup

from medeval.reporting.loading.run import Corpus, key_name
from medeval.reporting.render.safe_markdown import defang, render
from medeval.reporting.tables.findings import fact_ref
from medeval.reporting.tables.questions import drawer_key, script_of
from medeval.schemas import GroupResult, TrialRecord

COMPRESS_OVER = 50_000
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


def _items(group: GroupResult) -> list[list[Any]]:
    """[fact id, code, the verifiers' codes] per checklist item (schema 1: required points minus
    missed, with no verifier codes)."""
    if group.checklist:
        return [
            [item.fact_id, item.code or "undecided", [v or "abstained" for v in item.votes]]
            for item in group.checklist
        ]
    missed = set(group.scores.missing_required_points)
    return [[p, "absent" if p in missed else "covered", []] for p in group.required_points]


class _Facts:
    """Each cited or checked fact's text and source once per page, by answer key (`key_name`: the
    scenario id and the key file's sha256, as two seasons' keys share ids) and fact id: a fact is
    named by hundreds of claims and items, and the entries carry only its id."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.table: dict[str, dict[str, list[str]]] = {}

    def note(self, record: TrialRecord, fact_ids: Iterable[str]) -> list[str]:
        sha256 = record.scenario_sha256
        known = self.table.setdefault(key_name(record.scenario_id, sha256), {})
        ids = list(fact_ids)
        for fact_id in ids:
            if fact_id not in known:
                ref = fact_ref(self.corpus, record.scenario_id, fact_id, sha256=sha256)
                source = fact_source(self.corpus, record.scenario_id, fact_id, sha256)
                known[fact_id] = [defang(ref.text), defang(source)]
        return ids


def fact_source(corpus: Corpus, scenario_id: str, fact_id: str, sha256: str = "") -> str:
    """The answer key's source of a fact, with the date its figure holds from when the key says."""
    source = fact_ref(corpus, scenario_id, fact_id, sha256=sha256).source
    scenario = corpus.scenario(scenario_id, sha256)
    fact = scenario.fact(fact_id) if scenario is not None else None
    if fact is not None and fact.effective_date is not None:
        return f"{source} (effective {fact.effective_date.isoformat()})"
    if fact is not None and fact.year is not None:
        return f"{source} (for {fact.year})"
    return source


def _entry(record: TrialRecord, group: GroupResult, facts: _Facts, decided: str) -> dict[str, Any]:
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
                    [
                        f"#{vote.judge_index + 1} {judge}",
                        vote.label.value if vote.label else "abstained",
                        facts.note(record, vote.evidence),
                    ]
                )
            claims_out.append(
                {
                    "verdict": verdict,
                    "text": defang(claim.text),
                    "votes": votes,
                    "facts": facts.note(record, final.evidence if final else []),
                    "by": final.decided_by if final else "none",
                }
            )
        answers.append(str(render(turn.text, spans)))
    items = _items(group)
    facts.note(record, [item[0] for item in items])
    return {
        "trial": record.trial_id,
        "epoch": record.epoch,
        "variant": record.variant or "",
        "scenario": record.scenario_id,
        "key": key_name(record.scenario_id, record.scenario_sha256),
        "version": record.scenario_version,
        "category": group.ship_category.value,
        "label": LABELS.get(group.ship_category.value, group.ship_category.value),
        "decided": decided,
        "question": defang("\n".join(question)),
        "answer": "".join(answers),
        "claims": claims_out,
        "items": items,
        "served": ", ".join(record.target.served_models),
    }


def drawer_entries(
    corpus: Corpus, records: Iterable[TrialRecord], decided: dict[tuple[str, str], str] | None = None
) -> dict[str, Any]:
    """{"rows": drawer key -> entries by epoch, "facts": answer key (key_name) -> fact id -> [text,
    source]}.
    `records` carry their final categories; `decided` says who decided each (trial, group)."""
    out: dict[str, list[dict[str, Any]]] = {}
    facts = _Facts(corpus)
    for record in records:
        for group in record.groups:
            key = drawer_key(
                script_of(group.question_group, record.scenario_id, corpus),
                group.question_group,
                record.target.spec,
            )
            who = (decided or {}).get((record.trial_id, group.question_group), "decided by the judges")
            out.setdefault(key, []).append(_entry(record, group, facts, who))
    for entries in out.values():
        entries.sort(key=lambda e: (e["variant"], e["epoch"], e["scenario"], e["trial"]))
    return {"rows": out, "facts": facts.table}


def drawer_blocks(entries: dict[str, Any]) -> tuple[Markup, list[tuple[str, str, Markup]]]:
    """The facts as one plain JSON block, and the rows as one block per question group of a script
    ((script|group, encoding, payload)), each gzip+base64 past COMPRESS_OVER characters: opening a
    drawer inflates its own group's block only."""
    groups: dict[str, dict[str, Any]] = {}
    for key, rows in entries["rows"].items():
        groups.setdefault(key.rsplit("|", 1)[0], {})[key] = rows
    facts = embedded_block(entries["facts"], 1 << 62)[1]  # plain: every drawer needs it
    return facts, [(group, *embedded_block(rows, COMPRESS_OVER)) for group, rows in groups.items()]


def embedded_block(value: Any, compress_over: int) -> tuple[str, Markup]:
    """(encoding, payload) of a JSON value for a script block: plain, or gzip+base64 when longer."""
    text = json.dumps(value, ensure_ascii=True, sort_keys=True)
    if len(text) > compress_over:
        packed = base64.b64encode(gzip.compress(text.encode("ascii"), mtime=0)).decode("ascii")
        return "gzip-base64", Markup(packed)
    # "</" cannot end the script block; the answers are already escaped HTML.
    return "json", Markup(text.replace("</", "<\\/"))
