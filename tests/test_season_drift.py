"""`medeval compare A B --drift` between runs on the 2026 and 2027 keys: the earlier run's answers
are judged again with the later key (no target calls), and each target's change splits into the
key's part and the model's (issue 24, step 5)."""

from __future__ import annotations

import csv
from pathlib import Path

from medeval.review.export import make_export
from medeval.review.importing import import_codes

from .conftest import REPO, medeval, only_run
from .review_support import codes_file

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


def test_drift_reads_peoples_codes_as_every_view_does(tmp_path: Path) -> None:
    """A person coded the old run's Part D answer Incorrect (blind): drift's old reading counts that
    code, as `compare` and `report` do, and says the rescore's reading is the judges' (issue 27)."""
    folder_old, folder_new = REPO / "scenarios" / "v1", REPO / "scenarios" / "v2027"
    runs = []
    for folder in (folder_old, folder_new):
        done = medeval(
            "run", "-s", str(folder / SCENARIO), "-t", "fake:accurate", "--out", str(tmp_path / folder.name),
            "-q", cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        runs.append(only_run(tmp_path / folder.name))
    old, new = runs
    items = make_export(old, 1.0, 1, blind=True).items
    item = next(i for i in items if i.target == "fake:accurate" and i.question_group == "topic_part_d_choice")
    # The judges coded it A&C (the first test's old reading); the person, blind to that, codes Incorrect.
    entry = {"item_id": item.item_id, "item_hash": item.item_hash, "category": "incorrect"}
    import_codes(old, codes_file(tmp_path / "codes.json", item.run_id, [entry], blind=True), "alice")

    done = medeval("compare", str(old), str(new), "--drift", "--out", str(tmp_path / "cmp"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader((tmp_path / "cmp" / "drift.csv").open(encoding="utf-8")))
    part_d = next(
        r for r in rows if r["scenario_id"] == "topic_part_d_choice" and r["metric"] == "accurate_complete"
    )
    # People's code, not the judges' A&C: the old reading is 0, as compare's A column says.
    assert (part_d["old_old"], part_d["old_old_by_people"]) == ("0.0", "1")
    assert (part_d["old_new_by_people"], part_d["new_new_by_people"]) == ("0", "0")
    assert float(part_d["key_change"]) == 0.0  # the judges' 2027 reading is not A&C either
    incorrect = next(
        r for r in rows if r["scenario_id"] == "topic_part_d_choice" and r["metric"] == "incorrect"
    )
    assert incorrect["old_old"] == "1.0"
    compared = list(csv.DictReader((tmp_path / "cmp" / "compare.csv").open(encoding="utf-8")))
    same = next(
        r
        for r in compared
        if r["question_group"] == "topic_part_d_choice" and r["metric"] == "rate:accurate_complete"
    )
    assert float(same["a"]) == float(part_d["old_old"])
    markdown = (tmp_path / "cmp" / "drift.md").read_text(encoding="utf-8")
    who = markdown.split("## Who decided", 1)[1].split("\n## ", 1)[0]
    assert "Old answers, old key" in who and "people's codes on 1 of 1 group(s) (1 of them blind)" in who
    assert "no people's codes in this run" in who.split("Old answers, new key", 1)[1].split("\n")[0]
    assert "the key change also holds the difference between people's codes and the judges'" in who
    assert "1 by people" in markdown
    assert "Who decided, Old answers, old key" in done.stdout
