"""What a person codes: one question group of one trial, with everything needed to code it offline.

An item's id names the trial and the group (`<trial_id>:<group>`), so it is stable however often the
run is exported. Its hash covers what the coder sees and decides on (the questions, the verbatim
answers, the checklist with the study's wording, the key's facts and sources): if any of that changed
between export and import, the codes are refused. The judges' output is not in the hash, so a blind
and an open export of the same group have the same hash and two coders' codes line up.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from medeval.errors import UserError
from medeval.records.hashing import canonical_json, sha256_text
from medeval.records.storage import MANIFEST, RESULTS, TornLineWarning, read_jsonl, without_chain
from medeval.records.trials import latest_trials
from medeval.scenarios.load import scenario_problems
from medeval.schemas import Scenario, TrialRecord


class Exchange(BaseModel):
    turn_id: str
    question: str
    answer: str


class KeyFact(BaseModel):
    """A checklist item (or another fact the group's rule names) as the coder sees it."""

    fact_id: str
    statement: str
    source: str
    study_item: str = ""
    study_wording: str = ""
    optional: bool = False
    checklist: bool = True
    judge_code: str | None = None  # the adjudicated code; hidden in a blind export


class DisallowedView(BaseModel):
    claim_id: str
    text: str


class ClaimView(BaseModel):
    turn_id: str
    text: str
    quote: str
    label: str | None = None  # the adjudicated label; hidden in a blind export
    evidence: list[str] = Field(default_factory=list)


class ReviewItem(BaseModel):
    item_id: str
    item_hash: str
    run_id: str
    trial_id: str
    scenario_id: str
    target: str
    question_group: str
    label: str = ""
    study_rule: str = ""
    deviations: list[str] = Field(default_factory=list)
    exchanges: list[Exchange]
    facts: list[KeyFact]
    disallowed: list[DisallowedView] = Field(default_factory=list)
    claims: list[ClaimView] = Field(default_factory=list)
    judge_category: str
    judge_reason: str | None = None
    selection: str = ""  # "needs_review" or "audit", set by the sampler

    def blinded(self) -> ReviewItem:
        """The item without the judges' codes: what a coder sees with --blind."""
        return self.model_copy(
            update={
                "facts": [f.model_copy(update={"judge_code": None}) for f in self.facts],
                "claims": [c.model_copy(update={"label": None, "evidence": []}) for c in self.claims],
                "judge_category": "",
                "judge_reason": None,
                "selection": "",
            }
        )


def item_id(trial_id: str, group: str) -> str:
    return f"{trial_id}:{group}"


class LoadedRun(BaseModel):
    directory: Path
    run_id: str
    records: list[TrialRecord]
    scenarios: dict[str, Scenario]


def load_run(directory: Path) -> LoadedRun:
    """A run's trial records and the scenarios its manifest names (as the report reads them)."""
    manifest_path = directory / MANIFEST
    if not manifest_path.is_file():
        raise UserError(f"{directory}: no {MANIFEST} here; pass a run directory made by `medeval run`")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UserError(f"{manifest_path}: cannot read the manifest ({error}); is the run intact?") from None
    records = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TornLineWarning)
        stored = list(read_jsonl(directory / RESULTS))
    # A retried trial supersedes its failed record, as in the report: only the latest is coded.
    for raw in latest_trials(stored):
        try:
            records.append(TrialRecord.model_validate(without_chain(raw)))
        except ValueError:
            continue
    workdir = Path(manifest.get("working_directory") or ".")
    scenarios: dict[str, Scenario] = {}
    for entry in manifest.get("scenarios") or []:
        if not isinstance(entry, dict) or "path" not in entry:
            continue
        path = Path(entry["path"])
        path = path if path.is_absolute() else workdir / path
        if path.is_file():
            loaded, problems = scenario_problems(path)
            if loaded is not None and not problems:
                scenarios[loaded.scenario_id] = loaded
    return LoadedRun(
        directory=directory,
        run_id=str(manifest.get("run_id") or directory.name),
        records=records,
        scenarios=scenarios,
    )


def content_hash(content: dict[str, Any]) -> str:
    return sha256_text(canonical_json(content))


def group_facts(scenario: Scenario, group: str, turn_required: list[str]) -> tuple[list[KeyFact], str, str]:
    """The checklist of a group (with the study's wording where the key has it), its eTable label and
    the study's rule; a group without a key lists its required points."""
    key = scenario.group_key(group)
    facts: list[KeyFact] = []
    if key is not None:
        for entry in key.items:
            fact = scenario.fact(entry.fact_id)
            facts.append(
                KeyFact(
                    fact_id=entry.fact_id,
                    statement=fact.statement if fact else "",
                    source=fact.source if fact else "",
                    study_item=entry.study_item,
                    study_wording=entry.study_wording,
                    optional=entry.optional,
                )
            )
        listed = {f.fact_id for f in facts}
        for fact_id in key.rule.partial_credit:
            fact = scenario.fact(fact_id)
            if fact is not None and fact_id not in listed:
                facts.append(
                    KeyFact(fact_id=fact_id, statement=fact.statement, source=fact.source, checklist=False)
                )
        return facts, key.label, key.rule.study_rule
    for fact_id in turn_required:
        fact = scenario.fact(fact_id)
        if fact is not None:
            facts.append(KeyFact(fact_id=fact_id, statement=fact.statement, source=fact.source))
    return facts, "", ""


def build_items(run: LoadedRun) -> list[ReviewItem]:
    """Every scored question group of every trial whose scenario is still readable."""
    items: list[ReviewItem] = []
    for record in run.records:
        scenario = run.scenarios.get(record.scenario_id)
        if scenario is None:
            continue
        questions = {t.turn_id: t.text for t in record.conversation if t.role == "user"}
        answers = {t.turn_id: t.text for t in record.conversation if t.role == "assistant" and not t.error}
        for group in record.groups:
            if not group.scored or not group.turn_ids:
                continue
            exchanges = [
                Exchange(turn_id=t, question=questions.get(t, ""), answer=answers.get(t, ""))
                for t in group.turn_ids
                if t in answers
            ]
            if not exchanges:
                continue
            facts, label, rule = group_facts(scenario, group.question_group, group.required_points)
            # "undecided": the judges coded the item and split; None: they did not code items at all.
            judged = {d.fact_id: d.code or "undecided" for d in group.checklist}
            for fact in facts:
                fact.judge_code = judged.get(fact.fact_id)
            key = scenario.group_key(group.question_group)
            # Only the wrong claims the study's rule names for this group: the rest are other groups'.
            incorrect_ids = set(key.rule.incorrect) if key else set()
            disallowed = [
                DisallowedView(claim_id=d.claim_id, text=d.text)
                for d in scenario.disallowed_claims
                if d.claim_id in incorrect_ids
            ]
            content = {
                "run_id": run.run_id,
                "trial_id": record.trial_id,
                "scenario_id": record.scenario_id,
                "question_group": group.question_group,
                "exchanges": [e.model_dump() for e in exchanges],
                "facts": [f.model_dump(exclude={"judge_code"}) for f in facts],
                "disallowed": [d.model_dump() for d in disallowed],
                "study_rule": rule,
            }
            items.append(
                ReviewItem(
                    item_id=item_id(record.trial_id, group.question_group),
                    item_hash=content_hash(content),
                    run_id=run.run_id,
                    trial_id=record.trial_id,
                    scenario_id=record.scenario_id,
                    target=record.target.spec,
                    question_group=group.question_group,
                    label=label,
                    study_rule=rule,
                    deviations=list(group.deviations),
                    exchanges=exchanges,
                    facts=facts,
                    disallowed=disallowed,
                    claims=_claims(record, set(group.turn_ids)),
                    judge_category=group.ship_category.value,
                    judge_reason=group.reason,
                )
            )
    return items


def _claims(record: TrialRecord, turn_ids: set[str]) -> list[ClaimView]:
    answers = {t.turn_id: t.text for t in record.conversation if t.role == "assistant"}
    final = {fc.claim_id: fc for fc in record.final_claims}
    out = []
    for claim in record.claims:
        if claim.turn_id not in turn_ids:
            continue
        answer = answers.get(claim.turn_id, "")
        quote = " … ".join(answer[s.start : s.end] for s in claim.quote_spans)
        decided = final.get(claim.claim_id)
        out.append(
            ClaimView(
                turn_id=claim.turn_id,
                text=claim.text,
                quote=quote,
                label=decided.label.value if decided and decided.label else None,
                evidence=list(decided.evidence) if decided else [],
            )
        )
    return out
