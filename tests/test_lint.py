"""`medeval validate` and the linter behind it: one line per finding, non-zero exit on errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from medeval.scenarios.lint import Finding, lint_file, lint_paths
from medeval.scenarios.load import expand_paths

from .conftest import REPO, SCENARIOS, medeval


def base() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SCENARIOS / "scenario_001.json").read_text())
    return data


def key(data: dict[str, Any]) -> dict[str, Any]:
    answer_key: dict[str, Any] = data["answer_key"]
    return answer_key


def write(tmp_path: Path, data: Any, name: str = "scenario.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def errors(findings: list[Finding]) -> list[str]:
    return [f.line() for f in findings if f.level == "error"]


def warnings(findings: list[Finding]) -> list[str]:
    return [f.line() for f in findings if f.level == "warning"]


def test_the_bundled_library_has_no_errors_and_no_warnings_for_2026() -> None:
    files = expand_paths([SCENARIOS])
    assert len(files) >= 16
    findings = lint_paths(files, plan_year=2026)
    assert findings == []


def test_a_required_point_without_contradiction_coverage_is_an_error_only_in_a_study_script(
    tmp_path: Path,
) -> None:
    data = base()
    fact = key(data)["canonical_facts"][0]
    fact["patterns"]["contradict"] = []
    fact["patterns"].pop("stale", None)
    assert fact["fact_id"] in key(data)["required_points"]
    topic = [f for f in lint_file(write(tmp_path, data)) if "no contradiction" in f.message]
    assert [f.level for f in topic] == ["warning"]
    data["script"] = "dual_eligible"
    study = [f for f in lint_file(write(tmp_path, data, "study.json")) if "no contradiction" in f.message]
    assert [f.level for f in study] == ["error"]
    assert "study's scripts" in study[0].message


def test_validate_passes_on_the_repository_scenarios_directory(tmp_path: Path) -> None:
    done = medeval("validate", "scenarios/", cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert "error:" not in done.stderr
    assert "scenario file(s) valid" in done.stdout


def test_missing_fact_and_missing_source_are_both_named_with_exit_2(tmp_path: Path) -> None:
    data = base()
    data["scripted_turns"][0]["required_points"].append("F99")
    del key(data)["canonical_facts"][1]["source"]
    bad = write(tmp_path, data)
    done = medeval("validate", str(bad), cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert all(line.startswith(("error: ", "warning: ")) for line in lines), lines
    problems = [line for line in lines if line.startswith("error:")]
    assert len(problems) == 2, lines
    assert any(
        "$.scripted_turns[0].required_points[4]" in p and "'F99' names no canonical fact" in p
        for p in problems
    )
    assert any("$.answer_key.canonical_facts[1].source" in p and "'F2' has no source" in p for p in problems)
    assert "Traceback" not in done.stderr


def test_duplicate_ids_and_dangling_references_are_errors(tmp_path: Path) -> None:
    data = base()
    key(data)["canonical_facts"][1]["fact_id"] = "F1"
    key(data)["required_points"].append("NOPE")
    data["scripted_turns"].append(
        {
            "turn_id": "Q2",
            "user_message": "And?",
            "condition": {"after_turn": "Q9", "unless_mentioned": ["x"]},
        }
    )
    key(data)["disallowed_claims"][0]["claim_id"] = "F3"
    found = errors(lint_file(write(tmp_path, data)))
    assert any("duplicate fact_id 'F1'" in line for line in found)
    assert any("$.answer_key.required_points[4]" in line and "'NOPE'" in line for line in found)
    assert any("condition.after_turn" in line and "'Q9' is not an earlier turn" in line for line in found)
    assert any(
        "$.answer_key.disallowed_claims[0].claim_id" in line and "already used" in line for line in found
    )


def test_a_fact_without_an_effective_date_takes_the_scenarios_with_a_warning(tmp_path: Path) -> None:
    data = base()
    del key(data)["canonical_facts"][0]["effective_date"]
    findings = lint_file(write(tmp_path, data), plan_year=2026)
    assert errors(findings) == []
    assert warnings(findings) == [
        f"warning: {tmp_path / 'scenario.json'}: $.answer_key.canonical_facts[0].effective_date: "
        f"fact 'F1' has no effective_date, so it takes the scenario's ({data['effective_date']}); "
        "add one where the fact holds from another date (YYYY-MM-DD)"
    ]


def test_patterns_must_compile_everywhere(tmp_path: Path) -> None:
    data = base()
    key(data)["canonical_facts"][0]["patterns"]["contradict"].append("(unclosed")
    key(data)["disallowed_claims"][0]["patterns"].append("[bad")
    data["scripted_turns"].append(
        {
            "turn_id": "Q2",
            "user_message": "And?",
            "condition": {"after_turn": "Q1", "unless_mentioned": ["*x"]},
        }
    )
    found = errors(lint_file(write(tmp_path, data)))
    assert any(
        "canonical_facts[0].patterns.contradict[1]" in line and "does not compile" in line for line in found
    )
    assert any("disallowed_claims[0].patterns[2]" in line and "does not compile" in line for line in found)
    assert any("condition.unless_mentioned[0]" in line and "does not compile" in line for line in found)


def test_a_pattern_nested_too_deep_is_one_finding_not_a_crash(tmp_path: Path) -> None:
    data = base()
    key(data)["canonical_facts"][0]["patterns"]["contradict"].append("(" * 2000 + "a" + ")" * 2000)
    found = errors(lint_file(write(tmp_path, data)))
    assert any(
        "canonical_facts[0].patterns.contradict[1]" in line and "does not compile" in line for line in found
    )


def test_a_statement_must_match_its_support_and_none_of_its_contradictions(tmp_path: Path) -> None:
    data = base()
    key(data)["canonical_facts"][2]["patterns"]["support"] = [r"\$999"]  # F3 no longer supports itself
    key(data)["canonical_facts"][3]["patterns"]["contradict"].append(r"\$9,250")  # F4 contradicts itself
    found = errors(lint_file(write(tmp_path, data), plan_year=2026))
    assert len(found) == 2, found
    assert "canonical_facts[2].patterns.support" in found[0] and "matches none of its support" in found[0]
    assert "canonical_facts[3].patterns.contradict[6]" in found[1] and "contradiction pattern" in found[1]


def test_a_fact_without_support_patterns_is_a_warning_and_a_required_one_says_it_stays_unscored(
    tmp_path: Path,
) -> None:
    data = base()
    key(data)["canonical_facts"][0]["patterns"]["support"] = []  # F1: required
    key(data)["canonical_facts"][5]["patterns"]["support"] = []  # F6: optional
    findings = lint_file(write(tmp_path, data), plan_year=2026)
    # `validate` and `run` accept the same files: the rules coder reports such a point as unscored.
    assert errors(findings) == []
    support = [w for w in warnings(findings) if "no support patterns" in w]
    assert len(support) == 2
    assert "'F1'" in support[0] and "leave it unscored" in support[0]
    assert "'F6'" in support[1] and "unscored" not in support[1]


def test_stale_dates_are_warnings_and_do_not_fail_validation(tmp_path: Path) -> None:
    data = base()
    data["effective_date"] = "2025-01-01"
    path = write(tmp_path, data)
    found = warnings(lint_file(path, plan_year=2026))
    assert any("$.effective_date" in line and "before the current plan year 2026" in line for line in found)
    # F3 and F4 hold for 2026, the scenario now says 2025.
    assert sum("holds for 2026 but the scenario is dated 2025" in line for line in found) == 2
    assert errors(lint_file(path, plan_year=2026)) == []
    done = medeval("validate", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("warning: ") >= 3


def test_a_dollar_figure_without_a_year_is_a_warning(tmp_path: Path) -> None:
    data = base()
    del key(data)["canonical_facts"][2]["year"]
    found = warnings(lint_file(write(tmp_path, data), plan_year=2026))
    assert len(found) == 1 and "'F3' states a dollar figure but no `year`" in found[0]


def test_schema_errors_are_reported_alongside_reference_errors(tmp_path: Path) -> None:
    data = base()
    key(data)["canonical_facts"][0]["severity_if_wrong"] = "catastrophic"
    key(data)["required_points"].append("GONE")
    found = errors(lint_file(write(tmp_path, data)))
    assert any("canonical_facts[0].severity_if_wrong" in line for line in found)
    assert any("'GONE' names no canonical fact" in line for line in found)


def test_unreadable_input_is_one_error_line(tmp_path: Path) -> None:
    not_an_object = write(tmp_path, [], "list.json")
    assert [f.line() for f in lint_file(not_an_object)] == [
        f"error: {not_an_object}: a scenario file must hold one JSON object"
    ]
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    assert len(lint_file(binary)) == 1 and "UTF-8" in lint_file(binary)[0].message


def test_a_statement_must_not_state_its_own_stale_figure_as_current(tmp_path: Path) -> None:
    data = base()
    key(data)["canonical_facts"][2]["patterns"]["stale"] = [r"\$202\.90", r"\$185\b", "("]
    findings = lint_file(write(tmp_path, data))
    assert any(
        "canonical_facts[2].patterns.stale[0]" in e and "states stale figure" in e for e in errors(findings)
    ), errors(findings)
    assert not any("patterns.stale[1]" in e for e in errors(findings))  # not in the statement
    assert any("patterns.stale[2]" in e for e in errors(findings))  # does not compile
