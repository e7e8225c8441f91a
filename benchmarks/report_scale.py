"""How long `medeval report` takes on a large run: writes N synthetic trials (default 100,000) into a
temporary run directory, then times the duckdb load, the tables and the whole report.

    .venv/bin/python benchmarks/report_scale.py [N]

Prints figures; asserts nothing about time (speed is machine-dependent).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

from medeval.reporting.build import build_report
from medeval.reporting.load import Corpus
from medeval.reporting.tables import scenario_rows, ship_rows, target_rows

CATEGORIES = (
    "accurate_complete",
    "substantive_incomplete",
    "not_substantive",
    "incorrect",
    "incomplete_data",
)
GROUPS = ("QG1", "QG9", "QG10", "QG12")
TARGETS = ("fake:a", "fake:b", "fake:c", "fake:d", "fake:e")


def synthetic_trial(index: int, rng: random.Random) -> dict[str, object]:
    target = TARGETS[index % len(TARGETS)]
    scenario = f"scenario_{index % 20:02d}"
    groups, claims, finals, conversation = [], [], [], []
    for group in GROUPS:
        category = rng.choices(CATEGORIES, weights=(40, 35, 15, 8, 2))[0]
        accuracy = None if category in ("not_substantive", "incomplete_data") else rng.random()
        answer = f"Answer about {group} number {index}."
        conversation += [
            {"role": "user", "text": f"Question {group}?", "turn_id": group, "question_group": group},
            {"role": "assistant", "text": answer, "turn_id": group, "question_group": group},
        ]
        label = "CONTRADICTED" if category == "incorrect" else "SUPPORTED"
        claims.append(
            {
                "claim_id": f"{group}.c1",
                "turn_id": group,
                "text": answer,
                "type": "factual",
                "confidence": "high",
                "verifiable": True,
                "quote_spans": [[0, len(answer)]],
            }
        )
        votes = [{"judge_index": j, "label": label, "evidence": ["F1"], "severity": "none"} for j in range(2)]
        finals.append(
            {
                "claim_id": f"{group}.c1",
                "turn_id": group,
                "label": label,
                "evidence": ["F1"],
                "severity": "high" if label == "CONTRADICTED" else "none",
                "votes": votes,
                "unanimous": True,
                "decided_by": "majority",
            }
        )
        groups.append(
            {
                "question_group": group,
                "turn_ids": [group],
                "scored": True,
                "ship_category": category,
                "required_points": ["F1"],
                "scores": {
                    "accuracy": accuracy,
                    "completeness": rng.random(),
                    "safety_risk": 0.0,
                    "calibration": None,
                    "missing_required_points": [],
                    "error_categories": [],
                },
            }
        )
    return {
        "schema_version": "1",
        "trial_id": f"bench-t{index:07d}",
        "trial_key": str(index),
        "run_id": "bench",
        "scenario_id": scenario,
        "scenario_version": "1",
        "scenario_sha256": "0" * 64,
        "rubric_version": "v1",
        "epoch": index // 100 + 1,
        "seed": 1,
        "target": {
            "spec": target,
            "provider": "fake",
            "requested_model": target[5:],
            "served_models": [target[5:]],
        },
        "judges": ["rules", "rules"],
        "extractor": "rules",
        "conversation": conversation,
        "claims": claims,
        "verdicts": [],
        "final_claims": finals,
        "final_scores": {"accuracy": rng.random(), "completeness": rng.random(), "safety_risk": 0.0},
        "groups": groups,
        "disagreement_rate": 0.0,
        "flags": {"needs_manual_review": False},
        "unscored": [],
        "status": "scored",
        "started_at": "",
        "finished_at": "",
        "prev_hash": "",
        "hash": "",
    }


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as temporary:
        run_dir = Path(temporary) / "bench"
        run_dir.mkdir()
        manifest = {
            "run_id": "bench",
            "created_at": "2026-01-01T00:00:00Z",
            "seed": 1,
            "config": {"targets": list(TARGETS), "judges": ["rules"], "judge_count": 2},
        }
        (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        started = time.perf_counter()
        with (run_dir / "results.jsonl").open("w", encoding="utf-8") as handle:
            for index in range(count):
                handle.write(json.dumps(synthetic_trial(index, rng)) + "\n")
        size = (run_dir / "results.jsonl").stat().st_size / 1e6
        print(f"wrote {count:,} trials ({size:,.0f} MB) in {time.perf_counter() - started:.1f} s")

        started = time.perf_counter()
        corpus = Corpus([run_dir])
        print(f"duckdb load: {time.perf_counter() - started:.2f} s for {corpus.trial_count():,} trials")
        for name, step in (
            ("SHIP table", ship_rows),
            ("per target", lambda c: target_rows(c, 1)),
            ("per scenario", lambda c: scenario_rows(c, 1)),
        ):
            started = time.perf_counter()
            rows = step(corpus)
            print(f"{name}: {len(rows)} rows in {time.perf_counter() - started:.2f} s")
        corpus.close()

        started = time.perf_counter()
        paths = build_report([run_dir], html_trials=500)
        elapsed = time.perf_counter() - started
        print(f"whole report (HTML capped at 500 transcripts): {elapsed:.2f} s -> {paths.directory}")


if __name__ == "__main__":
    main()
