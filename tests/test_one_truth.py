"""One truth in every view (issue 27.1): for a run with two variants and people's codes imported
from the CSV of a --blind export, report (csv, html transcripts and drawer), export, query, the
Python API and compare give the same figures, and each says who decided and whether blind."""

from __future__ import annotations

import base64
import csv
import gzip
import json
import re
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path

import duckdb
import pytest

from medeval import api
from medeval.calls.cache import CacheMode
from medeval.cli import main
from medeval.engine.config import RunConfig, Variant
from medeval.engine.orchestrator import run
from medeval.export.cache import table_files
from medeval.reporting.tables.run_tables import POOLED, POOLED_OTHER
from medeval.review.importing import import_codes
from medeval.review.store import read_imports

from .conftest import SCENARIOS
from .export_oracle import same_tables
from .review_support import cli, read_csv

Cli = Callable[..., tuple[int, str, str]]
Figures = dict[tuple[str, str], tuple[int, int]]  # (target, question group) -> (n, A&C)
STUDY = ("accurate_complete", "substantive_incomplete", "not_substantive", "incorrect")
#: Each coder's code for a target's groups: the opposite of what the rules judges give it.
CODE = {"fake:accurate": "Incorrect", "fake:outdated": "A&C"}


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    return partial(cli, monkeypatch, capsys)


@pytest.fixture(scope="module")
def coded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """The two study scripts, two targets, two variants; 8 groups coded from a blind export's CSV."""
    parent = tmp_path_factory.mktemp("one-truth")
    config = RunConfig(
        scenarios=[SCENARIOS / "ship_medicare_only.json", SCENARIOS / "ship_dual_eligible.json"],
        targets=list(CODE),
        judges=["rules"],
        out=parent / "runs",
        cache=CacheMode.OFF,
        cache_dir=parent / "cache",
        variants=[Variant(name="plain"), Variant(name="told", persona_detail="location")],
    )
    run_dir = run(config).store.directory
    blind_export = ["review", "export", str(run_dir), "--sample", "8", "--blind", "--out", str(parent / "rv")]
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr("sys.argv", ["medeval", *blind_export])
        try:
            main()
        except SystemExit as done:
            assert not done.code
    (sheet,) = (parent / "rv").glob("review-*.csv")
    rows = read_csv(sheet)
    for row in rows:
        row["category"] = CODE[row["target"]]
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    import_codes(run_dir, sheet, "alice")
    return run_dir, len(rows)


def test_codes_from_a_blind_csv_are_recorded_blind_with_their_export_id(coded: tuple[Path, int]) -> None:
    run_dir, _ = coded
    (record,) = read_imports(run_dir)
    (sheet,) = (run_dir.parent.parent / "rv").glob("review-*.csv")
    assert record.blind is True
    assert record.export_id and sheet.stem == f"review-{record.export_id}"


def _from_sql(con: duckdb.DuckDBPyConnection, groups: str) -> Figures:
    rows = con.execute(
        f"select target, question_group, count(*), sum(accurate_complete) from {groups} "
        "where study_category group by all"
    ).fetchall()
    return {(t, g): (int(n), int(ac)) for t, g, n, ac in rows}


def test_every_view_gives_the_same_figures_and_says_who_decided(
    coded: tuple[Path, int], tmp_path: Path, run_cli: Cli
) -> None:
    run_dir, coded_groups = coded
    views: dict[str, Figures] = {}

    # export
    assert run_cli("export", str(run_dir), "--out", str(tmp_path / "tables"))[0] == 0
    con = duckdb.connect()
    groups = f"'{tmp_path / 'tables' / 'groups.parquet'}'"
    views["export"] = _from_sql(con, groups)
    decided = con.execute(
        f"select count(*) filter (decided_by <> 'judges'), count(*) filter (decided_blind), "
        f"count(distinct variant) from {groups}"
    ).fetchone()
    assert decided == (coded_groups, coded_groups, 2)

    # query
    code, out, err = run_cli(
        "query",
        "select target, question_group, count(*) as n, sum(accurate_complete) as ac, "
        "count(*) filter (decided_blind) as blind from groups where study_category group by all",
        str(run_dir),
        "--limit",
        "1000",
    )
    assert code == 0, err
    cells = [re.findall(r"[^│┃]+", line) for line in out.splitlines() if line.startswith("│")]
    rows = [[c.strip() for c in row] for row in cells]
    views["query"] = {(t, g): (int(n), int(ac)) for t, g, n, ac, _ in rows}
    assert sum(int(r[4]) for r in rows) == coded_groups

    # the Python API
    runs = api.load(run_dir)
    views["api"] = {
        (t, g): (int(n), round(ac * n))
        for t, g, n, ac, *_ in runs.rates(("target", "question_group")).fetchall()
    }
    runs.close()

    # report: ship_table.csv, and the transcripts and the drawer of report.html
    code, _, err = run_cli("report", str(run_dir), "--out", str(tmp_path / "report"))
    assert code == 0, err
    ship = [r for r in read_csv(tmp_path / "report" / "ship_table.csv") if r["source"] == "ai"]
    per_group = [r for r in ship if r["question_group"] not in (POOLED, POOLED_OTHER)]
    views["report csv"] = {
        (r["target"], r["question_group"]): (sum(int(r[c]) for c in STUDY), int(r["accurate_complete"]))
        for r in per_group
    }
    assert sum(int(r["decided_by_people_blind"]) for r in per_group) == coded_groups
    markdown = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert f"{coded_groups} of the people's decisions were made blind" in markdown
    html = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    drawer: Counter[tuple[str, str, str]] = Counter()
    blind_in_drawer = 0
    for encoding, payload in re.findall(
        r'<script type="application/json" class="drawer-data" data-group="[^"]*" '
        r'data-encoding="(\w+)">(.*?)</script>',
        html,
        re.S,
    ):
        text = gzip.decompress(base64.b64decode(payload)).decode() if encoding != "json" else payload
        for key, entries in json.loads(text).items():
            _, group, target = key.split("|")
            for entry in entries:
                drawer[(target, group, entry["category"])] += 1
                blind_in_drawer += "(blind)" in entry["decided"]
    views["drawer"] = {
        (t, g): (sum(drawer[(t, g, c)] for c in STUDY), drawer[(t, g, "accurate_complete")])
        for t, g in {(t, g) for t, g, c in drawer if c in STUDY}
    }
    assert blind_in_drawer == coded_groups
    badges = Counter(re.findall(r'<span class="badge (\w+)">', html))
    assert sum(badges[c] for c in STUDY) == sum(n for n, _ in views["export"].values())
    assert badges["accurate_complete"] == sum(ac for _, ac in views["export"].values())
    assert html.count('<span class="muted decided">decided by a person (blind)') == coded_groups

    # compare (the run against itself): its per-group rates and n
    code, out, err = run_cli("compare", str(run_dir), str(run_dir), "--out", str(tmp_path / "cmp"))
    assert code == 0, err
    assert f"0 by people ({coded_groups} of them blind)" not in out
    assert f"{coded_groups} by people ({coded_groups} of them blind)" in out
    compare: dict[tuple[str, str], list[float]] = {}
    for r in read_csv(tmp_path / "cmp" / "compare.csv"):
        if r["metric"] == "rate:accurate_complete":
            n, ac = compare.setdefault((r["target_a"], r["question_group"]), [0, 0])
            compare[(r["target_a"], r["question_group"])] = [
                n + int(r["n_a"]),
                ac + float(r["a"]) * int(r["n_a"]),
            ]
    views["compare"] = {k: (int(n), round(ac)) for k, (n, ac) in compare.items()}

    reference = views["export"]
    assert reference and any(ac for _, ac in reference.values())
    # The codes moved the figures: the accurate target lost A&C groups, the outdated one gained.
    assert sum(ac for (t, _), (_, ac) in reference.items() if t == "fake:outdated") > 0
    for name, figures in views.items():
        if name == "report csv":
            # The SHIP table lists the study's question groups only.
            assert figures == {k: v for k, v in reference.items() if k in figures}, name
            assert len(figures) >= len(reference) // 2
        else:
            assert figures == reference, name


def test_the_duckdb_tables_equal_the_obvious_python_ones(coded: tuple[Path, int]) -> None:
    run_dir, _ = coded
    built = table_files(run_dir)
    assert same_tables(built, run_dir) == {}
    # People's codes are in the groups the tables hold.
    con = duckdb.connect()
    (blind,) = con.execute(f"select count(*) from '{built['groups']}' where decided_blind").fetchone() or (0,)
    assert blind == coded[1]
