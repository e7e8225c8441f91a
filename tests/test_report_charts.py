"""score_distributions.png: each target keeps its own row on both panels."""

from __future__ import annotations

from pathlib import Path

from medeval.reporting.loading.run import Corpus
from medeval.reporting.render.charts import distribution_chart, panel_rows
from medeval.schemas import ShipCategory

from .test_report_support import make_record, write_run, write_scenario


def test_a_target_without_accuracy_keeps_its_row_when_it_is_not_last() -> None:
    targets = ["fake:accurate", "fake:refusal", "fake:outdated"]
    data = {"fake:accurate": ([1.0], [1.0]), "fake:refusal": ([], [0.0]), "fake:outdated": ([0.2], [0.3])}
    # Accuracy: refusal has no values; outdated stays on row 3, not on refusal's row 2.
    assert panel_rows(targets, data, 0) == [(1, [1.0]), (3, [0.2])]
    assert panel_rows(targets, data, 1) == [(1, [1.0]), (2, [0.0]), (3, [0.3])]


def test_distribution_chart_draws_with_a_target_that_has_no_accuracy(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path)
    records = [
        make_record("runp", 1, "fake:a", {"QG1": ShipCategory.NOT_SUBSTANTIVE}),
        make_record("runp", 2, "fake:b", {"QG1": ShipCategory.ACCURATE_COMPLETE}),
    ]
    corpus = Corpus([write_run(tmp_path / "runs", "runp", records, scenario_paths=[scenario])])
    try:
        distribution_chart(corpus, tmp_path / "chart.png")
    finally:
        corpus.close()
    assert (tmp_path / "chart.png").read_bytes()[:4] == b"\x89PNG"
