"""What the rules coder's minimal-pair tests share: the bundled 2026 keys, and the items an answer
is credited with or contradicts."""

from __future__ import annotations

from functools import cache

from medeval.agents import rules
from medeval.agents.rulecoder.coder import OFF_CHECKLIST
from medeval.scenarios.load import bundled_scenarios_dir, load_scenario
from medeval.schemas import Scenario, VerifierOutput


@cache
def key(name: str) -> Scenario:
    """A bundled 2026 SHIP key ("ship_medicare_only", "ship_dual_eligible"), loaded once."""
    return load_scenario(bundled_scenarios_dir() / "v1" / f"{name}.json")


def covered(scenario: Scenario, group: str, answer: str) -> set[str]:
    out = rules.code_answer(scenario, group, answer)
    return {c.fact_id for c in out.checklist if c.code == "covered"}


def contradicted(scenario: Scenario | str, group: str, answer: str) -> set[str]:
    """The facts and disallowed claims the answer's sentences contradict (those off the group's
    checklist included: the coder sends them to a person, `coder.off_checklist`)."""
    out = rules.code_answer(key(scenario) if isinstance(scenario, str) else scenario, group, answer)
    return {e for v in out.verdicts if v.label == "CONTRADICTED" for e in v.evidence} | off_checklist(out)


def off_checklist(out: VerifierOutput) -> set[str]:
    """The points off the group's checklist whose contradiction the coder left to a person."""
    return {line.split("(", 1)[1].split(":", 1)[0] for line in out.uncertain if f": {OFF_CHECKLIST})" in line}


def wrong_rule_pair(name: str, group: str, fact: str, wrong: str, right: str) -> None:
    """The wrong sentence contradicts the fact; its true twin does not."""
    scenario = key(name)
    assert fact in contradicted(scenario, group, wrong)
    assert fact not in contradicted(scenario, group, right)


def minimal_pair(name: str, group: str, true: str, wrong: str) -> None:
    """The true answer is not coded Incorrect; the wrong one beside it is, or, when what it gets
    wrong is off the group's checklist, goes to a person for that reason (`coder.off_checklist`)."""
    from .conftest import rules_benchmark

    scenario = key(name)
    category = rules_benchmark().category

    def coded(answer: str) -> str:
        out = rules.code_answer(scenario, group, answer)
        got, _ = category(scenario, group, out)
        return "incorrect" if got == "needs_review" and off_checklist(out) else str(got)

    assert coded(true) != "incorrect"
    assert coded(wrong) == "incorrect"
