"""Does a corpus look like real chatbot output, and how does the rules coder do on it? Prints the
corpus's shape figures beside the coder's agreement figures, so anyone can see both at once.

    .venv/bin/python benchmarks/corpus_shape.py [CORPUS.jsonl ...] [--direct]

Default: the six parts of the real-shaped corpus (benchmarks/corpus/ship_real_shaped_tune.jsonl,
ship_real_shaped_holdout.jsonl and ship_real_shaped_round2/3/4/5.jsonl; see their README for which
was held out when). Shape: answer length quantiles (characters), and the share of
answers with a Markdown heading, a heading phrased as a question, a Markdown table, a bullet or
numbered list, bold text, and a dollar figure or rule labelled with a past year ("in 2024", "(2025)").
Coder: through the judging pipeline (as `medeval calibrate`), or the coder alone with --direct;
agreement on decided groups, review rate, false Incorrect (Incorrect where the label is not, share of
decided), Incorrect caught (coded Incorrect or sent to review), Not Substantive caught (NS or review).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rules_agreement import Figures, code_corpus, code_corpus_pipeline, load

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
DEFAULT = (
    CORPUS_DIR / "ship_real_shaped_tune.jsonl",
    CORPUS_DIR / "ship_real_shaped_holdout.jsonl",
    CORPUS_DIR / "ship_real_shaped_round2.jsonl",
    CORPUS_DIR / "ship_real_shaped_round3.jsonl",
    CORPUS_DIR / "ship_real_shaped_round4.jsonl",
    CORPUS_DIR / "ship_real_shaped_round5.jsonl",
    CORPUS_DIR / "ship_real_shaped_round6.jsonl",
    CORPUS_DIR / "ship_real_shaped_round7.jsonl",
    CORPUS_DIR / "ship_real_shaped_round8.jsonl",
    CORPUS_DIR / "ship_real_shaped_round9.jsonl",
    CORPUS_DIR / "ship_real_shaped_round10.jsonl",
    CORPUS_DIR / "ship_real_shaped_round11.jsonl",
    CORPUS_DIR / "ship_real_shaped_round12.jsonl",
    CORPUS_DIR / "ship_real_shaped_round13.jsonl",
    CORPUS_DIR / "ship_real_shaped_round14.jsonl",
    CORPUS_DIR / "ship_real_shaped_round15.jsonl",
    CORPUS_DIR / "ship_real_shaped_round16.jsonl",
)
CURRENT_YEAR = 2026

HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S", re.M)
QUESTION_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+[^\n]*\?\s*$", re.M)
TABLE = re.compile(r"^\s*\|[^\n]*\|\s*\n\s*\|?\s*:?-{3,}", re.M)
LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\S", re.M)
BOLD = re.compile(r"\*\*[^*\n]+\*\*")
PAST_YEAR = re.compile(r"\b(?:in|for|of|from|since|during)?\s*\(?\b(20[12]\d)\b\)?")


def past_dated(text: str) -> bool:
    """A past plan year named beside a figure or rule: "$185 in 2025", "(2024)", "for 2025"."""
    for match in PAST_YEAR.finditer(text):
        year = int(match.group(1))
        window = text[max(0, match.start() - 60) : match.end() + 60]
        if 2015 <= year < CURRENT_YEAR and ("$" in window or "%" in window):
            return True
    return False


def shape(rows: list[dict[str, str]]) -> list[str]:
    lengths = sorted(len(r["answer"]) for r in rows)
    q = statistics.quantiles(lengths, n=10) if len(lengths) > 1 else [float(lengths[0])] * 9
    n = len(rows)

    def share(test: object) -> str:
        count = sum(bool(test(r["answer"])) for r in rows)  # type: ignore[operator]
        return f"{count / n:.0%} ({count})"

    return [
        f"answers: {n}",
        f"length (characters): p10 {q[0]:.0f}, median {statistics.median(lengths):.0f}, p90 {q[8]:.0f},"
        f" max {lengths[-1]}",
        f"with a heading: {share(HEADING.search)}; a question heading: {share(QUESTION_HEADING.search)}",
        f"with a table: {share(TABLE.search)}; a list: {share(LIST.search)}; bold: {share(BOLD.search)}",
        f"with a past-dated figure: {share(past_dated)}",
    ]


def coder(figures: Figures) -> list[str]:
    return [
        f"agreement on decided groups: {figures.agreement:.1%} ({len(figures.decided)} decided),"
        f" kappa {figures.kappa:.2f}",
        f"review: {figures.review_rate:.1%}",
        f"false Incorrect: {figures.false_incorrect:.1%} of decided",
        f"Incorrect caught or sent to review: {figures.incorrect_recall:.1%}",
        f"Not Substantive coded NS or sent to review: {figures.not_substantive_recall:.1%}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("corpora", nargs="*", type=Path, default=list(DEFAULT))
    parser.add_argument("--direct", action="store_true", help="the coder alone, not the judging pipeline")
    args = parser.parse_args(argv)
    for path in args.corpora:
        rows = load(path)
        figures = code_corpus(rows) if args.direct else code_corpus_pipeline(path)
        print(f"== {path.name}")
        print("\n".join(f"  shape: {line}" for line in shape(rows)))
        print("\n".join(f"  coder: {line}" for line in coder(figures)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
