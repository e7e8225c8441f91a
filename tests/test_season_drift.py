"""`medeval compare A B --drift` between runs on the 2026 and 2027 keys: the earlier run's answers
are judged again with the later key (no target calls), and each target's change splits into the
key's part and the model's (issue 24, step 5)."""

from __future__ import annotations

import csv
from pathlib import Path

from .conftest import REPO, medeval, only_run

SCENARIO = "topic_part_d_choice.json"
MEDICARE_ONLY = "ship_medicare_only.json"


def season_run(season: str, tmp_path: Path) -> Path:
    folder = REPO / "scenarios" / season
    done = medeval(
        "run",
        "-s",
        str(folder / SCENARIO),
        "-s",
        str(folder / MEDICARE_ONLY),
        "-t",
        "fake:accurate",
        "-t",
        "fake:outdated",
        "--out",
        str(tmp_path / season),
        "-q",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    return only_run(tmp_path / season)


def test_drift_splits_the_key_change_from_the_model_change(tmp_path: Path) -> None:
    old, new = season_run("v1", tmp_path), season_run("v2027", tmp_path)
    plain = medeval("compare", str(old), str(new), cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert "add --drift" in plain.stdout
    done = medeval("compare", str(old), str(new), "--drift", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader((new / "compare" / "drift.csv").open(encoding="utf-8")))
    pooled = {
        r["target"]: r for r in rows if r["scenario_id"] == "ALL" and r["metric"] == "accurate_complete"
    }
    assert set(pooled) == {"fake:accurate", "fake:outdated"}
    # The fake targets answer the same in both seasons: the model changed nothing, in every group.
    assert all(float(r["model_change"]) == 0.0 for r in rows)
    # The accurate target's 2026 answers (the $2,100 cap stated as current) fall short of the 2027 key.
    accurate = pooled["fake:accurate"]
    assert float(accurate["key_change"]) < 0 and float(accurate["total"]) == float(accurate["key_change"])
    part_d = next(
        r
        for r in rows
        if r["target"] == "fake:accurate"
        and r["scenario_id"] == "topic_part_d_choice"
        and r["metric"] == "accurate_complete"
    )
    assert (part_d["old_old"], part_d["old_new"], part_d["new_new"]) == ("1.0", "0.0", "0.0")
    assert "Old answers, new key" in (new / "compare" / "drift.md").read_text(encoding="utf-8")
    # The rescore made no target call and names its source run.
    rescored = only_run(new / "compare" / "rescored")
    calls = rescored / "calls.jsonl"
    assert not calls.exists() or calls.read_text(encoding="utf-8").strip() == ""
    assert old.name in (rescored / "manifest.json").read_text(encoding="utf-8")


def test_the_report_counts_pending_items_apart(tmp_path: Path) -> None:
    folder = REPO / "scenarios" / "v2027"
    done = medeval(
        "run",
        "-s",
        str(folder / MEDICARE_ONLY),
        "-t",
        "fake:accurate",
        "--out",
        str(tmp_path),
        "-q",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    run = only_run(tmp_path)
    report = medeval("report", str(run), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    text = (run / "report" / "report.md").read_text(encoding="utf-8")
    section = text.split("## Items awaiting a published value", 1)[1]
    assert "PARTB_PREMIUM_2027" in section and "MA_MOOP_2027" in section and "2026-11-15" in section
