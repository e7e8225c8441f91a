"""How fast report.html is in a browser with many trials: a run of N realistic synthetic trials
(default 2,000; benchmarks/synthetic_run.py, cached under /tmp) with every transcript in the page,
then in headless Chromium measures the page load, the transcript filters, a question-table sort,
opening a transcript and opening a drawer.

    .venv/bin/python benchmarks/report_html.py [N] [--loads K]

The page is loaded K times (default 5), each in a fresh browser; the interactions are repeated on the
last load. Prints medians and ranges, the machine and its load average before and after; asserts
nothing about time (speed is machine-dependent). Needs /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from synthetic_run import cached_run

from medeval.reporting.build import build_report
from medeval.testing.browser import CHROMIUM, Browser

NAVIGATION = (
    "(function () { var n = performance.getEntriesByType('navigation')[0]; "
    "return [n.domContentLoadedEventEnd, n.loadEventEnd]; }())"
)
# One filter change, timed to the end of its handler and to the end of the next frame (a rAF, then a
# macrotask: by then the frame's style, layout and paint are done).
FILTER = """(function (id, pick) { return new Promise(function (done) {
  var select = document.getElementById(id);
  var started = performance.now();
  select.value = typeof pick === 'number' ? select.options[pick].value : pick;
  select.dispatchEvent(new Event('change'));
  var handled = performance.now() - started;
  requestAnimationFrame(function () {
    setTimeout(function () { done([handled, performance.now() - started]); });
  });
}); })"""
FILTERS = (("f-target", 1), ("f-category", "incorrect"), ("f-group", 1), ("f-target", 0))
SORT = """(function () {
  var started = performance.now();
  document.querySelector("button.qsort[data-sort='delta']").click();
  return performance.now() - started;
}())"""
WAIT_FOR = """(function (open, ready) { return new Promise(function (done) {
  var started = performance.now();
  open();
  (function wait() {
    if (ready()) { done(performance.now() - started); } else { requestAnimationFrame(wait); }
  }());
}); })"""
TRANSCRIPT = WAIT_FOR + (
    "(function () { var t = document.querySelector('details.trial:not([open])'); t.dataset.bench = '1'; "
    "t.open = true; }, function () { return document.querySelector('details.trial[data-bench] .turn'); })"
)
DRAWER = WAIT_FOR + (
    "(function () { document.getElementById('drawer').hidden = true; "
    "document.getElementById('drawer-body').replaceChildren(); "
    "document.querySelectorAll('tr.model-row[data-drawer]')[%d].click(); }, "
    "function () { return document.querySelector('#drawer-body .d-answer'); })"
)


def spread(values: list[float]) -> str:
    return f"median {statistics.median(values):.0f} ms (range {min(values):.0f}–{max(values):.0f})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("count", nargs="?", type=int, default=2000)
    parser.add_argument("--loads", type=int, default=5)
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    before = os.getloadavg()
    with tempfile.TemporaryDirectory() as temporary:
        run_dir = cached_run(args.count)
        started = time.perf_counter()
        paths = build_report([run_dir], Path(temporary) / "report", html_trials=args.count)
        built = time.perf_counter() - started
        print(
            f"report with {args.count:,} transcripts: {paths.html.stat().st_size / 1e6:.1f} MB, "
            f"built in {built:.1f} s"
        )
        loaded: list[float] = []
        events: list[float] = []
        for attempt in range(args.loads):
            browser = Browser(Path(temporary) / f"profile{attempt}")
            try:
                if attempt == 0:
                    version = browser.send("Browser.getVersion", browser=True)["product"]
                browser.open(paths.html.as_uri())
                navigation = browser.evaluate(NAVIGATION)
                loaded.append(navigation[0])
                events.append(navigation[1])
                if attempt < args.loads - 1:
                    continue
                handled: list[float] = []
                framed: list[float] = []
                for _ in range(3):
                    for select, pick in FILTERS:
                        a, b = browser.evaluate(f"{FILTER}({select!r}, {pick!r})")
                        handled.append(a)
                        framed.append(b)
                sort = browser.evaluate(SORT)
                browser.evaluate("document.getElementById('toggle-models').click()")
                first_drawer = browser.evaluate(DRAWER % 0)
                later_drawer = browser.evaluate(DRAWER % 1)
                browser.evaluate("document.getElementById('drawer').hidden = true")
                first_transcript = browser.evaluate(TRANSCRIPT)
                later_transcript = browser.evaluate(TRANSCRIPT)
                others = [u for u in browser.requests() if not u.startswith(("file:", "data:"))]
            finally:
                browser.close()
    after = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, {version}")
    print(f"load average before {before[0]:.2f}, after {after[0]:.2f} (1 min)")
    print(f"page load over {args.loads} fresh browsers: DOMContentLoaded {spread(loaded)}")
    print(f"  load event: {spread(events)}")
    print(f"filter change ({len(handled)}: target, category, group, clear): handler {spread(handled)}")
    print(f"  to the end of the next frame: {spread(framed)}")
    print(f"sort the question table by delta A&C: {sort:.1f} ms")
    print(f"open a drawer: first (inflates its block) {first_drawer:.0f} ms, next {later_drawer:.0f} ms")
    print(
        f"open a transcript: first (inflates its block) {first_transcript:.0f} ms, "
        f"next {later_transcript:.0f} ms"
    )
    print(f"requests other than the page and data: URIs: {len(others)}")


if __name__ == "__main__":
    main()
