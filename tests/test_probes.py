"""Judge bias probes (calibration/perturb.py, engine/probes.py, `calibrate --probes`)."""

from __future__ import annotations

import asyncio
import csv
import re
from functools import partial
from pathlib import Path

import pytest

from medeval.calibration.perturb import (
    PADDING,
    as_markdown,
    as_prose,
    padded,
    sentences,
    shuffled,
    with_statement,
    wrong_statement,
)
from medeval.calibration.reference import ReferenceSet, default_reference, load_reference, load_scenarios
from medeval.engine.probes import probe_judge, sample
from medeval.schemas import Scenario

from .review_support import cli

ANSWER = (
    "**Short answer:** yes.\n\n- Part B costs money each month.\n- You can enroll at 65.\n\n"
    "| Item | Detail |\n|---|---|\n| Premium | Monthly |"
)


@pytest.fixture(scope="module")
def reference() -> ReferenceSet:
    return load_reference(default_reference(), load_scenarios([]))


def test_perturbations_keep_the_content_and_change_only_what_they_probe(reference: ReferenceSet) -> None:
    assert sentences(ANSWER)[:3] == [
        "Short answer: yes.",
        "Part B costs money each month.",
        "You can enroll at 65.",
    ]
    prose = as_prose(ANSWER)
    assert not re.search(r"[*#|]|^- ", prose, re.MULTILINE) and "Part B costs money each month." in prose
    markdown = as_markdown(ANSWER)
    assert (
        markdown.startswith("## Summary")
        and "- You can enroll at 65." in markdown
        and "|---|---|" in markdown
    )
    # The padding says nothing a key could check: no figure, no Medicare term.
    assert not any(re.search(r"\d|Medicare|Part [A-D]|enroll", s) for s in PADDING)
    assert padded(ANSWER).startswith(ANSWER.rstrip()) and len(padded(ANSWER)) > len(ANSWER) + 500
    early = with_statement(ANSWER, "Medigap is free", early=True)
    late = with_statement(ANSWER, "Medigap is free", early=False)
    assert early.index("Medigap is free.") < 60 and late.endswith("Medigap is free.")
    scenario: Scenario = reference.scenarios["ship_medicare_only"].scenario
    mixed = shuffled(scenario, seed=1)
    key, other = scenario.answer_key, mixed.answer_key
    assert sorted(f.fact_id for f in key.canonical_facts) == sorted(f.fact_id for f in other.canonical_facts)
    assert [f.fact_id for f in key.canonical_facts] != [f.fact_id for f in other.canonical_facts]
    assert wrong_statement(scenario)


def test_a_judge_that_prefers_longer_answers_is_caught_by_the_length_probe(reference: ReferenceSet) -> None:
    async def likes_length(scenario: Scenario, group: str, answer: str, question: str) -> str:
        # Ignores the content: anything over 150 words reads as accurate and complete to it.
        return "accurate_complete" if len(answer.split()) > 150 else "substantive_incomplete"

    results = {
        r.probe: r for r in asyncio.run(probe_judge(sample(reference, 40, 7), likes_length, "fake:long"))
    }
    length = results["length"]
    assert length.answers == 40 and length.flagged
    assert length.rate.low is not None and length.rate.low > 0.5
    assert not results["order"].flagged and results["order"].flips == 0
    assert not results["position"].flagged  # both versions are long: the same call either way


def test_calibrate_probes_prints_flip_rates_for_the_rules_coder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = partial(cli, monkeypatch, capsys)
    code, stdout, stderr = run(
        "calibrate", "--judge", "rules", "--probes", "--probe-answers", "12", "--out", str(tmp_path / "cal")
    )
    assert code == 0, stderr
    assert "Bias probes: share of answers whose category changed" in stdout
    for probe in ("order", "length", "format", "position"):
        assert re.search(rf"rules\s+│\s+{probe}\s+│\s+12\s+│", stdout), stdout
    assert "Flagged (flip rate's 95% lower bound above 5%):" in stdout
    with (tmp_path / "cal" / "probes.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["probe"] for r in rows] == ["order", "length", "format", "position"]
    assert all(r["judge"] == "rules" and r["answers"] == "12" for r in rows)


def test_a_judge_of_the_targets_vendor_family_is_flagged() -> None:
    from medeval.reporting.tables.families import family, same_family

    assert (
        family("openai:gpt-5") == "openai" and family("openrouter:anthropic/claude-sonnet-4-5") == "anthropic"
    )
    assert family("fake:accurate") is None and family("rules") is None
    pairs = same_family(
        ["openai:gpt-5", "google:gemini-2.5-pro", "fake:accurate"], ["openai:gpt-4.1", "rules"]
    )
    assert pairs == [("openai:gpt-5", "openai:gpt-4.1")]
    from medeval.reporting.tables.headline import Headline

    flagged = Headline.model_construct(same_family=pairs).self_preference()
    assert (
        "Self-preference risk: judge openai:gpt-4.1 and target openai:gpt-5 are of one vendor family"
        in flagged
    )
    assert Headline.model_construct(same_family=[]).self_preference() == ""
