"""Consistency across epochs: how often a question group changes category, and worst-of-k A&C."""

from __future__ import annotations

from pathlib import Path

from medeval.reporting.build import build_report
from medeval.reporting.loading.run import Corpus
from medeval.reporting.stats.consistency import consistency

from .test_report import known_run


def test_changed_categories_and_worst_of_k_equal_hand_counts(tmp_path: Path) -> None:
    run_dir = known_run(tmp_path)
    corpus = Corpus([run_dir])
    try:
        rows = {r.target: r for r in consistency(corpus)}
    finally:
        corpus.close()
    # fake:a over 4 epochs: QG1 AC AC SI INC (changes), QG9 AC x4 (A&C every time), QG12 NS NS AC ID.
    a = rows["fake:a"]
    assert (a.items, a.epochs) == (3, 4)
    assert a.inconsistent.estimate == 2 / 3 and a.worst_of_k_ac.estimate == 1 / 3
    # fake:b: QG1 SI x4, QG9 INC AC AC AC (changes), QG12 AC x4.
    b = rows["fake:b"]
    assert b.inconsistent.estimate == 1 / 3 and b.worst_of_k_ac.estimate == 1 / 3
    assert b.mean_ac is not None and abs(b.mean_ac - (0 + 0.75 + 1) / 3) < 1e-12
    markdown = build_report([run_dir]).markdown.read_text(encoding="utf-8")
    assert "## Consistency across epochs" in markdown
    assert "| fake:a | 3 | 4 | 66.7% (20.8–93.9) |" in markdown
