"""The README's seasonal re-run, run as written: two studies on two seasons' keys, then
`compare --drift` (issue 24)."""

from __future__ import annotations

import csv
import glob
import re
import shlex
from pathlib import Path

from .conftest import REPO, medeval


def readme_commands() -> list[list[str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("### The seasonal re-run", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block is not None
    lines = [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]
    return [shlex.split(line) for line in lines if line]


def test_the_seasonal_rerun_in_three_commands(tmp_path: Path) -> None:
    commands = readme_commands()
    assert [c[:2] for c in commands] == [
        ["medeval", "run"],
        ["medeval", "run"],
        ["medeval", "compare"],
        ["medeval", "report"],
    ]
    for command in commands:
        args = []
        for arg in command[1:]:
            if arg.startswith("src/"):
                arg = str(REPO / arg)  # the study files, as from the repository's root
            elif "*" in arg:
                [arg] = glob.glob(str(tmp_path / arg))
            args.append(arg)
        done = medeval(*args, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    [drift] = glob.glob(str(tmp_path / "runs" / "2027" / "*" / "compare" / "drift.csv"))
    rows = list(csv.DictReader(Path(drift).read_text(encoding="utf-8").splitlines()))
    assert rows and all(float(r["model_change"]) == 0.0 for r in rows)
    accurate = next(r for r in rows if r["target"] == "fake:accurate" and r["scenario_id"] == "ALL")
    assert float(accurate["key_change"]) < 0
    # One report of both seasons: side by side, and the headline never pools them.
    [report] = glob.glob(str(tmp_path / "runs" / "2026" / "*" / "report"))
    seasons = list(csv.DictReader((Path(report) / "seasons.csv").read_text(encoding="utf-8").splitlines()))
    assert {(r["earlier_season"], r["later_season"]) for r in seasons} == {("2026", "2027")}
    markdown = (Path(report) / "report.md").read_text(encoding="utf-8")
    assert "| fake:accurate (2026 keys) |" in markdown and "| fake:accurate (2027 keys) |" in markdown


def test_the_demo_runs_one_season_and_keys_status_reads_every_season(tmp_path: Path) -> None:
    done = medeval("demo", "--season", "2027", "--out", str(tmp_path / "runs"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [manifest] = glob.glob(str(tmp_path / "runs" / "*" / "manifest.json"))
    text = Path(manifest).read_text(encoding="utf-8")
    assert "v2027" in text and "scenarios/v1/" not in text
    status = medeval("keys", "status", cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    assert "Pending values" in status.stdout and "ship_medicare_only@2027 PARTB_PREMIUM_2027" in status.stdout
    assert "ship_medicare_only@2026" in status.stdout  # the 2026 season's old sources are listed too
