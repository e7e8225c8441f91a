"""report.html rendered by a real browser (Debian's chromium, headless), when one is installed."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from medeval.reporting.build import build_report
from medeval.reporting.render import drawer
from medeval.reporting.render import html as html_module
from medeval.schemas import ShipCategory
from medeval.testing.browser import CHROMIUM, Browser

from .test_report_support import make_record, write_run, write_scenario


def render(page: Path, profile: Path, *extra: str, fragment: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            *extra,
            page.as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def test_browser_renders_summary_table_and_highlighted_claim(tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.skip("chromium is not installed at /usr/bin/chromium")
    scenario = write_scenario(tmp_path)
    records = [
        make_record(
            "runb", 1, "fake:a", {"QG1": ShipCategory.ACCURATE_COMPLETE, "QG12": ShipCategory.INCORRECT}
        ),
        make_record("runb", 2, "fake:b", {"QG1": ShipCategory.SUBSTANTIVE_INCOMPLETE}),
    ]
    paths = build_report([write_run(tmp_path / "runs", "runb", records, scenario_paths=[scenario])])
    done = render(paths.html, tmp_path / "profile", "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    # The DOM after the script ran: the filter counter is filled in by JavaScript.
    assert "2 of 2 trials" in dom
    summary = re.search(r'<table id="summary-table">(.*?)</table>', dom, flags=re.DOTALL)
    assert summary is not None
    assert "fake:a" in summary.group(1) and "fake:b" in summary.group(1)
    assert re.search(
        r'<mark class="v-contradicted"[^>]*>Wrong: Medicare pays for everything forever\.</mark>', dom
    )
    # Opening a trial (here by its link) fills in the cited and missed facts with text and source.
    opened = render(paths.html, tmp_path / "profile3", "--dump-dom", fragment="#t1").stdout
    assert re.search(
        r"<strong>F_LTC</strong>: Medicare does not cover long-term custodial care\.<span", opened
    )
    assert "Missed required point <strong>F_LTC</strong>" in opened
    assert "Source: Medicare &amp; You 2026, fixture section" in opened
    shot = tmp_path / "page.png"
    done = render(paths.html, tmp_path / "profile2", f"--screenshot={shot}", "--window-size=1200,900")
    assert done.returncode == 0 and shot.read_bytes()[:4] == b"\x89PNG"


def browser_report(tmp_path: Path) -> Path:
    """Two targets on three study groups, two epochs each: enough to sort, expand and open."""
    scenario = write_scenario(tmp_path)
    plan = {
        "fake:a": {
            "QG1": ShipCategory.ACCURATE_COMPLETE,
            "QG9": ShipCategory.INCORRECT,
            "QG12": ShipCategory.ACCURATE_COMPLETE,
        },
        "fake:b": {
            "QG1": ShipCategory.SUBSTANTIVE_INCOMPLETE,
            "QG9": ShipCategory.ACCURATE_COMPLETE,
            "QG12": ShipCategory.INCORRECT,
        },
    }
    records = []
    for target, categories in plan.items():
        for epoch in (1, 2):
            records.append(make_record("runc", len(records) + 1, target, categories, epoch=epoch))
    records[0].conversation[1].text = "**Yes**, that is covered <script>alert(1)</script> correctly here."
    run_dir = write_run(tmp_path / "runs", "runc", records, scenario_paths=[scenario])
    return build_report([run_dir]).html


needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="chromium is not installed at /usr/bin/chromium"
)


@needs_chromium
def test_headline_is_above_the_fold_and_the_page_asks_for_nothing(tmp_path: Path) -> None:
    page = browser_report(tmp_path)
    with Browser(tmp_path / "profile") as browser:
        browser.open(page.as_uri())
        bottom = browser.evaluate(
            "document.getElementById('headline-sentence').getBoundingClientRect().bottom"
        )
        assert 0 < bottom <= 1000
        text = browser.evaluate("document.getElementById('headline-study').innerText")
        assert "SHIP counselors, combined" in text and "fake:a" in text and " pp" in text
        # The collapsed question table of the script fits one screen.
        height = browser.evaluate("document.querySelector('table.qtable').getBoundingClientRect().height")
        assert 0 < height <= 1000
        # Open a drawer too, so a lazily loaded part would have asked by now.
        browser.evaluate("document.getElementById('toggle-models').click()")
        browser.click("tr.model-row[data-drawer]")
        assert browser.evaluate("!document.getElementById('drawer').hidden")
        requests = browser.requests()
    assert requests and requests[0] == page.as_uri()
    assert all(url == page.as_uri() or url.startswith("data:") for url in requests), requests


@needs_chromium
def test_question_table_sorts_both_ways_and_shows_the_active_sort(tmp_path: Path) -> None:
    page = browser_report(tmp_path)
    bodies = "Array.from(document.querySelectorAll('table.qtable tbody.qgroup'))"
    order = bodies + ".map(b => b.querySelector('strong').textContent)"
    deltas = bodies + ".map(b => parseFloat(b.dataset.delta))"
    with Browser(tmp_path / "profile") as browser:
        browser.open(page.as_uri())
        assert browser.evaluate(order) == ["QG1", "QG9", "QG12"]
        browser.click("button.qsort[data-sort='delta']")
        descending = browser.evaluate(deltas)
        assert descending == sorted(descending, reverse=True)
        assert (
            browser.evaluate("document.getElementById('qsort-state').textContent")
            == "sorted by Δ A&C, descending"
        )
        assert (
            browser.evaluate(
                "document.querySelector(\"button.qsort[data-sort='delta']\").getAttribute('aria-pressed')"
            )
            == "true"
        )
        browser.click("button.qsort[data-sort='delta']")
        ascending = browser.evaluate(deltas)
        assert ascending == sorted(ascending) and ascending != descending
        browser.click("button.qsort[data-sort='order']")
        assert browser.evaluate(order) == ["QG1", "QG9", "QG12"]


@needs_chromium
@pytest.mark.parametrize("compressed", [False, True])
def test_drawer_opens_on_a_model_row_and_closes_on_escape_keeping_the_scroll(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compressed: bool
) -> None:
    if compressed:
        monkeypatch.setattr(drawer, "COMPRESS_OVER", 0)  # the on-demand gzip block, even for a small page
    page = browser_report(tmp_path)
    assert ('data-encoding="gzip-base64"' in page.read_text(encoding="utf-8")) == compressed
    with Browser(tmp_path / "profile") as browser:
        browser.open(page.as_uri())
        assert browser.evaluate("getComputedStyle(document.querySelector('tr.model-row')).display") == "none"
        browser.click("tbody.qgroup button.expand")
        browser.click("tr.model-row[data-drawer='medicare_only|QG1|fake:a']")
        scroll = browser.evaluate("window.scrollY")
        body = browser.evaluate(
            "new Promise(function (done) { var box = document.getElementById('drawer-body');"
            " (function wait() { if (box.querySelector('.d-answer')) { done(box.innerHTML); }"
            " else { requestAnimationFrame(wait); } }()); })"
        )
        assert not browser.evaluate("document.getElementById('drawer').hidden")
        # The verbatim answer as safe Markdown with its claim highlighted; the script tag is text.
        assert "<strong>Yes</strong>" in body and "&lt;script&gt;" in body and "<script>" not in body
        assert 'class="v-supported"' in body
        assert "Checklist items covered" in body and "Medicare &amp; You 2026, fixture section" in body
        # Each checklist item and each cited fact with its text, the answer key's source and date;
        # each verifier's label on the claim beside the facts it cites.
        covered = body.split("Checklist items covered")[1].split("</ul>")[0]
        assert "<strong>F_IEP</strong>: You can sign up in the 7-month Initial Enrollment Period" in covered
        assert "Source: Medicare &amp; You 2026, fixture section (effective 2026-01-01)" in covered
        claims = body.split('class="d-claims"')[1]
        assert re.search(r'#1 rules: <span class="label-SUPPORTED">SUPPORTED</span> \(F_IEP\)', claims)
        cited = claims.split('class="d-facts"')[1]
        assert "<strong>F_IEP</strong>: You can sign up" in cited and "(effective 2026-01-01)" in cited
        assert browser.evaluate("document.querySelectorAll('#drawer-tabs .d-tab').length") == 2  # two epochs
        browser.click("#drawer-tabs .d-tab:nth-child(2)")
        assert (
            browser.evaluate(
                "document.querySelector('#drawer-tabs .d-tab:nth-child(2)').getAttribute('aria-selected')"
            )
            == "true"
        )
        browser.key("Escape", 27)
        assert browser.evaluate("document.getElementById('drawer').hidden")
        assert browser.evaluate("window.scrollY") == scroll
        # A click outside the drawer closes it too.
        browser.click("tr.model-row[data-drawer='medicare_only|QG1|fake:b']")
        assert not browser.evaluate("document.getElementById('drawer').hidden")
        browser.click_at(20, 500)
        assert browser.evaluate("document.getElementById('drawer').hidden")


@needs_chromium
def test_large_pages_load_transcripts_from_the_compressed_block_on_demand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(html_module, "LAZY_OVER", 0)  # every body goes into the compressed blocks
    monkeypatch.setattr(html_module, "BODY_CHUNK", 2)  # t1-t2 in block 0, t3-t4 in block 1
    page = browser_report(tmp_path)
    text = page.read_text(encoding="utf-8")
    assert text.count('class="trial-data" data-chunk="') == 2
    assert 'class="trial-data" data-chunk="1" data-encoding="gzip-base64"' in text
    assert '<div class="turn' not in text
    with Browser(tmp_path / "profile") as browser:
        browser.open(page.as_uri())
        assert (
            browser.evaluate("document.querySelectorAll('details.trial .trial-body[data-lazy]').length") == 4
        )
        # The summary's own click (what a reader's click runs); this test is about the lazy body.
        browser.evaluate("document.querySelector('details.trial:nth-of-type(3) > summary').click()")
        assert browser.evaluate("document.querySelector('details.trial:nth-of-type(3)').open")
        body = browser.evaluate(
            "new Promise(function (done) {"
            " var trial = document.querySelector('details.trial:nth-of-type(3)');"
            " (function wait() { if (trial.querySelector('.turn')) { done(trial.innerHTML); }"
            " else { requestAnimationFrame(wait); } }()); })"
        )
    assert 'class="v-contradicted"' in body and "Wrong: Medicare pays for everything forever." in body
    assert "Source: Medicare &amp; You 2026, fixture section" in body  # the facts filled in after inflating


@needs_chromium
def test_review_chips_are_visible_and_a_target_all_in_review_keeps_its_row(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path)
    groups = {"QG1": ShipCategory.ACCURATE_COMPLETE, "QG9": ShipCategory.INCORRECT}
    records = [make_record("rund", 1, "fake:a", groups), make_record("rund", 2, "fake:b", groups)]
    # Every answer of fake:b awaits people: it was asked, so it stays in the table, outside n.
    records[1] = records[1].model_copy(
        update={
            "groups": [
                g.model_copy(update={"ship_category": ShipCategory.NEEDS_REVIEW}) for g in records[1].groups
            ]
        }
    )
    page = build_report([write_run(tmp_path / "runs", "rund", records, scenario_paths=[scenario])]).html
    chip = "document.querySelector('#trials .badge.needs_review')"
    with Browser(tmp_path / "profile") as browser:
        browser.open(page.as_uri())
        browser.evaluate("document.getElementById('toggle-models').click()")
        rows = browser.evaluate(
            "Array.from(document.querySelectorAll('tr.model-row'))"
            ".map(r => r.innerText.replace(/\\s+/g, ' '))"
        )
        assert any(r.startswith("fake:b n=0") and "1 in review: 100% outside n" in r for r in rows), rows
        pooled = browser.evaluate("document.querySelector('tbody.qgroup .badge.outside').innerText")
        assert pooled == "1 in review: 50% outside n"
        assert browser.evaluate(chip + ".textContent").endswith("Needs review")
        style = browser.evaluate(
            f"(() => {{ const s = getComputedStyle({chip}); return [s.backgroundColor, s.color]; }})()"
        )
    background, text = style
    assert background not in ("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)"), style
    # Dark text on the light fill: the label reads, whatever the colour.
    assert sum(int(v) for v in re.findall(r"\d+", text)[:3]) < 200, style
