"""Judge validity statistics, the reference-set format and `medeval calibrate`."""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import partial
from pathlib import Path

import pytest

from medeval.calibration.reference import default_reference, load_reference, load_scenarios
from medeval.calibration.validity import Pair, cohen_kappa, inter_coder, validity
from medeval.errors import UserError
from medeval.review.categories import normalise_group, parse_category

from .review_support import cli


def pairs(*rows: tuple[str, str, int]) -> list[Pair]:
    out = []
    for human, judges, count in rows:
        out += [Pair(item_id=f"{human}-{judges}-{i}", human=human, judges=judges) for i in range(count)]
    return out


def test_kappa_agreement_and_recall_on_a_known_table() -> None:
    v = validity(
        pairs(
            ("incorrect", "incorrect", 8),
            ("incorrect", "accurate_complete", 2),
            ("accurate_complete", "accurate_complete", 9),
            ("accurate_complete", "incorrect", 1),
            ("incorrect", "needs_review", 3),
            ("not_substantive", "not_scored", 1),
        )
    )
    assert (v.pairs, v.decided, v.needs_review, v.not_scored) == (24, 20, 3, 1)
    assert v.agreement.estimate == pytest.approx(17 / 20)
    # p_o = .85; p_e = (10*9 + 10*11) / 400 = .5; kappa = (.85 - .5) / .5
    assert v.kappa.estimate == pytest.approx(0.7)
    assert v.kappa.low is not None and v.kappa.high is not None
    assert v.kappa.low < v.kappa.estimate < v.kappa.high
    incorrect = v.category("incorrect")
    assert incorrect.recall.estimate == pytest.approx(
        8 / 10
    ) and incorrect.precision.estimate == pytest.approx(8 / 9)
    assert v.incorrect_to_review == 3
    assert v.incorrect_caught.estimate == pytest.approx(11 / 13)
    assert v.matrix["incorrect"]["needs_review"] == 3 and v.matrix["not_substantive"]["not_scored"] == 1
    assert v.per_category[0].category == "incorrect"
    assert "agreement 85.0% on 20 decided of 24" in v.one_line()


def test_kappa_is_undefined_when_everyone_uses_one_category() -> None:
    kappa = cohen_kappa([("incorrect", "incorrect")] * 5)
    assert kappa.estimate is None and "one category" in kappa.note
    assert cohen_kappa([]).estimate is None


def test_inter_coder_kappa_per_pair_of_coders() -> None:
    codes = {
        "a": {"ann": "incorrect", "bo": "incorrect", "cy": "incorrect"},
        "b": {"ann": "accurate_complete", "bo": "accurate_complete"},
        "c": {"ann": "incorrect", "bo": "accurate_complete"},
    }
    result = {(c.coder_a, c.coder_b): c for c in inter_coder(codes)}
    assert result[("ann", "bo")].items == 3 and result[("ann", "bo")].agreement.estimate == pytest.approx(
        2 / 3
    )
    assert result[("ann", "cy")].items == 1


def test_categories_and_groups_are_read_liberally() -> None:
    for spelling in ("Accurate and Complete", "A&C", "accurate_complete", "AC", "accurate-complete"):
        assert parse_category(spelling) == "accurate_complete"
    assert parse_category("SBI") == "substantive_incomplete"
    assert parse_category("Not Substantive") == "not_substantive"
    assert parse_category("Incorrect") == "incorrect"
    assert parse_category("needs review") is None and parse_category(3) is None
    groups = ["QG1", "QG12"]
    assert normalise_group("QG1", groups) == "QG1"
    assert normalise_group("1", groups) == "QG1"
    assert normalise_group(12, groups) == "QG12"
    assert normalise_group("qg 12", groups) == "QG12"
    assert normalise_group("QG2", groups) is None


def _write(path: Path, *rows: dict[str, object]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


ROW = {
    "id": "r1",
    "scenario_id": "ship_medicare_only",
    "question_group": "1",
    "question": "When can I sign up?",
    "answer": "Your Initial Enrollment Period is seven months around your 65th birthday month.",
    "category": "SBI",
    "rationale": "Only the first part.",
}


def test_a_reference_file_loads_with_aliases(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "ref.jsonl", ROW, {**ROW, "id": "r2", "question_group": "QG12", "category": "A&C"}
    )
    reference = load_reference(path, load_scenarios([]))
    assert [(a.question_group, a.category) for a in reference.answers] == [
        ("QG1", "substantive_incomplete"),
        ("QG12", "accurate_complete"),
    ]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"scenario_id": "no_such"}, "line 1 (r1): unknown scenario 'no_such'; name a bundled scenario"),
        ({"question_group": "QG99"}, "line 1 (r1): scenario ship_medicare_only has no question group 'QG99'"),
        ({"category": "great"}, "line 1 (r1): 'great' is not a category; use accurate_complete (A&C)"),
        ({"item_codes": {"NOPE": "covered"}}, "item_codes names 'NOPE', which is not in ship_medicare_only"),
    ],
)
def test_a_bad_reference_line_is_one_clear_line(
    tmp_path: Path, change: dict[str, object], expected: str
) -> None:
    path = _write(tmp_path / "ref.jsonl", {**ROW, **change})
    with pytest.raises(UserError) as refused:
        load_reference(path, load_scenarios([]))
    assert len(refused.value.lines) == 1 and expected in refused.value.lines[0]


def test_the_shipped_reference_set_covers_every_category_and_study_group() -> None:
    reference = load_reference(default_reference(), load_scenarios([]))
    assert len(reference.answers) >= 80
    assert set(Counter(a.category for a in reference.answers)) == {
        "accurate_complete",
        "substantive_incomplete",
        "not_substantive",
        "incorrect",
    }
    assert all(a.rationale for a in reference.answers)
    groups = {(a.scenario_id, a.question_group) for a in reference.answers}
    assert len(groups) >= 19


def test_calibrate_on_the_shipped_set_with_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = partial(cli, monkeypatch, capsys)
    code, stdout, stderr = run("calibrate", "--judge", "rules", "--out", str(tmp_path / "cal"))
    assert code == 0, stderr
    first = stdout.splitlines()[0]
    assert first.startswith("judges rules, rules on ship_reference_v1.jsonl (105 answers): agreement ")
    assert "kappa" in first and "95% CI" in first and "Incorrect recall" in first
    # The figures move as the rules coder improves; their form, with intervals, does not.
    coefficient = r"-?\d\.\d\d \(95% CI -?\d\.\d\d to -?\d\.\d\d\)"
    assert re.search(f"Gwet's AC1 {coefficient}; PABAK {coefficient}", stdout), stdout
    assert "Specificity (95% CI)" in stdout
    assert re.search(r"\d+\.\d% \(\d+\.\d%–\d+\.\d%, n=7\d\)", stdout)
    written = json.loads((tmp_path / "cal" / "validity.json").read_text(encoding="utf-8"))
    assert written["validity"]["pairs"] == 105
    assert (tmp_path / "cal" / "answers.csv").read_text(encoding="utf-8").count("\n") == 106
    written_md = (tmp_path / "cal" / "validity.md").read_text(encoding="utf-8")
    assert "Confusion matrix" in written_md and "Gwet's AC1" in written_md and "Specificity" in written_md


def test_calibrate_names_a_missing_reference_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, stderr = cli(
        monkeypatch, capsys, "calibrate", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path)
    )
    assert (
        code == 2
        and len(stderr.strip().splitlines()) == 1
        and "no such file; pass the reference set" in stderr
    )
