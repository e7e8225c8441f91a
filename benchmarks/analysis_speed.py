"""The analysis path's speed: `medeval query` and `medeval export` on a synthetic run, beside DuckDB
reading results.jsonl directly (issue 27.3).

For each size (default 10,000 trials) it prints, as one line each and then as JSON:
- direct: a fresh python process that has DuckDB read results.jsonl and count the groups'
  categories (the floor: no integrity check, no tables, no people's codes);
- first query: `medeval query` on the run with no cached tables (integrity check, tables built);
- repeated query: the same query again (the tables and the check are cached);
- export: `medeval export --format parquet` with the tables cached;
with each one's wall time and peak memory (the process's maximum resident set size).

    .venv/bin/python benchmarks/analysis_speed.py            # 10,000 trials
    .venv/bin/python benchmarks/analysis_speed.py 10000 100000

Runs are built by synthetic_run.py and cached under /tmp/medeval-report-bench.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from synthetic_run import cached_run

QUERY = "select ship_category, count(*) as n from groups group by 1 order by 1"
#: Runs a command in this interpreter and prints its peak memory (KiB) last, on stderr.
PEAK = (
    "import resource, runpy, sys\n"
    "sys.argv = sys.argv[1:]\n"
    "try:\n"
    "    runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)\n"
    "finally:\n"
    "    usage = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    print('peak_kib', usage.ru_maxrss, usage.ru_utime + usage.ru_stime, file=sys.stderr)\n"
)
DIRECT = (
    "import sys, duckdb\n"
    "con = duckdb.connect()\n"
    'print(con.execute("select g.ship_category, count(*) from (select unnest(groups) as g from "\n'
    "    f\"read_ndjson('{sys.argv[1]}', maximum_object_size=100000000)) group by 1\").fetchall())\n"
)


def timed(args: list[str], *, script: bool = False) -> tuple[float, float, float]:
    """Wall seconds, peak MiB and CPU seconds of one child process: a module (`medeval ...`) or a
    script file."""
    code = PEAK.replace(
        "run_module(sys.argv[0], run_name='__main__', alter_sys=True)", "run_path(sys.argv[0])"
    )
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code if script else PEAK, *args], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"{' '.join(args)} failed:\n{done.stderr}")
    peak, cpu = next(
        (int(line.split()[1]), float(line.split()[2]))
        for line in reversed(done.stderr.splitlines())
        if line.startswith("peak_kib")
    )
    return seconds, peak / 1024, cpu


def measure(count: int) -> dict[str, float]:
    run_dir = cached_run(count)
    shutil.rmtree(run_dir / ".cache", ignore_errors=True)
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "direct.py"
        script.write_text(DIRECT, encoding="utf-8")
        direct = timed([str(script), str(run_dir / "results.jsonl")], script=True)
        # --allow-damaged: a cached synthetic run names the scenario files of the checkout it was
        # built from, which may have changed since; the integrity check runs in full either way.
        first = timed(["medeval", "query", QUERY, str(run_dir), "--allow-damaged"])
        repeated = timed(["medeval", "query", QUERY, str(run_dir), "--allow-damaged"])
        out = str(Path(scratch) / "tables")
        export = timed(["medeval", "export", str(run_dir), "--out", out, "--allow-damaged"])
    figures: dict[str, float] = {"trials": count}
    for name, (wall, mib, cpu) in (
        ("direct", direct),
        ("first_query", first),
        ("repeated_query", repeated),
        ("export", export),
    ):
        figures |= {f"{name}_s": wall, f"{name}_mib": mib, f"{name}_cpu_s": cpu}
    return {k: round(v, 2) for k, v in figures.items()}


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [10_000]
    for count in sizes:
        f = measure(count)
        ratio = f["first_query_s"] / f["direct_s"]
        print(f"{count:>7} trials (first query {ratio:.2f}x direct DuckDB's wall time):")
        for name in ("direct", "first_query", "repeated_query", "export"):
            wall, cpu, mib = f[name + "_s"], f[name + "_cpu_s"], f[name + "_mib"]
            label = name.replace("_", " ")
            print(f"  {label:<15} {wall:7.2f} s wall  {cpu:7.2f} s CPU  {mib:6.0f} MiB peak")
        print(json.dumps(f))


if __name__ == "__main__":
    main()
