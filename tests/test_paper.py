"""Paper-ready tables (reporting/render/paper.py): headline and per-group tables as CSV with
footnote lines and as booktabs LaTeX with the footnotes under the table."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from medeval.reporting.build import build_report
from medeval.reporting.render.paper import tex, to_csv, to_latex

from .review_support import code_audit_sample, fresh_copy, make_demo_run


@pytest.fixture(scope="module")
def demo_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_run(tmp_path_factory.mktemp("paper-demo"))


def test_tex_escapes_what_latex_reads_as_markup() -> None:
    assert tex("fake:a_b & 50% #1 {x} ~ ^ \\") == (
        r"fake:a\_b \& 50\% \#1 \{x\} \textasciitilde{} \textasciicircum{} \textbackslash{}"
    )
    assert tex("−3.0 to +1.0 ± Δ") == r"--3.0 to +1.0 $\pm$ $\Delta$"


def test_figures_become_three_numeric_csv_columns_and_one_latex_cell() -> None:
    header = ["Responder", "A&C, %", "A&C minus counselors, pp"]
    rows = [["=evil", (41.2, 35.0, 47.6), (-3.5, -9.0, 2.0)]]
    text = to_csv(header, rows, ["Wilson 95% intervals."])
    lines = text.splitlines()
    assert lines[-1] == "# Wilson 95% intervals."
    parsed = list(csv.reader(line for line in lines if not line.startswith("#")))
    assert parsed[0][1:4] == ["A&C, %", "A&C, % 95% CI low", "A&C, % 95% CI high"]
    assert parsed[1] == ["'=evil", "41.2", "35.0", "47.6", "-3.5", "-9.0", "2.0"]
    latex = to_latex("Caption", header, rows, ["Wilson 95% intervals."])
    assert r"'=evil" not in latex and r"=evil & 41.2 (35.0--47.6) & -3.5 (-9.0 to +2.0) \\" in latex
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\caption{Caption}"):
        assert rule in latex


def test_report_writes_headline_and_group_tables_with_footnotes(demo_source: Path, tmp_path: Path) -> None:
    demo = fresh_copy(demo_source, tmp_path / "runs")
    code_audit_sample(demo, tmp_path)
    out = build_report([demo], tmp_path / "report").directory
    headline = (out / "headline.tex").read_text(encoding="utf-8")
    assert r"\begin{tabular}{llrrrrrr}" in headline and r"\bottomrule" in headline
    assert r"A\&C corrected for judge error, \%" in headline
    assert r"fake:accurate & 20 &" in headline and "SHIP counselors, combined & 1816 &" in headline
    assert "Newcombe" in headline and "prediction-powered inference" in headline
    rows = list(
        csv.DictReader(line for line in (out / "headline.csv").open(encoding="utf-8") if line[0] != "#")
    )
    assert [r["Responder"] for r in rows][:3] == ["fake:accurate", "fake:incomplete", "fake:outdated"]
    assert rows[0]["A&C, % 95% CI low"] and rows[0]["A&C minus counselors, pp"]
    notes = [
        line for line in (out / "headline.csv").read_text(encoding="utf-8").splitlines() if line[0] == "#"
    ]
    assert any("Wilson 95% intervals" in n for n in notes)
    groups = (out / "groups.tex").read_text(encoding="utf-8")
    assert (
        "QG1 & fake:accurate &" in groups and "All study groups &" in groups and "eTables 2 and 3" in groups
    )
    assert (
        (out / "groups.csv")
        .read_text(encoding="utf-8")
        .splitlines()[0]
        .startswith("Question group,Responder,n,")
    )
