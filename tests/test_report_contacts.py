"""Contacts and links in the report: a per-target count of trials with a safety finding, with its
interval, the passages in the failure modes, the unverifiable plan contacts, and contacts.csv; runs
written before the check still report."""

from __future__ import annotations

import csv
from pathlib import Path

from medeval.agents.contacts.classify import AnswerText, check_contacts
from medeval.reporting.build import build_report
from medeval.schemas import ShipCategory, TrialRecord, Turn

from .test_report_support import make_record, write_run, write_scenario

WRONG = "If you have questions, call Medicare at 1-800-633-4272."
LOOKALIKE = "Compare plans at medicare-gov.help before December 7."
PLAN = "For your plan's benefits, call member services at 1-800-457-4708."
RIGHT = "Call 1-800-MEDICARE (1-800-633-4227) or visit medicare.gov."


def with_answer(record: TrialRecord, text: str) -> TrialRecord:
    """The record with its answer replaced by `text`, checked as the engine checks it."""
    turns = [t if t.role == "user" else Turn(**{**t.model_dump(), "text": text}) for t in record.conversation]
    contacts = check_contacts(AnswerText(t.turn_id, t.text) for t in turns if t.role == "assistant")
    flags = record.flags.model_copy(update={"unsafe_contacts": contacts.unsafe})
    return record.model_copy(update={"conversation": turns, "contacts": contacts, "flags": flags})


def test_report_counts_safety_findings_per_target_with_passages(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, groups=("QG1",))
    categories = {"QG1": ShipCategory.ACCURATE_COMPLETE}
    records = [
        with_answer(make_record("r1", 1, "fake:a", categories), WRONG),
        with_answer(make_record("r1", 2, "fake:a", categories), LOOKALIKE),
        with_answer(make_record("r1", 3, "fake:a", categories), RIGHT),
        with_answer(make_record("r1", 4, "fake:a", categories), PLAN),
        with_answer(make_record("r1", 5, "fake:b", categories), RIGHT),
    ]
    run_dir = write_run(tmp_path / "runs", "r1", records, scenario_paths=[scenario])
    paths = build_report([run_dir])
    text = paths.markdown.read_text(encoding="utf-8")
    section = text[text.index("### Contacts and links") : text.index("## Exemplary incorrect responses")]
    # fake:a: 2 of 4 trials unsafe, Wilson 95% interval 15.0%-85.0%; fake:b: none of 1.
    assert "| fake:a | 4 | 50.0% (15.0–85.0%) | 1 | 1 | 3 | 0 | 1 | 0 |" in section
    assert "| fake:b | 1 | 0.0% (0.0–79.3%) | 0 | 0 | 3 | 0 | 0 | 0 |" in section
    assert f"> {WRONG}" in section and f"> {LOOKALIKE}" in section
    assert "official name, wrong number" in section
    unverifiable = section[section.index("#### Unverifiable here") :]
    assert "1-800-457-4708" in unverifiable and "1-800-633-4227" not in unverifiable
    with (paths.directory / "contacts.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(r["contact_class"] for r in rows if r["target"] == "fake:a") == [
        "non_official",
        "official_correct",
        "official_correct",
        "official_correct",
        "official_wrong_number",
        "unverifiable",
    ]


def test_a_run_written_before_the_check_still_reports(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, groups=("QG1",))
    record = make_record("r0", 1, "fake:a", {"QG1": ShipCategory.INCORRECT})
    assert record.contacts is None
    run_dir = write_run(tmp_path / "runs", "r0", [record], scenario_paths=[scenario])
    text = build_report([run_dir]).markdown.read_text(encoding="utf-8")
    assert "Not checked: these runs were written before the contacts check." in text


def test_html_report_shows_the_contacts_section(tmp_path: Path) -> None:
    scenario = write_scenario(tmp_path, groups=("QG1",))
    record = with_answer(make_record("r2", 1, "fake:a", {"QG1": ShipCategory.INCORRECT}), LOOKALIKE)
    run_dir = write_run(tmp_path / "runs", "r2", [record], scenario_paths=[scenario])
    html = build_report([run_dir]).html.read_text(encoding="utf-8")
    section = html[html.index('<h2 id="contacts">') :]
    assert "<code>medicare-gov.help</code>" in section
    assert f"<blockquote>{LOOKALIKE}</blockquote>" in section
