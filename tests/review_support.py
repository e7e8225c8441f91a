"""Shared set-up for the human-coding tests: one offline demo run, copied fresh for each test."""

from __future__ import annotations

import csv
import json
import secrets
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from medeval.calls.cache import CacheMode
from medeval.cli import main
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run
from medeval.review.export import CODES_FORMAT, make_export
from medeval.review.importing import import_codes
from tests.conftest import SCENARIOS

DEMO_TARGETS = ["fake:accurate", "fake:incomplete", "fake:outdated"]


def make_demo_run(parent: Path) -> Path:
    """The two study scripts against three fake targets, judged by the rules judges."""
    config = RunConfig(
        scenarios=[SCENARIOS / "ship_medicare_only.json", SCENARIOS / "ship_dual_eligible.json"],
        targets=DEMO_TARGETS,
        judges=["rules"],
        out=parent,
        cache=CacheMode.OFF,
        cache_dir=parent / "cache",
    )
    return run(config).store.directory


def cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    """The command line in this process (a subprocess costs seconds of imports): exit code,
    stdout, stderr."""
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["medeval", *args])
    code = 0
    try:
        main()
    except SystemExit as done:
        code = int(done.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def fresh_copy(source: Path, parent: Path) -> Path:
    """Each test appends to its own copy: reviews.jsonl is append-only."""
    target = parent / source.name
    shutil.copytree(source, target)
    return target


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def codes_file(
    path: Path,
    run_id: str,
    entries: list[dict[str, Any]],
    *,
    coder: str = "",
    blind: bool = False,
    export_id: str | None = None,
) -> Path:
    """A codes file in the format the coding page downloads; each from its own export (coding
    session) unless `export_id` says otherwise."""
    body = {
        "format": CODES_FORMAT,
        "export_id": export_id or secrets.token_hex(8),
        "run_id": run_id,
        "blind": blind,
        "coder": coder,
        "items": entries,
    }
    path.write_text(json.dumps(body, indent=2), encoding="utf-8")
    return path


def flip(category: str) -> str:
    """Another of the four categories, so a coder's code differs from the judges'."""
    return "incorrect" if category != "incorrect" else "accurate_complete"


def code_audit_sample(run_dir: Path, folder: Path) -> int:
    """Alice codes the run's whole audit sample (half its groups), differing from the judges on
    every fourth item: the codes a corrected-rate report reads. The number of items coded."""
    items = [i for i in make_export(run_dir, 0.5, 3, blind=False).items if i.selection == "audit"]
    entries = [
        {
            "item_id": item.item_id,
            "item_hash": item.item_hash,
            "category": flip(item.judge_category) if n % 4 == 0 else item.judge_category,
        }
        for n, item in enumerate(items)
    ]
    import_codes(run_dir, codes_file(folder / "codes.json", items[0].run_id, entries), "alice")
    return len(items)
