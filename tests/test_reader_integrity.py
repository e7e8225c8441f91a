"""Every reader checks a run's integrity first: export, query, the API, compare and review export
refuse a damaged run with the same one line (or go on with --allow-damaged), and verify checks the
review chain and summary.json's heads and every line inside a chain."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from medeval import api
from medeval.records.audit import verify_run
from medeval.records.integrity import CACHE_DIR, VERIFIED, DamagedRunError, run_problems
from medeval.records.storage import RESULTS, REVIEWS, REVIEWS_CHECKPOINT, SUMMARY
from medeval.review.export import make_export
from medeval.review.importing import import_codes

from .review_support import cli, codes_file, fresh_copy, make_demo_run

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_run(tmp_path_factory.mktemp("integrity-demo"))


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    return partial(cli, monkeypatch, capsys)


@pytest.fixture
def intact(source: Path, tmp_path: Path) -> Path:
    return fresh_copy(source, tmp_path / "runs")


def tamper(run_dir: Path) -> None:
    """Recode one group of a trial in the middle of the chain, as a hand edit would."""
    lines = (run_dir / RESULTS).read_bytes().splitlines(keepends=True)
    middle = next(i for i in range(len(lines) // 2, len(lines)) if b'"accurate_complete"' in lines[i])
    lines[middle] = lines[middle].replace(b'"accurate_complete"', b'"incorrect"', 1)
    (run_dir / RESULTS).write_bytes(b"".join(lines))


def damaged_part(stderr: str) -> str:
    match = re.search(r"(damaged run .*?failed medeval verify: [^;]*)", stderr)
    assert match, stderr
    return match.group(1)


def test_every_reader_refuses_a_tampered_run_with_the_same_line(
    intact: Path, tmp_path: Path, run_cli: Cli
) -> None:
    other = fresh_copy(intact, tmp_path / "other")
    assert run_problems(intact) == []  # verified and cached while intact
    tamper(intact)
    commands = {
        "export": ("export", str(intact), "--out", str(tmp_path / "tables")),
        "query": ("query", "select count(*) from groups", str(intact)),
        "compare": ("compare", str(intact), str(other), "--out", str(tmp_path / "cmp")),
        "review export": ("review", "export", str(intact), "--sample", "2", "--out", str(tmp_path / "rv")),
    }
    lines = set()
    for name, args in commands.items():
        code, _, stderr = run_cli(*args)
        assert code != 0, name
        assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr, (name, stderr)
        assert "--allow-damaged" in stderr, stderr
        lines.add(damaged_part(stderr))
    assert len(lines) == 1, lines
    assert not (tmp_path / "tables").exists() and not (tmp_path / "cmp").exists()
    with pytest.raises(DamagedRunError, match=r"damaged run .* failed medeval verify"):
        api.load(intact)
    with pytest.raises(DamagedRunError):
        api.compare(intact, other)


def test_allow_damaged_goes_on_with_the_warning(intact: Path, tmp_path: Path, run_cli: Cli) -> None:
    other = fresh_copy(intact, tmp_path / "other")
    tamper(intact)
    for args in (
        ("export", str(intact), "--out", str(tmp_path / "tables"), "--allow-damaged"),
        ("query", "select count(*) as n from groups", str(intact), "--allow-damaged"),
        ("compare", str(intact), str(other), "--out", str(tmp_path / "cmp"), "--allow-damaged"),
        ("review", "export", str(intact), "--sample", "2", "--out", str(tmp_path / "rv"), "--allow-damaged"),
    ):
        code, _, stderr = run_cli(*args)
        assert code == 0, (args, stderr)
        assert stderr.startswith("warning: damaged run") and stderr.count("\n") == 1, stderr
    runs = api.load(intact, allow_damaged=True)
    assert runs.trials.aggregate("count(*)").fetchall()[0][0] > 0
    runs.close()
    assert api.compare(intact, other, allow_damaged=True) is not None


def test_an_intact_run_is_read_without_a_word_and_verified_once(intact: Path, run_cli: Cli) -> None:
    code, _, stderr = run_cli("query", "select count(*) as n from trials", str(intact))
    assert code == 0 and stderr == ""
    cached = intact / CACHE_DIR / VERIFIED
    assert cached.is_file()
    stamp = cached.stat().st_mtime_ns
    assert run_cli("query", "select count(*) as n from trials", str(intact))[0] == 0
    assert cached.stat().st_mtime_ns == stamp  # the unchanged run was not walked again


@pytest.mark.parametrize(
    "damage",
    ["truncated", "emptied", "duplicated", "checkpoint deleted"],
)
def test_other_damage_is_refused_too(intact: Path, run_cli: Cli, damage: str) -> None:
    results = intact / RESULTS
    lines = results.read_bytes().splitlines(keepends=True)
    if damage == "truncated":
        results.write_bytes(b"".join(lines[:-1]))
    elif damage == "emptied":
        results.write_bytes(b"")
    elif damage == "duplicated":
        results.write_bytes(b"".join([*lines, lines[-1]]))
    else:
        (intact / "checkpoint.json").unlink()
    code, _, stderr = run_cli("query", "select 1", str(intact))
    assert code != 0 and "damaged run" in stderr, stderr


def _import_blind_codes(run_dir: Path, tmp_path: Path) -> None:
    items = make_export(run_dir, 2, 1, blind=True).items
    entries = [{"item_id": i.item_id, "item_hash": i.item_hash, "category": "incorrect"} for i in items]
    import_codes(run_dir, codes_file(tmp_path / "codes.json", items[0].run_id, entries, blind=True), "alice")


def test_verify_sees_deleted_review_files_through_the_summary(intact: Path, tmp_path: Path) -> None:
    _import_blind_codes(intact, tmp_path)
    assert [f.severity for f in verify_run(intact)] == ["ok"]
    (intact / REVIEWS).unlink()
    (intact / REVIEWS_CHECKPOINT).unlink()
    errors = [str(f) for f in verify_run(intact) if f.severity == "error"]
    assert errors and "reviews.jsonl" in errors[0] and "summary.json records 1 records" in errors[0]


def test_verify_checks_the_summary_heads_against_the_files(intact: Path) -> None:
    summary = intact / SUMMARY
    text = summary.read_text(encoding="utf-8")
    head = re.search(r'"results": \{\s*"head": "([0-9a-f]{64})"', text)
    assert head, text
    summary.write_text(text.replace(head.group(1), "f" * 64), encoding="utf-8")
    errors = [str(f) for f in verify_run(intact) if f.severity == "error"]
    assert errors == [
        f"error: {RESULTS}: record {_count(intact)} is not the head summary.json recorded (records replaced)"
    ]


def _count(run_dir: Path) -> int:
    return sum(1 for line in (run_dir / RESULTS).read_bytes().splitlines() if line.strip())


def test_a_garbage_line_in_a_chain_fails_verify_and_a_torn_one_warns(intact: Path, tmp_path: Path) -> None:
    torn = fresh_copy(intact, tmp_path / "torn")
    lines = (intact / RESULTS).read_bytes().splitlines(keepends=True)
    (intact / RESULTS).write_bytes(b"".join([lines[0], b"hello, world\n", *lines[1:]]))
    errors = [f for f in verify_run(intact) if f.severity == "error"]
    assert [(f.file, f.line, f.message) for f in errors][:1] == [
        (RESULTS, 2, "not a record (a line that no write of the run produced)")
    ]
    # A write cut off by a kill, which the writer continued after, is still a warning.
    (torn / RESULTS).write_bytes(b"".join([lines[0], lines[1][:40] + b"\n", *lines[1:]]))
    findings = verify_run(torn)
    assert [f.severity for f in findings] == ["warning", "ok"], findings
    shutil.rmtree(torn)
