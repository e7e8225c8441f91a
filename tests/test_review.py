"""Human coding of a run: export, import into reviews.jsonl, precedence in the report, verify."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from medeval.errors import UserError
from medeval.records.audit import verify_run
from medeval.records.storage import REVIEWS
from medeval.reporting.build import build_report
from medeval.review import export as export_module
from medeval.review.categories import STUDY_CATEGORIES
from medeval.review.export import make_export, render_html, write_export
from medeval.review.importing import import_codes
from medeval.review.items import ReviewItem, build_items, load_run
from medeval.review.precedence import decide
from medeval.review.sample import parse_sample, select
from medeval.review.store import Decision, ReviewImport, append_import, read_imports

from .review_support import DEMO_TARGETS, cli, codes_file, flip, fresh_copy, make_demo_run, read_csv


@pytest.fixture(scope="module")
def demo_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_run(tmp_path_factory.mktemp("review-demo"))


Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    return partial(cli, monkeypatch, capsys)


@pytest.fixture
def demo(demo_source: Path, tmp_path: Path) -> Path:
    return fresh_copy(demo_source, tmp_path / "runs")


def test_export_with_a_fifth_sample_writes_page_and_csv(demo: Path, tmp_path: Path, run_cli: Cli) -> None:
    code, stdout, stderr = run_cli(
        "review", "export", str(demo), "--sample", "0.2", "--out", str(tmp_path / "x.html")
    )
    assert code == 0, stderr
    page, sheet = tmp_path / "x.html", tmp_path / "x.csv"
    rows = read_csv(sheet)
    decided = [i for i in build_items(load_run(demo)) if i.judge_category in STUDY_CATEGORIES]
    audit = [r for r in rows if r["selection"] == "audit"]
    assert len(audit) == round(0.2 * len(decided))
    # Stratified: every target of the run is in the audit sample.
    assert {r["target"] for r in audit} == set(DEMO_TARGETS)
    html = page.read_text(encoding="utf-8")
    for row in rows:
        assert f'data-item-id="{row["item_id"]}"' in html
        assert f'data-item-hash="{row["item_hash"]}"' in html
        assert row["answer"] and row["checklist"]
    # Offline: nothing on the page is fetched from elsewhere.
    assert "http://" not in html.split("<main>")[0] and "src=" not in html
    assert str(page) in stdout


def test_the_sample_is_seeded_and_the_same_groups_each_time(demo: Path) -> None:
    first = [i.item_id for i in make_export(demo, 0.2, 7, blind=False).items]
    again = [i.item_id for i in make_export(demo, 0.2, 7, blind=False).items]
    other = [i.item_id for i in make_export(demo, 0.2, 8, blind=False).items]
    assert first == again and first != other
    # Five audited, beside every group the judges left undecided (always exported).
    undecided = [i for i in build_items(load_run(demo)) if i.judge_category not in STUDY_CATEGORIES]
    assert len(make_export(demo, 5, 7, blind=False).items) == 5 + len(undecided)


def test_blind_export_hides_the_judges_codes(demo: Path, tmp_path: Path) -> None:
    export = make_export(demo, 0.2, 1, blind=True)
    paths = write_export(export, tmp_path / "blind.html")
    html = paths.html.read_text(encoding="utf-8")
    assert 'class="judges"' not in html and "judge-category" not in html
    assert all(r["judge_category"] == "" and r["judge_item_codes"] == "" for r in read_csv(paths.csv))
    # Same groups, same hashes as an open export: a blind coder's codes line up with an open one's.
    open_items = {i.item_id: i.item_hash for i in make_export(demo, 0.2, 1, blind=False).items}
    assert {i.item_id: i.item_hash for i in export.items} == open_items


def test_a_hostile_answer_is_shown_as_text(demo: Path) -> None:
    export = make_export(demo, 1, 1, blind=False)
    item = export.items[0]
    hostile = '</script><script>alert(1)</script><img src=x onerror=alert(2)> & "quotes"'
    exchange = item.exchanges[0].model_copy(update={"answer": hostile})
    export = export.model_copy(update={"items": [item.model_copy(update={"exchanges": [exchange]})]})
    html = render_html(export)
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;" in html
    # The embedded metadata cannot close its script element either.
    meta = html.split('id="review-meta">', 1)[1].split("</script>", 1)[0]
    assert json.loads(meta)["items"][0]["item_id"] == item.item_id


def test_every_undecided_group_is_exported_and_the_audit_is_stratified(demo: Path) -> None:
    items = build_items(load_run(demo))
    # Make some groups undecided, as model judges leave them (beside those the demo's judges leave).
    decided = [i for i in items if i.judge_category in STUDY_CATEGORIES]
    undecided = {i.item_id: "needs_review" for i in items if i.judge_category not in STUDY_CATEGORIES}
    undecided |= {decided[0].item_id: "needs_review", decided[7].item_id: "not_scored"}
    items = [
        i.model_copy(update={"judge_category": undecided.get(i.item_id, i.judge_category)}) for i in items
    ]
    chosen = select(items, 0, 1)
    assert {i.item_id: i.selection for i in chosen} == undecided
    chosen = select(items, 0.5, 1)
    assert {i.item_id for i in chosen} >= set(undecided)
    strata: dict[tuple[str, str], list[int]] = {}
    for item in items:
        if item.judge_category in STUDY_CATEGORIES:
            picked = any(c.item_id == item.item_id for c in chosen)
            strata.setdefault((item.target, item.question_group), []).append(picked)
    # Proportional allocation: no stratum is more than one group off half its size.
    assert all(abs(sum(p) - len(p) / 2) <= 1 for p in strata.values())


def test_an_export_with_nothing_to_code_says_how_to_get_a_sample(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run whose judges decided every group.
    decided = [i for i in build_items(load_run(demo)) if i.judge_category in STUDY_CATEGORIES]
    monkeypatch.setattr(export_module, "build_items", lambda run: decided)
    with pytest.raises(UserError, match=r"nothing to code.*pass --sample 0\.2"):
        make_export(demo, 0, 1, blind=False)
    assert len(make_export(demo, 2, 1, blind=False).items) == 2


def test_sample_must_be_a_fraction_or_a_count() -> None:
    assert parse_sample("0.2") == 0.2 and parse_sample("30") == 30 and parse_sample(None) == 0
    with pytest.raises(UserError, match="between 0 and 1"):
        parse_sample("1.5")
    with pytest.raises(UserError, match="between 0 and 1"):
        parse_sample("many")


def _two_changed(demo: Path, tmp_path: Path, coder: str = "alice") -> tuple[Path, list[ReviewItem]]:
    """A coder's file for five audited groups: three as the judges coded them, two changed."""
    items = [i for i in make_export(demo, 0.2, 3, blind=False).items if i.selection == "audit"][:5]
    entries = [
        {
            "item_id": item.item_id,
            "item_hash": item.item_hash,
            "category": flip(item.judge_category) if n < 2 else item.judge_category,
            "item_codes": {item.facts[0].fact_id: "covered"},
            "note": "checked",
        }
        for n, item in enumerate(items)
    ]
    return codes_file(tmp_path / f"codes-{coder}.json", items[0].run_id, entries, coder=coder), items


def _ship(report_dir: Path) -> dict[tuple[str, str], dict[str, str]]:
    rows = read_csv(report_dir / "ship_table.csv")
    return {(r["question_group"], r["target"]): r for r in rows if r["source"] == "ai"}


def test_imported_codes_decide_their_groups_in_the_report(demo: Path, tmp_path: Path, run_cli: Cli) -> None:
    before = build_report([demo], tmp_path / "before")
    assert "No person has coded any group of this run yet" in before.markdown.read_text(encoding="utf-8")
    ship_before = _ship(before.directory)
    codes, items = _two_changed(demo, tmp_path)
    results = (demo / "results.jsonl").read_bytes()

    code, stdout, stderr = run_cli("review", "import", str(demo), str(codes), "--coder", "alice")
    assert code == 0, stderr
    assert "imported 5 code(s) by alice" in stdout
    assert (demo / "results.jsonl").read_bytes() == results  # never rewritten
    imports = read_imports(demo)
    assert len(imports) == 1 and imports[0].coder == "alice" and len(imports[0].decisions) == 5
    assert all(d.item_hash for d in imports[0].decisions) and imports[0].imported_at
    assert [f.severity for f in verify_run(demo)] == ["ok"]

    after = build_report([demo], tmp_path / "after")
    markdown = after.markdown.read_text(encoding="utf-8")
    assert "5 question group(s) were decided by people" in markdown
    assert "2 of them differ from the judges' category" in markdown
    section = markdown.split("Groups where the people's category replaced the judges'", 1)[1]
    overrides = section.split("### Judge validity", 1)[0]
    for item in items[:2]:
        assert item.item_id in overrides
    for item in items[2:]:
        assert item.item_id not in overrides
    assert "Confusion matrix (rows: people; columns: the judges)" in markdown
    assert "Cohen's kappa" in markdown and "Incorrect recall" in markdown
    assert "Gwet's AC1" in markdown and "PABAK" in markdown and "Specificity (95% CI)" in markdown
    html = after.html.read_text(encoding="utf-8")
    assert 'id="validity-matrix"' in html and 'id="human-overrides"' in html

    # The SHIP table counts the people's categories for the two changed groups.
    ship_after = _ship(after.directory)
    for item in items[:2]:
        cell = (item.question_group, item.target)
        old, new = ship_before[cell], ship_after[cell]
        assert int(new[item.judge_category]) == int(old[item.judge_category]) - 1
        assert int(new[flip(item.judge_category)]) == int(old[flip(item.judge_category)]) + 1
        assert int(new["decided_by_people"]) >= 1


def test_importing_the_same_file_twice_is_refused_and_writes_nothing(
    demo: Path, tmp_path: Path, run_cli: Cli
) -> None:
    codes, _ = _two_changed(demo, tmp_path)
    assert run_cli("review", "import", str(demo), str(codes), "--coder", "alice")[0] == 0
    stored = (demo / REVIEWS).read_bytes()
    code, _, stderr = run_cli("review", "import", str(demo), str(codes), "--coder", "alice")
    assert code == 2
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "already imported" in lines[0] and "Traceback" not in stderr
    assert (demo / REVIEWS).read_bytes() == stored


def test_an_unknown_item_is_refused_in_one_line_and_nothing_is_written(
    demo: Path, tmp_path: Path, run_cli: Cli
) -> None:
    codes, _ = _two_changed(demo, tmp_path)
    body = json.loads(codes.read_text(encoding="utf-8"))
    body["items"][3]["item_id"] = "no-such-trial:QG1"
    codes.write_text(json.dumps(body), encoding="utf-8")
    code, _, stderr = run_cli("review", "import", str(demo), str(codes), "--coder", "alice")
    assert code == 2
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown item 'no-such-trial:QG1'" in lines[0]
    assert not (demo / REVIEWS).exists()


def test_import_into_a_directory_that_is_no_run_says_so(demo: Path, tmp_path: Path) -> None:
    codes, _ = _two_changed(demo, tmp_path)
    with pytest.raises(UserError, match="not a run directory"):
        import_codes(tmp_path / "nowhere", codes, "alice")
    assert not (tmp_path / "nowhere").exists()


def test_every_problem_in_a_file_is_one_line_and_nothing_is_written(demo: Path, tmp_path: Path) -> None:
    codes, items = _two_changed(demo, tmp_path)
    body = json.loads(codes.read_text(encoding="utf-8"))
    body["items"][0]["category"] = "mostly right"
    body["items"][1]["item_hash"] = "0" * 64
    body["items"][2]["item_codes"] = {"NOT_A_FACT": "covered"}
    body["items"].append(dict(body["items"][4]))
    codes.write_text(json.dumps(body), encoding="utf-8")
    with pytest.raises(UserError) as refused:
        import_codes(demo, codes, "alice")
    lines = refused.value.lines
    assert any("'mostly right' is not a category" in line for line in lines)
    assert any(f"item {items[1].item_id} changed since it was exported" in line for line in lines)
    assert any("'NOT_A_FACT' is not one of its checklist items" in line for line in lines)
    assert any(f"item {items[4].item_id} is coded twice" in line for line in lines)
    assert lines[-1].endswith("4 problems; nothing was imported")
    assert not (demo / REVIEWS).exists()


def test_csv_codes_are_imported_with_aliases(demo: Path, tmp_path: Path) -> None:
    paths = write_export(make_export(demo, 3, 5, blind=True), tmp_path / "sheet.html")
    rows = read_csv(paths.csv)
    rows[0]["category"] = "A&C"
    rows[1]["category"] = "Substantive but Incomplete"
    fact = rows[1]["checklist"].split(":", 1)[0].split(" ")[0]
    rows[1]["item_codes"] = f"{fact}=Covered"
    with paths.csv.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = import_codes(demo, paths.csv, "bob")
    decisions = result.record.decisions
    assert [d.category for d in decisions] == ["accurate_complete", "substantive_incomplete"]
    assert decisions[1].item_codes == {fact: "covered"}


def test_two_coders_consensus_split_and_inter_coder_kappa(demo: Path, tmp_path: Path) -> None:
    items = make_export(demo, 0.2, 3, blind=True).items[:4]
    alice = [{"item_id": i.item_id, "item_hash": i.item_hash, "category": "incorrect"} for i in items]
    bob = [dict(e) for e in alice]
    bob[0]["category"] = "not_substantive"
    import_codes(demo, codes_file(tmp_path / "a.json", items[0].run_id, alice, blind=True), "alice")
    import_codes(demo, codes_file(tmp_path / "b.json", items[0].run_id, bob, blind=True), "bob")
    assert [f.severity for f in verify_run(demo)] == ["ok"]
    markdown = build_report([demo], tmp_path / "report").markdown.read_text(encoding="utf-8")
    assert "3 question group(s) were decided by people (3 by consensus" in markdown
    assert "1 group(s) split the coders with no majority" in markdown
    assert "3 of the people's decisions were made blind" in markdown
    assert "### Agreement between coders" in markdown and "| alice / bob | 4 |" in markdown
    assert "| Coders | Groups | Agreement (95% CI) | Cohen's kappa | Gwet's AC1 | PABAK |" in markdown


def test_precedence_consensus_then_single_coder_then_judges() -> None:
    assert decide(["incorrect"]) == ("incorrect", "coder")
    assert decide(["incorrect", "incorrect"]) == ("incorrect", "consensus")
    assert decide(["incorrect", "not_substantive"]) == (None, "coders_disagree")
    assert decide(["incorrect", "not_substantive", "incorrect"]) == ("incorrect", "consensus")


def test_verify_catches_an_edited_or_deleted_review(demo: Path, tmp_path: Path) -> None:
    codes, _ = _two_changed(demo, tmp_path)
    import_codes(demo, codes, "alice")
    path = demo / REVIEWS
    original = path.read_text(encoding="utf-8")
    path.write_text(original.replace('"category":"incorrect"', '"category":"accurate_complete"', 1), "utf-8")
    assert any(
        f.severity == "error" and f.file == REVIEWS and "changed" in f.message for f in verify_run(demo)
    )
    path.write_text("", encoding="utf-8")
    assert any(f.severity == "error" and "truncated" in f.message for f in verify_run(demo))


def test_checklist_item_codes_of_people_and_judges_are_compared(demo: Path, tmp_path: Path) -> None:
    items = [i for i in make_export(demo, 0.2, 3, blind=False).items if i.selection == "audit"][:2]
    decisions = [
        Decision(
            item_id=i.item_id,
            item_hash=i.item_hash,
            trial_id=i.trial_id,
            question_group=i.question_group,
            scenario_id=i.scenario_id,
            target=i.target,
            judge_category=i.judge_category,
            category=i.judge_category,
            item_codes={i.facts[0].fact_id: "covered"},
            judge_item_codes={i.facts[0].fact_id: code},
        )
        for i, code in zip(items, ("covered", "absent"), strict=True)
    ]
    record = ReviewImport(
        run_id=items[0].run_id,
        coder="dee",
        imported_at="2026-11-24T00:00:00Z",
        source_name="x.json",
        source_sha256="0" * 64,
        decisions=decisions,
    )
    append_import(demo, record)
    markdown = build_report([demo], tmp_path / "report").markdown.read_text(encoding="utf-8")
    assert "Checklist items coded by both a person and the judges: 2; the codes" in markdown
    assert "agree on 50.0%" in markdown
