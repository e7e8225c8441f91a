"""report.html rendered by a real browser (Debian's chromium, headless), when one is installed."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from medeval.reporting.build import build_report
from medeval.schemas import ShipCategory

from .test_report_support import make_record, write_run, write_scenario

CHROMIUM = Path("/usr/bin/chromium")


def render(page: Path, profile: Path, *extra: str, fragment: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            *extra,
            page.as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def test_browser_renders_summary_table_and_highlighted_claim(tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.skip("chromium is not installed at /usr/bin/chromium")
    scenario = write_scenario(tmp_path)
    records = [
        make_record(
            "runb", 1, "fake:a", {"QG1": ShipCategory.ACCURATE_COMPLETE, "QG12": ShipCategory.INCORRECT}
        ),
        make_record("runb", 2, "fake:b", {"QG1": ShipCategory.SUBSTANTIVE_INCOMPLETE}),
    ]
    paths = build_report([write_run(tmp_path / "runs", "runb", records, scenario_paths=[scenario])])
    done = render(paths.html, tmp_path / "profile", "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    # The DOM after the script ran: the filter counter is filled in by JavaScript.
    assert "2 of 2 trials" in dom
    summary = re.search(r'<table id="summary-table">(.*?)</table>', dom, flags=re.DOTALL)
    assert summary is not None
    assert "fake:a" in summary.group(1) and "fake:b" in summary.group(1)
    assert re.search(
        r'<mark class="v-contradicted"[^>]*>Wrong: Medicare pays for everything forever\.</mark>', dom
    )
    # Opening a trial (here by its link) fills in the cited and missed facts with text and source.
    opened = render(paths.html, tmp_path / "profile3", "--dump-dom", fragment="#t1").stdout
    assert re.search(
        r"<strong>F_LTC</strong>: Medicare does not cover long-term custodial care\.<span", opened
    )
    assert "Missed required point <strong>F_LTC</strong>" in opened
    assert "Source: Medicare &amp; You 2026, fixture section" in opened
    shot = tmp_path / "page.png"
    done = render(paths.html, tmp_path / "profile2", f"--screenshot={shot}", "--window-size=1200,900")
    assert done.returncode == 0 and shot.read_bytes()[:4] == b"\x89PNG"
