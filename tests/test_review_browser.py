"""The coding page in a real browser (headless Chromium, when installed): a coder picks categories
and item codes, presses "Download codes", and the downloaded file imports into the run.

The browser is the shared DevTools driver (medeval.testing.browser), so the test waits on the
browser's own events (page loaded, download completed), never on a clock.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medeval.records.audit import verify_run
from medeval.reporting.build import build_report
from medeval.review.export import make_export, write_export
from medeval.review.importing import import_codes
from medeval.testing.browser import CHROMIUM, Browser

from .review_support import flip, fresh_copy, make_demo_run, read_csv

CODE_THE_PAGE = """
(() => {
  const plan = %s;
  document.getElementById("coder").value = "carol";
  document.getElementById("coder").dispatchEvent(new Event("input", {bubbles: true}));
  for (const [itemId, category, fact] of plan) {
    const sections = Array.from(document.querySelectorAll("section.item"));
    const section = sections.find(s => s.dataset.itemId === itemId);
    section.querySelector(`input.category[value="${category}"]`).click();
    const select = section.querySelector(`select.item-code[data-fact="${fact}"]`);
    select.value = "covered";
    select.dispatchEvent(new Event("change", {bubbles: true}));
    const note = section.querySelector("textarea.note");
    note.value = "coded in the browser test";
    note.dispatchEvent(new Event("input", {bubbles: true}));
  }
  const progress = document.getElementById("progress").textContent;
  document.getElementById("download").click();
  return progress;
})()
"""


@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"chromium is not installed at {CHROMIUM}")
def test_a_coder_codes_in_the_browser_and_the_download_imports(tmp_path: Path) -> None:
    run_dir = fresh_copy(make_demo_run(tmp_path / "source"), tmp_path / "runs")
    export = make_export(run_dir, 0.2, 11, blind=False)
    paths = write_export(export, tmp_path / "page.html")
    assert len(read_csv(paths.csv)) == len(export.items)
    chosen = [i for i in export.items if i.selection == "audit"][:4]
    # Two as the judges coded them, two changed: the downloaded file is what gets imported.
    plan = [
        [item.item_id, flip(item.judge_category) if n < 2 else item.judge_category, item.facts[0].fact_id]
        for n, item in enumerate(chosen)
    ]
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    with Browser(tmp_path / "profile") as browser:
        browser.send(
            "Browser.setDownloadBehavior",
            {"behavior": "allow", "downloadPath": str(downloads), "eventsEnabled": True},
            browser=True,
        )
        browser.open(paths.html.as_uri())
        assert browser.evaluate(CODE_THE_PAGE % json.dumps(plan)) == f"4 of {len(export.items)} coded"
        browser.wait_for("Browser.downloadProgress", state="completed")

    saved = list(downloads.iterdir())
    assert [p.name for p in saved] == [f"codes-{export.run_id}-{export.export_id}.json"]
    body = json.loads(saved[0].read_text(encoding="utf-8"))
    assert body["coder"] == "carol" and body["export_id"] == export.export_id
    assert [[e["item_id"], e["category"], next(iter(e["item_codes"]))] for e in body["items"]] == plan
    assert all(e["note"] == "coded in the browser test" for e in body["items"])

    result = import_codes(run_dir, saved[0], "carol")
    assert result.items_coded == 4
    assert [f.severity for f in verify_run(run_dir)] == ["ok"]
    markdown = build_report([run_dir], tmp_path / "report").markdown.read_text(encoding="utf-8")
    assert "4 question group(s) were decided by people" in markdown
    assert "2 of them differ from the judges' category" in markdown
