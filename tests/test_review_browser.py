"""The coding page in a real browser (headless Chromium, when installed): a coder picks categories
and item codes, presses "Download codes", and the downloaded file imports into the run.

The browser is driven over the DevTools protocol on a pipe (--remote-debugging-pipe), so the test
waits on the browser's own events (page loaded, download completed), never on a clock.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path
from typing import Any

import pytest

from medeval.audit import verify_run
from medeval.reporting.build import build_report
from medeval.review.export import make_export, write_export
from medeval.review.importing import import_codes

from .review_support import flip, fresh_copy, make_demo_run, read_csv

CHROMIUM = Path(os.environ.get("MEDEVAL_TEST_CHROMIUM", "/usr/bin/chromium"))
WAIT = 90.0  # seconds without any message from the browser before the test gives up


class DevTools:
    """The DevTools protocol over the pipe pair Chromium reads on fd 3 and writes on fd 4."""

    def __init__(self, profile: Path) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire() -> None:
            # Move both ends out of the way first, so dup2 onto 3 and 4 cannot clobber either.
            high_r, high_w = os.dup(to_browser_r) + 100, os.dup(from_browser_w) + 100
            os.dup2(to_browser_r, high_r)
            os.dup2(from_browser_w, high_w)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.process = subprocess.Popen(
            [
                str(CHROMIUM),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,  # the pipe must sit on fds 3 and 4 in the child
            close_fds=False,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> int:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        return self._next

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._from_browser], [], [], WAIT)
            if not ready:
                raise AssertionError("the browser sent nothing for 90 s")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise AssertionError("the browser closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        ident = self.send(method, params, session)
        while True:
            message = self._read()
            if message.get("id") == ident:
                assert "error" not in message, message
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str, **match: Any) -> dict[str, Any]:
        def hit(event: dict[str, Any]) -> bool:
            params = event.get("params", {})
            return event.get("method") == method and all(params.get(k) == v for k, v in match.items())

        for event in self.events:
            if hit(event):
                self.events.remove(event)
                return event
        while True:
            message = self._read()
            if hit(message):
                return message
            self.events.append(message)

    def close(self) -> None:
        try:
            self.send("Browser.close")
            self.process.wait(timeout=WAIT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            os.close(self._to_browser)
            os.close(self._from_browser)


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
    browser = DevTools(tmp_path / "profile")
    try:
        browser.call(
            "Browser.setDownloadBehavior",
            {"behavior": "allow", "downloadPath": str(downloads), "eventsEnabled": True},
        )
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        browser.call("Page.enable", session=session)
        browser.call("Page.navigate", {"url": paths.html.as_uri()}, session=session)
        browser.wait_for("Page.loadEventFired")
        shown = browser.call(
            "Runtime.evaluate",
            {"expression": CODE_THE_PAGE % json.dumps(plan), "returnByValue": True},
            session=session,
        )
        assert shown["result"]["value"] == f"4 of {len(export.items)} coded"
        browser.wait_for("Browser.downloadProgress", state="completed")
    finally:
        browser.close()

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
