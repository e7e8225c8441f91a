"""Time of the rules coder's reading of structure, sentences and clauses on one long answer (a
benchmark that prints figures; not a test).

    .venv/bin/python benchmarks/splitter.py [--sizes 60000,1000000]

For each shape of answer (prose with abbreviations, markdown bullets, a table, a run without
spaces, dotted initials) it prints the seconds to split an answer of each size into sentences and
clauses, and the ratio of the largest to the smallest: linear splitting gives a ratio near the
ratio of the sizes (about 17 for 60 kB and 1 MB); quadratic splitting gives its square.
"""

from __future__ import annotations

import argparse
import time

from medeval.agents.rulecoder.structure import read_structure, sentences
from medeval.agents.rulecoder.text import clauses

SHAPES = {
    "prose": "In 2026 the standard Part B premium is $202.90 a month (see Dr. Smith, No. 5, e.g. this). ",
    "bullets": "- **Part B** premium: $202.90 a month.\n",
    "table": "| Part B | $202.90 | monthly |\n",
    "no spaces": "x" * 1000 + ".",
    "initials": "a.b.c.d.e.f.g.h ",
}


def seconds(text: str) -> float:
    read_structure.cache_clear()
    started = time.perf_counter()
    for sentence in sentences(text):
        clauses(sentence)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="60000,1000000", help="answer sizes in characters")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    print(f"{'answer':<10}" + "".join(f"{size:>12,}" for size in sizes) + "   ratio")
    for name, unit in SHAPES.items():
        times = [seconds((unit * (size // len(unit) + 1))[:size]) for size in sizes]
        cells = "".join(f"{t:>11.3f}s" for t in times)
        print(f"{name:<10}{cells}   x{times[-1] / max(times[0], 1e-9):.1f}")


if __name__ == "__main__":
    main()
