"""How `medeval report` scales: time and peak memory at 10,000 and 100,000 realistic trials.

The runs come from benchmarks/synthetic_run.py (real demo trials, varied; cached under
/tmp/medeval-report-bench, built on first use). Each report is built in a fresh child process, so
its peak memory (ru_maxrss) is its own.

    .venv/bin/python benchmarks/report_scale.py [SIZE ...]     # default: 10000 100000

Prints figures and the ratios largest/smallest; asserts nothing (speed is machine-dependent).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from synthetic_run import cached_run


def child(run_dir: Path, out: Path) -> None:
    """Build one report and print its figures as JSON (run in a fresh process)."""
    from medeval.reporting.build import build_report

    started = time.perf_counter()
    cpu = time.process_time()
    paths = build_report([run_dir], out)
    figures = {
        "seconds": time.perf_counter() - started,
        "cpu_seconds": time.process_time() - cpu,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "markdown_kb": paths.markdown.stat().st_size / 1024,
        "html_mb": paths.html.stat().st_size / 1e6,
        "integrity": len(paths.integrity),
    }
    print(json.dumps(figures))


def measure(run_dir: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as temporary:
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(run_dir), str(Path(temporary) / "report")],
            capture_output=True,
            text=True,
        )
    if done.returncode:
        sys.exit(f"the report failed:\n{done.stderr}")
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(Path(sys.argv[2]), Path(sys.argv[3]))
        return
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 100_000]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    results = {}
    for size in sizes:
        started = time.perf_counter()
        run_dir = cached_run(size)
        built = time.perf_counter() - started
        megabytes = (run_dir / "results.jsonl").stat().st_size / 1e6
        print(
            f"run of {size:,} trials: {megabytes:,.0f} MB of results.jsonl "
            f"({built:.0f} s to get) in {run_dir}"
        )
        results[size] = measure(run_dir)
        f = results[size]
        print(
            f"  report: {f['seconds']:.1f} s wall, {f['cpu_seconds']:.1f} s CPU, "
            f"peak {f['peak_mib']:.0f} MiB; "
            f"report.md {f['markdown_kb']:.0f} kB, report.html {f['html_mb']:.1f} MB, "
            f"integrity warnings {f['integrity']:.0f}"
        )
    if len(sizes) > 1:
        small, large = min(sizes), max(sizes)
        a, b = results[small], results[large]
        print(
            f"ratio {large:,}/{small:,} trials ({large / small:.0f}x): "
            f"time {b['seconds'] / a['seconds']:.2f}, "
            f"memory {b['peak_mib'] / a['peak_mib']:.2f}"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
