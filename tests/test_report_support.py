"""Fixture runs with known verdicts for the reporting tests: a scenario file with the study's question
group ids, hand-built trial records written through the real RunStore, and a manifest like a run's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from medeval.records.storage import RunStore
from medeval.schemas import (
    Claim,
    FinalClaim,
    GroupResult,
    JudgeVerdicts,
    Label,
    Scores,
    ShipCategory,
    TargetInfo,
    TrialFlags,
    TrialRecord,
    Turn,
    Unscored,
    Verdict,
    Vote,
)

SCENARIO_ID = "ship_mo_fixture"
QUESTIONS = {
    "QG1": "When can I select my Medicare coverage plan, and when can I change it later?",
    "QG9": "Do I have to sign up for Medicare when I turn 65, or can I remain on my employer plan?",
    "QG12": (
        "Do either regular Medicare, Medicare Advantage Plans, or Medicare Supplement Plans "
        "cover long-term care?"
    ),
}
FACTS = {
    "QG1": ("F_IEP", "You can sign up in the 7-month Initial Enrollment Period around your 65th birthday."),
    "QG9": ("F_EMP", "You can keep employer coverage and delay Part B without penalty while working."),
    "QG12": ("F_LTC", "Medicare does not cover long-term custodial care."),
}
SOURCE = "Medicare & You 2026, fixture section"
PROMPTS = {"verifier": "a" * 64, "extractor": "b" * 64}


def write_scenario(
    directory: Path, scenario_id: str = SCENARIO_ID, groups: tuple[str, ...] = ("QG1", "QG9", "QG12")
) -> Path:
    scenario = {
        "scenario_id": scenario_id,
        "version": "1",
        "script": "medicare_only",
        "effective_date": "2026-01-01",
        "scripted_turns": [
            {
                "turn_id": f"T_{g}",
                "text": QUESTIONS.get(g, f"Question for {g}?"),
                "question_group": g,
                "required_points": [FACTS.get(g, (f"F_{g}", ""))[0]],
            }
            for g in groups
        ],
        "canonical_facts": [
            {
                "fact_id": FACTS.get(g, (f"F_{g}", ""))[0],
                "statement": FACTS.get(g, ("", f"Fact for {g}."))[1] or f"Fact for {g}.",
                "source": SOURCE,
                "effective_date": "2026-01-01",
            }
            for g in groups
        ],
    }
    path = directory / f"{scenario_id}.json"
    path.write_text(json.dumps(scenario, indent=1), encoding="utf-8")
    return path


ANSWERS = {
    ShipCategory.ACCURATE_COMPLETE: "Yes, that is covered correctly here.",
    ShipCategory.SUBSTANTIVE_INCOMPLETE: "Partly: there is more to say.",
    ShipCategory.NOT_SUBSTANTIVE: "I cannot help with that.",
    ShipCategory.INCORRECT: "Wrong: Medicare pays for everything forever.",
    ShipCategory.INCOMPLETE_DATA: "",
}
DEFAULT_SCORES = {
    ShipCategory.ACCURATE_COMPLETE: (1.0, 1.0, 0.0),
    ShipCategory.SUBSTANTIVE_INCOMPLETE: (1.0, 0.5, 0.0),
    ShipCategory.NOT_SUBSTANTIVE: (None, 0.0, 0.0),
    ShipCategory.INCORRECT: (0.0, 0.0, 0.75),
    ShipCategory.INCOMPLETE_DATA: (None, None, 0.0),
}
CLAIM_LABEL = {
    ShipCategory.ACCURATE_COMPLETE: Label.SUPPORTED,
    ShipCategory.SUBSTANTIVE_INCOMPLETE: Label.SUPPORTED,
    ShipCategory.INCORRECT: Label.CONTRADICTED,
}


def make_record(
    run_id: str,
    index: int,
    target: str,
    categories: dict[str, ShipCategory],
    *,
    scenario_id: str = SCENARIO_ID,
    epoch: int = 1,
    served: str | None = None,
    split_votes: bool = False,
    unscored: list[Unscored] | None = None,
    scored_groups: dict[str, bool] | None = None,
    judges: tuple[str, str] = ("rules", "rules"),
) -> TrialRecord:
    """One trial: per question group a scripted question and an answer whose single claim carries the
    verdict that produces the requested SHIP category."""
    conversation: list[Turn] = []
    claims: list[Claim] = []
    finals: list[FinalClaim] = []
    groups: list[GroupResult] = []
    panels: list[list[Verdict]] = [[], []]
    for group, category in categories.items():
        turn_id = f"T_{group}"
        fact_id = FACTS.get(group, (f"F_{group}", ""))[0]
        answer = ANSWERS[category]
        conversation.append(
            Turn(
                role="user",
                text=QUESTIONS.get(group, f"Question for {group}?"),
                turn_id=turn_id,
                question_group=group,
            )
        )
        conversation.append(Turn(role="assistant", text=answer, turn_id=turn_id, question_group=group))
        label = CLAIM_LABEL.get(category)
        if label is not None:
            claim_id = f"{turn_id}.c1"
            claims.append(
                Claim(
                    claim_id=claim_id,
                    turn_id=turn_id,
                    text=answer,
                    type="factual",
                    confidence="high",
                    verifiable=True,
                    quote_spans=[(0, len(answer))],
                )
            )
            severity = "high" if label == Label.CONTRADICTED else "none"
            second = Label.NOT_IN_KEY if split_votes else label
            votes = [
                Vote(judge_index=0, label=label, evidence=[fact_id], severity=severity),
                Vote(
                    judge_index=1,
                    label=second,
                    evidence=[] if second == Label.NOT_IN_KEY else [fact_id],
                    severity=severity,
                ),
            ]
            for judge_index, vote in enumerate(votes):
                assert vote.label is not None
                panels[judge_index].append(
                    Verdict(
                        claim_id=claim_id, label=vote.label, evidence=vote.evidence, severity=vote.severity
                    )
                )
            finals.append(
                FinalClaim(
                    claim_id=claim_id,
                    turn_id=turn_id,
                    label=None if split_votes else label,
                    evidence=[] if split_votes else [fact_id],
                    severity=severity,
                    votes=votes,
                    unanimous=not split_votes,
                    decided_by="none" if split_votes else "majority",
                )
            )
        accuracy, completeness, safety = DEFAULT_SCORES[category]
        missing = [fact_id] if category != ShipCategory.ACCURATE_COMPLETE else []
        errors = (
            ["factual_error"] if category == ShipCategory.INCORRECT else (["omission"] if missing else [])
        )
        groups.append(
            GroupResult(
                question_group=group,
                turn_ids=[turn_id],
                scored=(scored_groups or {}).get(group, True),
                scores=Scores(
                    accuracy=accuracy,
                    completeness=completeness,
                    safety_risk=safety,
                    missing_required_points=missing,
                    error_categories=errors,
                ),
                ship_category=category
                if (scored_groups or {}).get(group, True)
                else ShipCategory.NOT_APPLICABLE,
                required_points=[fact_id],
            )
        )
    scored = [g for g in groups if g.scored]
    accs = [g.scores.accuracy for g in scored if g.scores.accuracy is not None]
    comps = [g.scores.completeness for g in scored if g.scores.completeness is not None]
    return TrialRecord(
        trial_id=f"{run_id}-t{index:05d}",
        trial_key=f"key{index}",
        run_id=run_id,
        scenario_id=scenario_id,
        scenario_version="1",
        scenario_sha256="c" * 64,
        rubric_version="v1",
        epoch=epoch,
        seed=1,
        target=TargetInfo(
            spec=target,
            provider=target.split(":")[0],
            requested_model=target.split(":")[1],
            served_models=[served or f"{target.split(':')[1]}-2026"],
        ),
        judges=list(judges),
        extractor=judges[0],
        conversation=conversation,
        claims=claims,
        verdicts=[
            JudgeVerdicts(judge_index=i, judge=judges[i], turn_id="all", status="ok", verdicts=panels[i])
            for i in range(2)
        ],
        final_claims=finals,
        final_scores=Scores(
            accuracy=sum(accs) / len(accs) if accs else None,
            completeness=sum(comps) / len(comps) if comps else None,
            safety_risk=max((g.scores.safety_risk for g in scored), default=0.0),
        ),
        groups=groups,
        disagreement_rate=1.0 if split_votes and claims else 0.0,
        flags=TrialFlags(needs_manual_review=split_votes and bool(claims)),
        unscored=unscored or [],
        status="scored",
        started_at="2026-11-01T00:00:00Z",
        finished_at="2026-11-01T00:00:01Z",
    )


def write_run(
    parent: Path,
    run_id: str,
    records: list[TrialRecord],
    *,
    scenario_paths: list[Path],
    prompts: dict[str, str] | None = None,
    scenario_sha: str = "c" * 64,
    calls: list[dict[str, Any]] | None = None,
    judges: list[str] | None = None,
) -> Path:
    parent.mkdir(parents=True, exist_ok=True)
    store = RunStore.create(parent, run_id)
    targets = list(dict.fromkeys(r.target.spec for r in records))
    store.write_manifest(
        {
            "run_id": run_id,
            "created_at": "2026-11-01T00:00:00.000Z",
            "medeval_version": "0.1.0",
            "seed": 42,
            "config": {"targets": targets, "judges": judges or ["rules"], "judge_count": 2},
            "prompts": prompts or PROMPTS,
            "scenarios": [
                {"path": str(p), "scenario_id": p.stem, "version": "1", "sha256": scenario_sha}
                for p in scenario_paths
            ],
            "models": {t: {} for t in targets},
        }
    )
    for record in records:
        store.append_trial(record.model_dump(mode="json"))
    for call in calls or []:
        store.append_call(call)
    return store.directory


def test_fixture_records_are_valid_trial_records(tmp_path: Path) -> None:
    record = make_record("r", 1, "fake:x", {"QG1": ShipCategory.INCORRECT}, split_votes=True)
    assert TrialRecord.model_validate(record.model_dump(mode="json")) == record
    assert record.final_claims[0].label is None and record.flags.needs_manual_review
