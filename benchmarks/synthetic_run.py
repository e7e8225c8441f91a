"""Synthetic runs of realistic size for the report benchmarks (report_scale.py, report_html.py).

A run is built from the trials of a real `medeval demo` run (the bundled scenarios against the five
fake targets: their real answers, claims, verdicts and checklists, about 11 kB a trial), repeated
with variation: each copy is a new trial (id, key, epoch), some groups get another category (every
category appears, needs_review and not_scored included), odd epochs are judged by two distinct
"model" verifiers that sometimes disagree (so judge agreement has work to do), and a few trials are
sent to review or carry unscored items. The results are hash-chained and checkpointed like a real
run, so `medeval verify` passes and the report carries no integrity warning.

Runs are cached under a directory (default /tmp/medeval-report-bench) and reused: building 100,000
trials takes minutes on a shared 2-core machine.

    from synthetic_run import cached_run
    run_dir = cached_run(10_000)
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from medeval.records.hashing import canonical_json, sha256_file, sha256_text
from medeval.records.storage import CALLS, CHECKPOINT, GENESIS, MANIFEST, RESULTS, utc_now

CACHE = Path(os.environ.get("MEDEVAL_BENCH_CACHE", "/tmp/medeval-report-bench"))
#: Bump when the shape of the synthetic trials changes, so stale cached runs are not reused.
BUILDER_VERSION = "1"
CATEGORIES = (
    "accurate_complete",
    "substantive_incomplete",
    "not_substantive",
    "incorrect",
    "needs_review",
    "not_scored",
    "incomplete_data",
)
WEIGHTS = (30, 28, 15, 15, 6, 3, 3)
MODEL_JUDGES = ["fake:judge-a", "fake:judge-b"]
LABELS = ("SUPPORTED", "CONTRADICTED", "NOT_IN_KEY")


def demo_run(cache: Path = CACHE) -> Path:
    """A real demo run (made once, with this checkout's code) whose trials are the templates."""
    parent = cache / "demo"
    found = sorted(parent.glob("*/results.jsonl")) if parent.is_dir() else []
    if found:
        return found[-1].parent
    shutil.rmtree(parent, ignore_errors=True)
    parent.mkdir(parents=True)
    subprocess.run(
        [sys.executable, "-m", "medeval", "demo", "--out", str(parent)],
        check=True,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "MEDEVAL_CACHE_DIR": str(cache / "provider-cache")},
    )
    return sorted(parent.glob("*/results.jsonl"))[-1].parent


def templates(run_dir: Path) -> list[dict[str, Any]]:
    lines = (run_dir / RESULTS).read_text(encoding="utf-8").splitlines()
    return [{k: v for k, v in json.loads(line).items() if k not in ("prev_hash", "hash")} for line in lines]


def vary(template: dict[str, Any], index: int, run_id: str, rng: random.Random, epoch: int) -> dict[str, Any]:
    """One new trial from a demo trial: new identity and epoch, some categories and votes changed."""
    trial = dict(template)
    trial.update(
        run_id=run_id,
        trial_id=f"{run_id}-t{index:07d}",
        trial_key=f"{index:024x}",
        epoch=epoch,
        finished_at=f"2026-01-01T00:00:{index % 60:02d}.{index % 1000:03d}Z",
    )
    groups = []
    for group in template["groups"]:
        if group["scored"] and rng.random() < 0.35:
            group = {**group, "ship_category": rng.choices(CATEGORIES, weights=WEIGHTS)[0]}
        groups.append(group)
    trial["groups"] = groups
    if epoch % 2 == 0:
        # Two distinct verifiers: agreement is measured on these trials, not left out as copies.
        trial["judges"] = MODEL_JUDGES
        finals = []
        for final in template["final_claims"]:
            votes = [dict(v) for v in final["votes"]]
            if len(votes) > 1 and rng.random() < 0.15:
                votes[1]["label"] = rng.choice([x for x in LABELS if x != votes[0]["label"]])
            labels = {v["label"] for v in votes}
            finals.append({**final, "votes": votes, "unanimous": len(labels) == 1})
        trial["final_claims"] = finals
    if rng.random() < 0.03:
        trial["flags"] = {**template["flags"], "needs_manual_review": True}
        trial["disagreement_rate"] = round(rng.random(), 3)
    if rng.random() < 0.02:
        trial["unscored"] = [{"item": "verifier 2 on Q1", "reason": "the judge's reply was not valid JSON"}]
    return trial


def write_run(directory: Path, count: int, seed: int = 1, source: Path | None = None) -> Path:
    """Write a chained, checkpointed run of `count` trials into `directory` (which must not exist)."""
    source = source or demo_run()
    bases = templates(source)
    manifest = json.loads((source / MANIFEST).read_text(encoding="utf-8"))
    run_id = f"bench-{count}"
    manifest["run_id"] = run_id
    manifest["seed"] = seed
    manifest["config"]["judges"] = ["rules", *MODEL_JUDGES]
    directory.mkdir(parents=True)
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    rng = random.Random(seed)
    head = GENESIS
    with (directory / RESULTS).open("w", encoding="utf-8") as handle:
        for index in range(count):
            base = bases[index % len(bases)]
            trial = vary(base, index, run_id, rng, epoch=index // len(bases) + 1)
            # The stored form of storage.ChainedJsonl: canonical body, then its hash.
            body = canonical_json({**trial, "prev_hash": head})
            head = sha256_text(body)
            handle.write(f'{body[:-1]},"hash":"{head}"}}\n')
    (directory / CALLS).touch()
    checkpoint = {
        "updated_at": utc_now(),
        "manifest_sha256": sha256_file(directory / MANIFEST),
        "results": {"records": count, "head": head},
        "calls": {"records": 0, "head": GENESIS},
    }
    (directory / CHECKPOINT).write_text(
        json.dumps(checkpoint, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return directory


def cached_run(count: int, seed: int = 1, cache: Path = CACHE) -> Path:
    """The run of `count` trials from the cache, built on first use."""
    directory = cache / f"v{BUILDER_VERSION}-{count}-s{seed}"
    if (directory / CHECKPOINT).is_file():
        return directory
    shutil.rmtree(directory, ignore_errors=True)
    partial = cache / f".building-{os.getpid()}-{count}"
    shutil.rmtree(partial, ignore_errors=True)
    write_run(partial, count, seed, demo_run(cache))
    partial.rename(directory)
    return directory
