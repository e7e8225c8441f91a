"""People's codes are counted per coding session: an import is known by its codes (not its bytes),
and codes several coder names import from one export count once, flagged, never as consensus."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from medeval.records.storage import REVIEWS
from medeval.reporting.build import build_report
from medeval.review.export import make_export, write_export
from medeval.review.items import ReviewItem
from medeval.review.precedence import outcomes
from medeval.review.store import read_imports

from .review_support import cli, codes_file, fresh_copy, make_demo_run, read_csv

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture(scope="module")
def demo_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_run(tmp_path_factory.mktemp("sessions-demo"))


@pytest.fixture
def demo(demo_source: Path, tmp_path: Path) -> Path:
    return fresh_copy(demo_source, tmp_path / "runs")


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    return partial(cli, monkeypatch, capsys)


def entries(items: list[ReviewItem], category: str = "incorrect") -> list[dict[str, object]]:
    return [
        {"item_id": i.item_id, "item_hash": i.item_hash, "category": category, "note": "seen"} for i in items
    ]


def test_each_export_is_its_own_session_and_the_csv_returns_its_id(demo: Path, tmp_path: Path) -> None:
    first, second = (make_export(demo, 0.2, 3, blind=True) for _ in range(2))
    assert [i.item_id for i in first.items] == [i.item_id for i in second.items]  # same sample
    assert first.export_id != second.export_id  # a nonce: two coding sessions
    rows = read_csv(write_export(first, tmp_path / "page.html").csv)
    assert {r["export_id"] for r in rows} == {first.export_id}


def test_the_same_codes_again_are_refused_whatever_the_spacing(
    demo: Path, tmp_path: Path, run_cli: Cli
) -> None:
    items = make_export(demo, 0.2, 3, blind=True).items[:3]
    path = codes_file(tmp_path / "a.json", items[0].run_id, entries(items), export_id="0123456789abcdef")
    assert run_cli("review", "import", str(demo), str(path), "--coder", "alice")[0] == 0
    stored = (demo / REVIEWS).read_bytes()
    body = json.loads(path.read_text(encoding="utf-8"))
    body["items"][0]["note"] = "  seen \n"  # a note is not a code
    again = tmp_path / "again.json"
    again.write_text("\n\n" + json.dumps(body, indent=7) + "\n\n\n", encoding="utf-8")
    code, _, stderr = run_cli("review", "import", str(demo), str(again), "--coder", "alice")
    assert code == 2 and "Traceback" not in stderr
    [line] = stderr.strip().splitlines()
    assert "already imported for coder alice" in line and "however the file is spaced" in line
    assert (demo / REVIEWS).read_bytes() == stored


def test_the_same_codes_under_a_second_name_are_flagged_and_not_consensus(
    demo: Path, tmp_path: Path, run_cli: Cli
) -> None:
    items = make_export(demo, 0.2, 3, blind=True).items[:3]
    run_id, session = items[0].run_id, "fedcba9876543210"
    alice = codes_file(tmp_path / "a.json", run_id, entries(items), export_id=session)
    assert run_cli("review", "import", str(demo), str(alice), "--coder", "alice")[0] == 0
    for spaces, coder in enumerate(("bob", "carol"), start=1):
        copy = tmp_path / f"{coder}.json"
        copy.write_text(alice.read_text(encoding="utf-8") + " " * spaces, encoding="utf-8")
        code, _, stderr = run_cli("review", "import", str(demo), str(copy), "--coder", coder)
        assert code == 0, stderr
        assert "identical codes to coder alice's import" in stderr and "never as consensus" in stderr
    found = outcomes(read_imports(demo))
    assert len(found) == 3
    for outcome in found:
        assert [c.coder for c in outcome.codes] == ["alice", "bob", "carol"]
        assert len(outcome.counted) == 1 and outcome.decided_by == "coder"
        assert outcome.flags and "one coding session" in outcome.flags[0]
    markdown = build_report([demo], tmp_path / "report").markdown.read_text(encoding="utf-8")
    assert "(0 by consensus" in markdown
    assert "Not independent, so counted once and never as consensus" in markdown
    assert "### Agreement between coders" not in markdown  # one session has no one to agree with

    # A second coder with an export of their own is a second session: that is consensus.
    dave = codes_file(tmp_path / "d.json", run_id, entries(items))
    assert run_cli("review", "import", str(demo), str(dave), "--coder", "dave")[0] == 0
    assert {o.decided_by for o in outcomes(read_imports(demo))} == {"consensus"}


def test_a_spreadsheet_without_its_export_id_is_refused(demo: Path, tmp_path: Path, run_cli: Cli) -> None:
    paths = write_export(make_export(demo, 3, 5, blind=True), tmp_path / "sheet.html")
    rows = read_csv(paths.csv)
    rows[0]["category"] = "A&C"
    for row in rows:
        del row["export_id"]
    with paths.csv.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    code, _, stderr = run_cli("review", "import", str(demo), str(paths.csv), "--coder", "bob")
    assert code == 2 and "holds no export id" in stderr and len(stderr.strip().splitlines()) == 1
    assert not (demo / REVIEWS).exists()


def test_a_sheet_whose_quoting_a_spreadsheet_broke_is_one_line_and_writes_nothing(
    demo: Path, tmp_path: Path, run_cli: Cli
) -> None:
    sheet = write_export(make_export(demo, 0.2, 3, blind=True), tmp_path / "page.html").csv
    rows = read_csv(sheet)
    filled = tmp_path / "filled.csv"
    with filled.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({**row, "category": "accurate_complete"} for row in rows)
    # A space typed after each CRLF line's carriage return: a bare CR inside an unquoted cell.
    broken = tmp_path / "broken.csv"
    broken.write_bytes(filled.read_bytes().replace(b"\r\n", b"\r \n"))
    before = (demo / REVIEWS).read_bytes() if (demo / REVIEWS).exists() else b""
    code, _, stderr = run_cli("review", "import", str(demo), str(broken), "--coder", "alice")
    assert code == 2 and "Traceback" not in stderr
    [line] = stderr.strip().splitlines()
    assert "not a readable CSV" in line
    assert ((demo / REVIEWS).read_bytes() if (demo / REVIEWS).exists() else b"") == before
