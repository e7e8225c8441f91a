"""`medeval keys show|diff|status` on the bundled seasons (issue 24, step 4)."""

from __future__ import annotations

from pathlib import Path

from .conftest import REPO, medeval


def test_keys_diff_lists_the_part_d_changes_between_the_seasons_and_their_groups(tmp_path: Path) -> None:
    done = medeval("keys", "diff", "ship_medicare_only@2026", "ship_medicare_only@2027", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    deductible = next(line for line in lines if "PARTD_DEDUCTIBLE_2027" in line)
    cap = next(line for line in lines if "PARTD_CAP_2027" in line)
    assert "$615 -> $700" in deductible and "$2,100 -> $2,400" in cap
    assert "QG13" in deductible and "QG13" in cap
    premium = next(line for line in lines if "PARTB_PREMIUM_2027" in line)
    assert "pending (2026-11-15)" in premium and "QG15" in premium
    assert any("disallowed claim added: NETWORK_SEP_2027" in line for line in lines)
    # Two seasons at once: every scenario the 2027 season changes, paired by id.
    seasons = medeval("keys", "diff", "scenarios/v1", "scenarios/v2027", cwd=REPO)
    assert seasons.returncode == 0, seasons.stderr
    assert "topic_part_d_penalty@2026 -> topic_part_d_penalty@2027" in seasons.stdout
    assert "PARTD_BASE_PREMIUM_2026 -> PARTD_BASE_PREMIUM_2027" in seasons.stdout


def test_keys_status_lists_pending_values_with_their_dates(tmp_path: Path) -> None:
    done = medeval("keys", "status", "2027", "--today", "2026-11-26", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    premium = next(
        line for line in done.stdout.splitlines() if "ship_medicare_only@2027 PARTB_PREMIUM_2027" in line
    )
    assert "PAST DUE" in premium and "2026-11-15" in premium
    assert "EXTRA_HELP_NAMED: pending; expected by 2027-01-31" in done.stdout
    early = medeval("keys", "status", "2027", "--today", "2026-10-01", cwd=tmp_path)
    lines = early.stdout.splitlines()
    before = next(line for line in lines if "topic_part_b_costs@2027 PARTB_PREMIUM" in line)
    assert "PAST DUE" not in before and "pending; expected by 2026-11-15" in before


def test_keys_show_gives_each_fact_its_years_sources_and_status(tmp_path: Path) -> None:
    done = medeval("keys", "show", "topic_part_d_choice@2027", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "usd by year: 2026: $2,100; 2027: $2,400" in done.stdout
    assert "PARTD_CAP_2027 [published, 2027]" in done.stdout and "Rate Announcement" in done.stdout
    pending = medeval("keys", "show", "topic_part_b_costs@2027", "--today", "2026-11-26", cwd=tmp_path)
    assert "PARTB_PREMIUM_2027 [past due: the fact for 2027]" in pending.stdout


def test_keys_refuses_an_unknown_key_in_one_line(tmp_path: Path) -> None:
    done = medeval("keys", "show", "ship_medicare_only@2031", cwd=tmp_path)
    assert done.returncode != 0
    assert "no bundled season '2031'" in done.stderr and "Traceback" not in done.stderr
