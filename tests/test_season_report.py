"""`medeval report A B` with runs on two seasons' keys: a season-over-season section (report.md,
report.html, seasons.csv) per target and question group, and a headline that never pools the
seasons (issue 24, step 5)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from .conftest import REPO, medeval, only_run

SCENARIOS = ("topic_part_d_choice.json", "ship_medicare_only.json")
TARGETS = ("fake:accurate", "fake:incomplete", "fake:outdated", "fake:invented", "fake:refusal")


def season_run(folder: str, out: Path) -> Path:
    args = [a for name in SCENARIOS for a in ("-s", str(REPO / "scenarios" / folder / name))]
    args += [a for target in TARGETS for a in ("-t", target)]
    done = medeval("run", *args, "--out", str(out / folder), "-q", cwd=out)
    assert done.returncode == 0, done.stderr
    return only_run(out / folder)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    out = tmp_path_factory.mktemp("seasons")
    return season_run("v1", out), season_run("v2027", out), out


def report(out: Path, name: str, *run_dirs: Path) -> Path:
    """`medeval report` of the runs into out/NAME: that folder."""
    done = medeval("report", *map(str, run_dirs), "--out", str(out / name), cwd=out)
    assert done.returncode == 0, done.stderr
    return out / name


@pytest.fixture(scope="module")
def both(runs: tuple[Path, Path, Path]) -> Path:
    """One report of both seasons' runs, for every test that reads one."""
    old, new, out = runs
    return report(out, "both", old, new)


def section(markdown: str, heading: str) -> str:
    return markdown.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]


def test_a_report_of_two_seasons_sets_them_side_by_side(both: Path) -> None:
    markdown = (both / "report.md").read_text(encoding="utf-8")
    seasons = section(markdown, "Season over season: 2026 keys and 2027 keys")
    assert "v1 folder, version 1.0.0" in seasons and "v2027 folder, version 2027.1.0" in seasons
    assert "--drift" in seasons and "| fake:accurate | A&C |" in seasons
    rows = list(csv.DictReader((both / "seasons.csv").open(encoding="utf-8")))
    assert {r["target"] for r in rows} == set(TARGETS)
    assert {(r["earlier_season"], r["later_season"]) for r in rows} == {("2026", "2027")}
    # The same answers, read with the 2027 key: the 2026 cap stated as current is no longer A&C.
    part_d = next(
        r
        for r in rows
        if r["target"] == "fake:accurate"
        and r["scenario_id"] == "topic_part_d_choice"
        and r["category"] == "accurate_complete"
    )
    assert (part_d["earlier_rate"], part_d["later_rate"], part_d["difference"]) == ("1.0", "0.0", "-1.0")
    assert float(part_d["difference_low"]) <= -1.0 <= float(part_d["difference_high"])  # Newcombe
    assert part_d["earlier_n"] == part_d["later_n"] == "1"
    pooled = [r for r in rows if r["scenario_id"] == "ALL" and r["target"] == "fake:refusal"]
    assert {r["category"] for r in pooled} == {
        "accurate_complete",
        "substantive_incomplete",
        "not_substantive",
        "incorrect",
    }
    assert next(r for r in pooled if r["category"] == "not_substantive")["difference"] == "0.0"
    html = (both / "report.html").read_text(encoding="utf-8")
    assert 'id="seasons-2026-2027"' in html and "v2027 folder" in html
    assert "medeval compare EARLIER_RUN LATER_RUN --drift separates" in html  # plain text, no backticks


def test_the_headline_of_two_seasons_has_a_row_per_season(both: Path) -> None:
    headline = section((both / "report.md").read_text(encoding="utf-8"), "Headline")
    for target in TARGETS:
        assert f"| {target} (2026 keys) |" in headline and f"| {target} (2027 keys) |" in headline
        assert f"| {target} |" not in headline  # never one row pooling both seasons
    assert "judged with 2 seasons' keys (2026, 2027)" in headline and "never pooled" in headline
    paper = (both / "headline.csv").read_text(encoding="utf-8")
    assert "fake:accurate (2026 keys)" in paper and "fake:accurate (2027 keys)" in paper


def test_a_report_of_one_season_has_no_season_section(runs: tuple[Path, Path, Path]) -> None:
    _, new, out = runs
    one = report(out, "one", new)
    markdown = (one / "report.md").read_text(encoding="utf-8")
    assert "Season over season" not in markdown and "(2027 keys)" not in markdown
    assert not (one / "seasons.csv").exists()
