"""The specification's own examples are the published interface: each validates unchanged, and a
scenario written exactly in its shape passes `validate` and runs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from medeval.schemas import (
    AdjudicatorOutput,
    ExtractorOutput,
    QuestionerOutput,
    Scenario,
    ScorerOutput,
    VerifierOutput,
)

from .conftest import REPO, SCENARIOS, medeval

SPEC_KEY: dict[str, Any] = {
    "answer_key": {
        "canonical_facts": [
            {
                "fact_id": "F1",
                "statement": "Medicare Advantage plans have provider networks.",
                "rationale": "MA plans may restrict which clinicians are in-network.",
                "source": "CMS Medicare & You 2024",
                "severity_if_wrong": "medium",
            }
        ],
        "required_points": ["F1", "F2"],
        "disallowed_claims": ["Claiming specific clinician network participation without lookup"],
    }
}


def spec_scenario() -> dict[str, Any]:
    key = json.loads(json.dumps(SPEC_KEY["answer_key"]))
    key["canonical_facts"].append(
        {
            "fact_id": "F2",
            "statement": "Original Medicare lets you see any provider that accepts Medicare.",
            "source": "CMS Medicare & You 2026",
            "severity_if_wrong": "medium",
            "effective_date": "2026-01-01",
        }
    )
    key["canonical_facts"][0]["effective_date"] = "2026-01-01"
    return {
        "scenario_id": "spec_shape",
        "title": "Original Medicare or Medicare Advantage",
        "effective_date": "2026-01-01",
        "persona": {"age": 64, "state": "OH", "notes": {"free": ["objects", "are", "fine"]}},
        "scripted_turns": [
            {
                "turn_id": "Q1",
                "user_message": "I’m trying to decide between Original Medicare and Medicare Advantage. "
                "What’s the difference?",
            }
        ],
        "variation_knobs": {"paraphrase": False, "formality": "casual"},
        "answer_key": key,
        "rubric_version": "v1",
    }


def test_the_specification_answer_key_example_validates() -> None:
    scenario = Scenario.model_validate(
        {
            "scenario_id": "s",
            "effective_date": "2026-01-01",
            "scripted_turns": [{"turn_id": "Q1", "user_message": "What's the difference?"}],
            **SPEC_KEY,
        }
    )
    assert scenario.answer_key.disallowed_claims[0].claim_id == "D1"
    assert scenario.canonical_facts[0].fact_id == "F1"


def test_each_agent_example_validates_against_its_model() -> None:
    QuestionerOutput.model_validate(
        {
            "turns": [
                {
                    "turn_id": "Q1",
                    "user_message": "I’m trying to decide between Original Medicare and Medicare Advantage. "
                    "What’s the difference?",
                }
            ]
        }
    )
    out = ExtractorOutput.model_validate(
        {
            "claims": [
                {
                    "claim_id": "C1",
                    "text": "Medicare Advantage plans use provider networks.",
                    "type": "factual",
                    "confidence": "high",
                    "verifiable": True,
                    "quote_spans": [{"start": 12, "end": 64}],
                }
            ]
        }
    )
    assert out.claims[0].quote_spans[0].end == 64
    VerifierOutput.model_validate(
        {
            "verdicts": [
                {"claim_id": "C1", "label": "SUPPORTED", "evidence": ["F1"], "severity": "none", "notes": ""}
            ]
        }
    )
    scorer = ScorerOutput.model_validate(
        {
            "scores": {"accuracy": 0.8, "completeness": 0.5, "safety_risk": 0.1, "calibration": 0.7},
            "missing_required_points": ["F2"],
            "error_categories": ["omission"],
        }
    )
    assert scorer.missing_required_points == ["F2"]
    adjudicated = AdjudicatorOutput.model_validate(
        {
            "final_claims": [],
            "final_scores": {"accuracy": 0.8, "completeness": 0.5, "safety_risk": 0.1, "calibration": 0.7},
            "needs_manual_review": False,
        }
    )
    assert adjudicated.disagreement_rate is None


def test_a_scenario_in_the_specification_shape_validates_and_runs(tmp_path: Path) -> None:
    path = tmp_path / "spec_shape.json"
    path.write_text(json.dumps(spec_scenario(), ensure_ascii=False))
    done = medeval("validate", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "'formality' is kept but nothing in medeval reads it" in done.stderr
    done = medeval("run", "-s", str(path), "-t", "fake:accurate", "--out", "out", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_upgrade_rewrites_a_flat_scenario_beside_it_and_never_silently(tmp_path: Path) -> None:
    flat = json.loads((SCENARIOS / "scenario_001.json").read_text())
    key = flat.pop("answer_key")
    flat.update(key)  # the old flat format: the key's lists at the top
    for turn in flat["scripted_turns"]:
        turn["text"] = turn.pop("user_message")
    path = tmp_path / "old.json"
    path.write_text(json.dumps(flat))
    done = medeval("validate", str(path), cwd=tmp_path)
    assert done.returncode == 0 and "old flat scenario format" in done.stderr
    done = medeval("validate", "--upgrade", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    upgraded = json.loads((tmp_path / "old.upgraded.json").read_text())
    assert json.loads(path.read_text()) == flat  # the original is untouched
    assert upgraded["answer_key"]["canonical_facts"] == key["canonical_facts"]
    assert all("user_message" in t and "text" not in t for t in upgraded["scripted_turns"])
    assert Scenario.model_validate(upgraded) == Scenario.model_validate(flat)
    done = medeval("validate", "--upgrade", "--in-place", str(path), cwd=tmp_path)
    assert done.returncode == 0 and (tmp_path / "old.json.bak").is_file()
    assert json.loads(path.read_text()) == upgraded


def test_a_run_written_in_schema_1_still_verifies_and_reports(tmp_path: Path) -> None:
    import shutil

    run = tmp_path / "schema1_run"
    shutil.copytree(Path(__file__).parent / "data" / "schema1_run", run)
    # The run recorded where its scenarios were on the recording machine; point it at copies of
    # those scenarios as they were then (the bundled ones have changed since), and re-seal the
    # manifest's hash in the checkpoint, as moving a run directory between machines would.
    scenarios = Path(__file__).parent / "data" / "schema1_scenarios"
    manifest_path = run / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for entry in manifest["scenarios"]:
        entry["path"] = str(scenarios / Path(entry["path"]).name)
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    checkpoint_path = run / "checkpoint.json"
    checkpoint = json.loads(checkpoint_path.read_text())
    checkpoint["manifest_sha256"] = hashlib.sha256(manifest_path.read_bytes()).hexdigest()
    checkpoint_path.write_text(json.dumps(checkpoint, indent=2) + "\n")
    done = medeval("verify", str(run), cwd=tmp_path)
    # The chains verify; what verify flags is only that prompts and scenarios changed since.
    assert "Traceback" not in done.stderr
    problems = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("error:")]
    assert all("differs" in line or "changed since the run" in line for line in problems), problems
    done = medeval("report", str(run), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    report = (run / "report" / "report.md").read_text()
    assert "fake:outdated" in report


def test_schema_1_records_load_into_the_current_contract() -> None:
    from medeval.schemas import TrialRecord

    lines = (Path(__file__).parent / "data" / "schema1_run" / "results.jsonl").read_text().splitlines()
    for line in lines:
        data = json.loads(line)
        record = TrialRecord.model_validate({k: v for k, v in data.items() if k not in {"hash", "prev_hash"}})
        assert record.claims and all(span.end > span.start for c in record.claims for span in c.quote_spans)
        assert all(v.turn_ids for v in record.verdicts)


def test_the_five_prompts_stand_under_the_specification_names_and_are_hashed(tmp_path: Path) -> None:
    from medeval.prompts import ROLES, prompt_hashes

    names = {p.name for p in (REPO / "prompts").iterdir() if p.suffix == ".txt"}
    assert names == {f"{role}_system.txt" for role in ROLES}
    assert set(prompt_hashes()) == set(ROLES)
    done = medeval(
        "run",
        "-s",
        str(SCENARIOS / "scenario_001.json"),
        "-t",
        "fake:accurate",
        "--out",
        "out",
        "--quiet",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    [run] = list((tmp_path / "out").iterdir())
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["prompts"] == prompt_hashes()


def test_the_specification_command_line_works_without_the_virtualenv_on_the_path() -> None:
    import subprocess
    import sys

    # -S hides site-packages, as the system python3 lacks medeval's dependencies: the shim
    # re-executes itself with the project's .venv interpreter.
    done = subprocess.run(
        [sys.executable, "-S", "-m", "src.orchestrator", "version"], cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() and "Traceback" not in done.stderr
    # Without a usable .venv it says in one line what to run.
    done = subprocess.run(
        [sys.executable, "-S", "-m", "src.orchestrator", "version"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"MEDEVAL_ORCHESTRATOR_REEXEC": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "run `make demo`" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_facts_without_their_own_date_take_the_scenarios_in_validate_and_run(tmp_path: Path) -> None:
    data = spec_scenario()
    for fact in data["answer_key"]["canonical_facts"]:
        del fact["effective_date"]  # exactly as the specification shows a fact
    path = tmp_path / "spec_exact.json"
    path.write_text(json.dumps(data, ensure_ascii=False))
    done = medeval("validate", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "fact 'F1' has no effective_date, so it takes the scenario's (2026-01-01)" in done.stderr
    assert "error" not in done.stderr
    scenario = Scenario.model_validate(data)
    assert {str(f.effective_date) for f in scenario.canonical_facts} == {"2026-01-01"}
    done = medeval("run", "-s", str(path), "-t", "fake:accurate", "--out", "out", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
