"""How fast report.html is in a browser with many trials: writes N synthetic trials (default 2,000)
with every transcript in the page, then in headless Chromium measures the page load, a transcript
filter, a question-table sort and opening a drawer.

    .venv/bin/python benchmarks/report_html.py [N]

Prints figures; asserts nothing about time (speed is machine-dependent). Needs /usr/bin/chromium.
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

from report_scale import TARGETS, synthetic_trial

from medeval.reporting.build import build_report
from medeval.testing.browser import CHROMIUM, Browser

FILTER = """new Promise(function (done) {
  var select = document.getElementById('f-target');
  var started = performance.now();
  select.value = select.options[1].value;
  select.dispatchEvent(new Event('change'));
  var filtered = performance.now() - started;
  requestAnimationFrame(function () { done([filtered, performance.now() - started]); });
})"""
SORT = """(function () {
  var started = performance.now();
  document.querySelector("button.qsort[data-sort='delta']").click();
  return performance.now() - started;
}())"""
DRAWER = """new Promise(function (done) {
  document.getElementById('toggle-models').click();
  var started = performance.now();
  document.querySelector('tr.model-row[data-drawer]').click();
  (function wait() {
    if (document.querySelector('#drawer-body .d-answer')) { done(performance.now() - started); }
    else { requestAnimationFrame(wait); }
  }());
})"""


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    if not CHROMIUM.exists():
        sys.exit(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
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
        with (run_dir / "results.jsonl").open("w", encoding="utf-8") as handle:
            for index in range(count):
                handle.write(json.dumps(synthetic_trial(index, rng)) + "\n")
        started = time.perf_counter()
        paths = build_report([run_dir], html_trials=count)
        size = paths.html.stat().st_size / 1e6
        built = time.perf_counter() - started
        print(f"report with {count:,} transcripts: {size:.1f} MB, built in {built:.1f} s")
        with Browser(Path(temporary) / "profile") as browser:
            started = time.perf_counter()
            browser.open(paths.html.as_uri())
            wall = time.perf_counter() - started
            navigation = browser.evaluate(
                "(function () { var n = performance.getEntriesByType('navigation')[0]; "
                "return [n.domContentLoadedEventEnd, n.loadEventEnd]; }())"
            )
            print(
                f"load: DOMContentLoaded {navigation[0]:.0f} ms, load event {navigation[1]:.0f} ms "
                f"(wall clock with browser start-up {wall:.1f} s)"
            )
            filtered, painted = browser.evaluate(FILTER)
            print(f"filter transcripts by target: {filtered:.0f} ms (to the next frame {painted:.0f} ms)")
            print(f"sort the question table by delta A&C: {browser.evaluate(SORT):.1f} ms")
            print(f"open a drawer (first open inflates its data): {browser.evaluate(DRAWER):.0f} ms")
            others = [u for u in browser.requests() if not u.startswith(("file:", "data:"))]
            print(f"requests other than the page and data: URIs: {len(others)}")


if __name__ == "__main__":
    main()
