"""The sentence splitter's bounded look-back changes no split, and its benchmark runs as documented
(benchmarks/splitter.py; the figures it prints are in docs/performance.md, not asserted here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from medeval.agents.rulecoder.structure import sentences

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "splitter.py"


def test_periods_after_long_words_initials_and_abbreviations_split_as_before() -> None:
    long_word = "x" * 200
    text = f"See {long_word}. Then Dr. J. Smith, No. 5 in the list. It ends."
    assert [s.text for s in sentences(text)] == [
        f"See {long_word}.",
        "Then Dr. J. Smith, No. 5 in the list.",
        "It ends.",
    ]


def test_the_benchmark_prints_a_line_per_shape_with_both_sizes() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--sizes", "600,6000"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == ["answer", "600", "6,000"]
    assert [line.split()[0] for line in lines[1:]] == ["prose", "bullets", "table", "no", "initials"]
