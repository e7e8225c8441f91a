"""`medeval ingest` end to end, in subprocesses: the README's commands, a run that verify passes and
report, compare, review, export and rescore handle like any run, provenance in the report, a
malformed file refused whole, and counselors' transcripts as their own SHIP-table row."""

from __future__ import annotations

import csv
import json
import re
import shlex
from pathlib import Path

import pytest

from medeval.records.storage import read_jsonl, without_chain
from medeval.schemas import TrialRecord

from .conftest import REPO, medeval, only_run

SHIP = "scenarios/v1/ship_medicare_only.json"


def trials(run_dir: Path) -> list[TrialRecord]:
    return [TrialRecord.model_validate(without_chain(r)) for r in read_jsonl(run_dir / "results.jsonl")]


def workspace(tmp_path: Path) -> Path:
    """A directory laid out like the repository root, where the README's commands run."""
    for name in ("examples", "scenarios"):
        (tmp_path / name).symlink_to(REPO / name)
    return tmp_path


def readme_ingest_commands() -> list[list[str]]:
    """The `medeval ingest` lines of the README's code blocks."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    lines = [" ".join(b.replace("\\\n", " ").split()) for block in blocks for b in block.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("medeval ingest ")]


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The issue's command, verbatim, as the README gives it first."""
    root = workspace(tmp_path_factory.mktemp("ingest"))
    command = readme_ingest_commands()[0]
    assert command == [
        "ingest",
        "examples/transcripts.csv",
        "--scenario",
        SHIP,
        "--product",
        "Example assistant (web)",
    ]
    done = medeval(*command, cwd=root)
    assert done.returncode == 0, done.stderr
    return only_run(root / "runs"), done.stdout


def test_the_example_csv_becomes_a_run_that_verify_passes(ingested: tuple[Path, str]) -> None:
    run_dir, stdout = ingested
    done = medeval("verify", str(run_dir), cwd=run_dir.parent)
    assert done.returncode == 0, done.stderr
    records = trials(run_dir)
    assert [r.target.spec for r in records] == ["ingested:Example assistant (web)"] * 2
    assert [r.ingest.conversation_id for r in records if r.ingest] == ["web-1", "web-2"]
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["ingest"]["files"][0]["path"] == "examples/transcripts.csv"
    assert manifest["config"]["targets"] == ["ingested:Example assistant (web)"]
    # No target call: the judges' work only (the rules judges make none).
    calls = run_dir / "calls.jsonl"
    assert not calls.exists() or calls.read_text(encoding="utf-8") == ""
    assert "web-1 -> ship_medicare_only: 18 turn(s) matched" in stdout


def test_a_skipped_question_and_an_extra_turn_are_listed(ingested: tuple[Path, str]) -> None:
    run_dir, stdout = ingested
    line = next(x for x in stdout.splitlines() if x.startswith("web-2 -> "))
    assert "skipped: Q5" in line and "extra: x1 (not coded)" in line and "(by text: Q1 0." in line
    web2 = trials(run_dir)[1]
    assert web2.ingest is not None and web2.ingest.skipped == ["Q5"]
    assert [e.text for e in web2.ingest.extra if e.role == "user"] == [
        "Does Medicare cover dental cleanings?"
    ]
    # The extra turn stays in the transcript, verbatim; the skipped question's group has no data.
    assert any(
        t.turn_id == "x1" and t.text.startswith("Original Medicare generally") for t in web2.conversation
    )
    qg12 = next(g for g in web2.groups if g.question_group == "QG12")
    assert qg12.ship_category == "incomplete_data"


def test_the_report_shows_the_provenance(ingested: tuple[Path, str]) -> None:
    run_dir, _ = ingested
    done = medeval("report", str(run_dir), cwd=run_dir.parent)
    assert done.returncode == 0, done.stderr
    markdown = (run_dir / "report" / "report.md").read_text(encoding="utf-8")
    section = markdown.split("## Provenance of ingested conversations", 1)[1].split("\n## ", 1)[0]
    assert (
        "| web-1 | ingested:Example assistant (web) | ship_medicare_only | Example assistant (web) "
        "(Example model 4 (named in the chat window)) | Example researcher | 2026-11-20 | web | none | "
        "18 (0) | none | none | 0 |"
    ) in section
    assert "| web-2 |" in section and "| 16 (16) | Q5 | none | 1 |" in section
    html = (run_dir / "report" / "report.html").read_text(encoding="utf-8")
    assert 'id="provenance-table"' in html and "Example researcher" in html


def test_compare_review_export_and_rescore_treat_it_as_any_run(
    ingested: tuple[Path, str], tmp_path: Path
) -> None:
    run_dir, _ = ingested
    root = workspace(tmp_path)
    other = medeval(*readme_ingest_commands()[2], cwd=root)
    assert other.returncode == 0, other.stderr
    assert (
        medeval("compare", str(run_dir), str(only_run(root / "runs")), "--out", "cmp", cwd=root).returncode
        == 0
    )
    assert (root / "cmp" / "compare.md").is_file()
    exported = medeval("export", str(run_dir), "--format", "csv", "--out", "tables", cwd=root)
    assert exported.returncode == 0, exported.stderr
    with (root / "tables" / "trials.csv").open(encoding="utf-8") as handle:
        assert {row["target"] for row in csv.DictReader(handle)} == {"ingested:Example assistant (web)"}
    review = medeval(
        "review", "export", str(run_dir), "--sample", "1", "--out", str(root / "review"), cwd=root
    )
    assert review.returncode == 0, review.stderr
    rescored = medeval("rescore", str(run_dir), "--judge", "rules", "--out", "rescored", cwd=root)
    assert rescored.returncode == 0, rescored.stderr
    new = only_run(root / "rescored")
    [first, *_] = trials(new)
    assert first.ingest is not None and first.ingest.conversation_id == "web-1"
    assert json.loads((new / "manifest.json").read_text(encoding="utf-8"))["ingest"]["provenance"][
        "product"
    ] == ("Example assistant (web)")
    resumed = medeval("run", "--resume", str(run_dir), cwd=root)
    assert resumed.returncode == 2
    assert "it was ingested from transcripts" in resumed.stderr


def test_the_readme_jsonl_command_runs_and_verifies(tmp_path: Path) -> None:
    # The README's other commands run in the tests around this one (Markdown, counselors).
    root = workspace(tmp_path)
    commands = readme_ingest_commands()
    assert [c[1] for c in commands] == [
        "examples/transcripts.csv",
        "examples/transcripts.jsonl",
        "examples/transcripts.md",
        "examples/counselor_calls.md",
    ]
    done = medeval(*commands[1], cwd=root)
    assert done.returncode == 0, done.stderr
    assert "app-2 -> ship_medicare_only: 6 turn(s) matched" in done.stdout
    run_dir = only_run(root / "runs")
    assert medeval("verify", str(run_dir), cwd=root).returncode == 0
    [app1, _] = trials(run_dir)
    assert app1.ingest is not None and app1.ingest.provenance.channel == "app"
    [shot] = app1.ingest.provenance.attachments
    assert (shot.kind, shot.path) == ("screenshot", "attachments/app-1.png")


def test_a_malformed_file_is_refused_with_a_line_per_problem_and_no_run_left(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    bad = root / "bad.csv"
    bad.write_text(
        "conversation_id,turn_id,role,text\nc1,Q1,user,When can I select my plan?\nc1,Q1,robot,Soon\n"
        "c1,Q77,user,Anything else?\n",
        encoding="utf-8",
    )
    done = medeval("ingest", "bad.csv", "-s", SHIP, "--product", "X", "--out", "out", cwd=root)
    assert done.returncode == 2
    assert done.stderr.splitlines()[1:] == [
        "error: bad.csv:3: role 'robot' is neither user nor assistant (e.g. user, assistant, counselor)",
        "error: bad.csv:4: turn id 'Q77' is not in scenario ship_medicare_only (Q1, Q2, Q3, Q4, Q5, Q6, "
        "Q7, Q8, Q9, Q10, Q11, Q12, Q13, Q14a, Q14b, Q15, Q16); fix it, or leave it empty to match the "
        "question by its text",
    ]
    assert "Traceback" not in done.stderr
    assert not (root / "out").exists() or not any((root / "out").iterdir())


def test_counselor_transcripts_are_their_own_ship_table_row(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    command = next(c for c in readme_ingest_commands() if "--counselor" in c)
    done = medeval(*command, "--out", "counselors", cwd=root)
    assert done.returncode == 0, done.stderr
    run_dir = only_run(root / "counselors")
    report = medeval("report", str(run_dir), cwd=root)
    assert report.returncode == 0, report.stderr
    with (run_dir / "report" / "ship_table.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    qg1 = [(r["source"], r["target"]) for r in rows if r["question_group"] == "QG1"]
    # Beside the study's published counselor rows, after them, labelled as coded by these judges.
    assert qg1 == [
        ("counselors", "SHIP counselors, phone"),
        ("counselors", "SHIP counselors, face to face"),
        ("counselors", "SHIP counselors, combined"),
        ("counselors_coded", "ingested:Example SHIP program"),
    ]
    pooled = [r for r in rows if r["question_group"] == "ALL" and r["source"] == "counselors_coded"]
    assert len(pooled) == 1 and pooled[0]["n"] == "26"
    markdown = (run_dir / "report" / "report.md").read_text(encoding="utf-8")
    assert "| QG1 | ingested:Example SHIP program: counselors, coded by these judges | 2 |" in markdown
    assert "phone transcript, counselor" in markdown
    headline = markdown.split("## Headline", 1)[1].split("\n## ", 1)[0]
    assert "| ingested:Example SHIP program: counselors, coded by these judges | 26 |" in headline
