"""`medeval report A B` with runs on two seasons' keys: a season-over-season section (report.md,
report.html, seasons.csv) per target and question group, and a headline that never pools the
seasons (issue 24, step 5)."""

from __future__ import annotations

import base64
import csv
import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest

from medeval.testing.browser import CHROMIUM, Browser

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


def _embedded(html: str) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """The drawer's facts, every drawer entry, and the transcripts' fact glossary, as the page
    embeds them (a compressed block inflated as the page's script does)."""
    facts = json.loads(re.search(r'id="drawer-facts">(.*?)</script>', html, re.DOTALL).group(1))  # type: ignore[union-attr]
    entries: list[dict[str, Any]] = []
    for encoding, payload in re.findall(
        r'class="drawer-data" data-group="[^"]*" data-encoding="([^"]+)">(.*?)</script>', html, re.DOTALL
    ):
        text = gzip.decompress(base64.b64decode(payload)).decode() if encoding == "gzip-base64" else payload
        for rows in json.loads(text.replace("<\\/", "</")).values():
            entries += rows
    glossary = json.loads(re.search(r'id="fact-data">(.*?)</script>', html, re.DOTALL).group(1))  # type: ignore[union-attr]
    return facts, entries, glossary


def test_each_answer_is_shown_beside_the_key_it_was_judged_with(both: Path) -> None:
    """Both seasons' keys share scenario ids: the drawer and the transcripts read each trial's facts
    from the key its trial recorded, never the first run's (issue 24)."""
    html = (both / "report.html").read_text(encoding="utf-8")
    facts, entries, glossary = _embedded(html)
    # The failure lists count each key apart and name its version where both seasons are listed.
    failures = section((both / "report.md").read_text(encoding="utf-8"), "Common failure modes")
    assert "| ship_medicare_only (version 2027.5.16) |" in failures.split("### Most-missed", 1)[1]
    by_version = {e["version"]: e for e in entries if e["scenario"] == "topic_part_d_choice"}
    assert set(by_version) == {"1.0.0", "2027.1.0"}
    later, earlier = by_version["2027.1.0"], by_version["1.0.0"]
    assert later["key"] != earlier["key"]
    cap_2027 = facts[later["key"]]["PARTD_CAP_2027"][0]
    assert "$2,400" in cap_2027 and "unavailable" not in cap_2027
    assert "PARTD_CAP_2026" not in facts[later["key"]]
    assert "$2,100 a year" in facts[earlier["key"]]["PARTD_CAP_2026"][0]
    assert "PARTD_CAP_2027" not in facts[earlier["key"]]
    # A fact id in both keys with different text: each season's trials get their own key's text.
    ship = {e["version"]: e["key"] for e in entries if e["scenario"] == "ship_medicare_only"}
    assert "the 2027 amount is pending" in facts[ship["2027.5.16"]]["TM_PARTB_COSTS"][0]
    assert "pending" not in facts[ship["1.4.16"]]["TM_PARTB_COSTS"][0]
    # The transcripts' fact lists name the same keys, and their glossary holds each key's own text.
    assert {later["key"], earlier["key"], *ship.values()} <= glossary.keys()
    for key, known in glossary.items():
        season = "2027" if key in (later["key"], ship["2027.5.16"]) else "2026"
        for fact_id, (text, _) in known.items():
            assert "unavailable" not in text, (key, fact_id)
            if fact_id.startswith("PARTD_CAP_"):
                assert fact_id.endswith(season)


def test_the_drawer_in_a_browser_shows_each_season_its_own_key(both: Path) -> None:
    if not CHROMIUM.exists():
        pytest.skip("chromium is not installed at /usr/bin/chromium")
    row = "tr.model-row[data-drawer='topic|topic_part_d_choice|fake:accurate']"
    wait = (
        "new Promise(function (done) { var box = document.getElementById('drawer-body');"
        " (function wait() { if (box.querySelector('.d-answer')"
        " && box.innerText.indexOf('key version %s') >= 0) { done(box.innerText); }"
        " else { requestAnimationFrame(wait); } }()); })"
    )
    with Browser(both.parent / "profile") as browser:
        browser.open((both / "report.html").as_uri())
        browser.evaluate(
            f'document.querySelector("{row}").closest("tbody").querySelector("button.expand").click()'
        )
        browser.click(row)
        tabs = browser.evaluate(
            "Array.from(document.querySelectorAll('#drawer-tabs .d-tab'))"
            ".map(function (t) { return t.textContent; })"
        )
        assert sorted(tabs) == ["Epoch 1 · key 1.0.0", "Epoch 1 · key 2027.1.0"]
        shown = {}
        for position, tab in enumerate(tabs, start=1):  # by script: a click at the
            # second tab's coordinates missed it here
            browser.evaluate(f"document.querySelectorAll('#drawer-tabs .d-tab')[{position - 1}].click()")
            shown[tab] = browser.evaluate(wait % tab.rsplit(" ", 1)[1])
    later, earlier = shown["Epoch 1 · key 2027.1.0"], shown["Epoch 1 · key 1.0.0"]
    assert "key version 2027.1.0" in later and "capped at $2,400 a year" in later
    assert "key version 1.0.0" in earlier and "capped at $2,100 a year" in earlier
    assert "$2,400" not in earlier and "unavailable" not in later + earlier
