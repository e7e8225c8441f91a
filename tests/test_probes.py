"""Judge bias probes: the perturbations, the flip statistics, `medeval calibrate --probes`, a fake
judge that prefers long answers caught by the length probe, and the report naming probed judges."""

from __future__ import annotations

import json
import re
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from medeval.adapters import registry
from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI
from medeval.calibration.probes.family import same_family, vendor_family
from medeval.calibration.probes.flips import AnswerArms, probe_rate, self_preference
from medeval.calibration.probes.keyorder import shuffled_key, wrong_statement
from medeval.calibration.probes.perturb import (
    MARKDOWN_LABELS,
    PAD_MIN_CHARS,
    as_markdown,
    as_prose,
    material,
    padded,
    sentences,
    with_statement,
)
from medeval.calibration.reference import default_reference, load_reference, load_scenarios
from medeval.engine.calibrate import calibration_config
from medeval.engine.probes import probe_judge

from .review_support import cli

REFERENCE_LINES = default_reference().read_text(encoding="utf-8").splitlines()
#: Short enough that neutral padding always carries an answer past it.
LONG = 450


def shipped() -> Any:
    return load_reference(default_reference(), load_scenarios([]))


def small_reference(tmp_path: Path, count: int = 12) -> Path:
    """The first `count` shipped answers shorter than LONG characters."""
    short = [line for line in REFERENCE_LINES if len(json.loads(line)["answer"]) < LONG][:count]
    path = tmp_path / "small.jsonl"
    path.write_text("\n".join(short) + "\n", encoding="utf-8")
    return path


# The material ----------------------------------------------------------------------------------


def test_every_study_group_of_the_shipped_set_has_a_wrong_statement_its_key_calls_wrong() -> None:
    reference = shipped()
    for scenario_id, group in {(a.scenario_id, a.question_group) for a in reference.answers}:
        scenario = reference.scenarios[scenario_id].scenario
        wrong = wrong_statement(scenario, group)
        assert wrong is not None, (scenario_id, group)
        fact = scenario.fact(wrong.fact_id)
        assert fact is not None and fact.patterns is not None
        assert any(re.search(p, wrong.statement, re.I) for p in fact.patterns.contradict), (group, wrong)


def test_neutral_sentences_assert_nothing_any_key_reads() -> None:
    patterns = []
    for loaded in load_scenarios([]).values():
        for fact in loaded.scenario.canonical_facts:
            if fact.patterns is not None:
                patterns += [*fact.patterns.support, *fact.patterns.contradict, *fact.patterns.stale]
        patterns += [p for d in loaded.scenario.disallowed_claims for p in d.patterns]
    words = re.compile(r"medicar|medicaid|plan|part [abd]|premium|enrol|cover|drug|doctor|\$|\d", re.I)
    for sentence in material().neutral_sentences:
        assert not words.search(sentence), sentence
        assert not [p for p in patterns if re.search(p, sentence, re.I)], sentence


# The perturbations -----------------------------------------------------------------------------


def test_padding_keeps_the_answer_and_at_least_doubles_it() -> None:
    answer = "You can sign up during your Initial Enrollment Period. It lasts seven months."
    long = padded(answer, 7)
    assert answer in long and len(long) >= len(answer) + max(len(answer), PAD_MIN_CHARS)
    assert padded(answer, 7) == long and padded(answer, 8) != long
    assert with_statement(long, "WRONG.", "early").startswith("WRONG.\n\n")
    assert with_statement(long, "WRONG.", "late").endswith("\n\nWRONG.")


def test_prose_and_markdown_carry_the_same_sentences() -> None:
    answer = json.loads(REFERENCE_LINES[0])["answer"]  # markdown: bold headings and bullets
    prose, markdown = as_prose(answer), as_markdown(answer)
    labels = {f"{label}." for label in MARKDOWN_LABELS}
    assert sentences(prose) == [s for s in sentences(markdown) if s not in labels] == sentences(answer)
    assert "**" not in prose and "\n- " not in prose and "#" not in prose
    assert "## In short" in markdown and "\n- " in markdown and "| Key point |\n|---|\n| " in markdown
    # "Oct. 15" and "Jan. 1" do not end a sentence.
    assert any("Oct. 15 to Dec. 7" in s for s in sentences(answer))


def test_the_shuffled_key_says_the_same_in_another_order() -> None:
    scenario = shipped().scenarios["ship_medicare_only"].scenario
    mixed = shuffled_key(scenario, 3)
    ids = [f.fact_id for f in scenario.canonical_facts]
    assert [f.fact_id for f in mixed.canonical_facts] != ids and sorted(ids) == sorted(
        f.fact_id for f in mixed.canonical_facts
    )
    qg10, mixed_qg10 = scenario.group_key("QG10"), mixed.group_key("QG10")
    assert qg10 is not None and mixed_qg10 is not None
    assert qg10.required() != mixed_qg10.required() and set(qg10.required()) == set(mixed_qg10.required())
    assert shuffled_key(scenario, 3) == mixed and [f.fact_id for f in scenario.canonical_facts] == ids


# The statistics --------------------------------------------------------------------------------


def arms(human: str, target: str | None = None, **categories: str) -> AnswerArms:
    return AnswerArms(
        id=f"x{len(categories)}",
        scenario_id="s",
        question_group="QG1",
        human=human,
        target=target,
        arms=categories,
    )


def test_flip_rate_direction_and_left_out_pairs() -> None:
    answers = [
        arms("not_substantive", original="not_substantive", padded="substantive_incomplete"),
        arms("not_substantive", original="not_substantive", padded="needs_review"),
        arms("incorrect", original="incorrect", padded="incorrect"),
        arms("accurate_complete", original="accurate_complete", padded="not_scored"),
        arms("accurate_complete", original="accurate_complete"),
    ]
    rate = probe_rate("length", answers)
    assert (rate.compared, rate.flips, rate.left_out, rate.absent) == (3, 2, 1, 1)
    assert (rate.toward_b_better, rate.toward_b_worse) == (1, 0)
    assert rate.rate.estimate == pytest.approx(2 / 3) and rate.exceeded
    assert rate.per_category["not_substantive"].estimate == 1.0 and rate.per_category["incorrect"].n == 1
    position = probe_rate("position", [arms("incorrect", early="incorrect", late="accurate_complete")])
    assert position.caught["early"].estimate == 1.0 and position.caught["late"].estimate == 0.0


def test_self_preference_compares_families_or_says_why_not() -> None:
    assert "does not apply" in self_preference("rules", [], rules_coder=True).note
    no_source = self_preference("openai:gpt-4o", [arms("incorrect", original="incorrect")], rules_coder=False)
    assert "names no answer's source model" in no_source.note and not no_source.exceeded
    answers = [arms("incorrect", "openai:gpt-4o-mini", original="accurate_complete")] * 4
    answers += [arms("incorrect", "anthropic:claude-x", original="incorrect")] * 4
    answers += [arms("incorrect", "anthropic:claude-x", original="substantive_incomplete")]
    sp = self_preference("openai:gpt-4.1", answers, rules_coder=False)
    assert sp.difference == pytest.approx(1 - 1 / 5) and sp.exceeded and sp.low is not None and sp.low > 0


def test_vendor_families() -> None:
    assert vendor_family("openai:gpt-4o") == "openai" and vendor_family("rules") is None
    assert vendor_family("openai-compatible:meta-llama/Llama-3.1-70B") == "meta"
    assert (
        vendor_family("openai-compatible:openai/gpt-4o") == "openai" and vendor_family("fake:judge") is None
    )
    assert same_family(["openai:gpt-4o", "fake:accurate"], ["rules", "openai:o3", "anthropic:claude-x"]) == [
        ("openai:o3", "openai:gpt-4o", "openai")
    ]


# A judge that prefers long answers -------------------------------------------------------------


def _blocks(content: str, tag: str) -> list[str]:
    return [
        m.group(2)
        for m in re.finditer(rf"^<({tag}(?:_[\w.\-]+?)?-[0-9a-f]+)>\n?(.*?)\n?</\1>", content, re.S | re.M)
    ]


class LengthLover(ModelAPI):
    """Codes every checklist item covered when the answer is long, absent when it is short."""

    provider = "lengthy"

    async def generate(self, request: ChatRequest) -> ChatResponse:
        content = request.messages[0].content
        response = "\n".join(_blocks(content, "response"))
        claims = [c for block in _blocks(content, "claims") for c in json.loads(block)]
        items = json.loads(_blocks(content, "checklist")[0])
        long = len(response) > LONG and claims
        payload = {
            "verdicts": [{"claim_id": c["claim_id"], "label": "NOT_IN_KEY", "evidence": []} for c in claims],
            "checklist": [
                {"fact_id": i["fact_id"], "code": "covered", "quote": claims[0]["quote"]}
                if long
                else {"fact_id": i["fact_id"], "code": "absent", "quote": ""}
                for i in items
            ],
        }
        return ChatResponse(text=json.dumps(payload), requested_model=self.model)


def create_length_lover(model: str) -> ModelAPI:
    return LengthLover(model)


@pytest.fixture
def length_lover(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(registry._PROVIDERS, "lengthy", f"{__name__}:create_length_lover")
    return "lengthy:judge"


def test_the_length_probe_catches_a_judge_that_prefers_long_answers(
    tmp_path: Path, length_lover: str
) -> None:
    reference = load_reference(small_reference(tmp_path), load_scenarios([]))
    config = calibration_config(reference, [length_lover], extractor="rules")
    result = probe_judge(reference, config, ("repeat", "order", "length"))
    by = {p.probe: p for p in result.probes}
    assert by["length"].exceeded and by["length"].rate.estimate == 1.0
    assert by["length"].toward_b_better == by["length"].flips == len(reference.answers)
    assert not by["order"].exceeded and by["order"].flips == 0 and by["repeat"].flips == 0
    assert result.named() and result.over() == [by["length"]]
    assert all(a.arms["padded"] == "accurate_complete" for a in result.answers)


# The command and the report --------------------------------------------------------------------


def test_calibrate_probes_on_the_shipped_set_prints_the_rules_coders_flip_rates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, stdout, stderr = cli(monkeypatch, capsys, "calibrate", "--probes", "--out", str(tmp_path / "cal"))
    assert code == 0, stderr
    assert "Bias probes on ship_reference_v1.jsonl (105 answers, seed 42)" in stdout
    assert "Judge rules (panel rules, rules; extractor rules; vendor family none)" in stdout
    for probe in ("repeat", "order", "length", "format", "position"):
        assert re.search(rf"│ {probe} +│ .+│ +105 │ +\d+/105 ", stdout), probe
    assert "self-preference: the rules coder has no vendor family" in stdout
    written = json.loads((tmp_path / "cal" / "probes.json").read_text(encoding="utf-8"))
    assert written["format"] == "medeval-probes/1" and written["judges"][0]["judge"] == "rules"
    assert len(written["judges"][0]["answers"]) == 105
    assert "# Judge bias probes" in (tmp_path / "cal" / "probes.md").read_text(encoding="utf-8")
    rows = (tmp_path / "cal" / "probes.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0].startswith("judge,probe,arm_a,arm_b,compared,flips,flip_rate,low,high")
    assert [r.split(",")[1] for r in rows[1:]] == ["repeat", "order", "length", "format", "position"]


def test_calibrate_probes_names_the_length_lover_beside_the_rules_coder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], length_lover: str
) -> None:
    run = partial(cli, monkeypatch, capsys)
    args = ["calibrate", str(small_reference(tmp_path)), "--judge", length_lover, "--extractor", "rules"]
    code, stdout, stderr = run(
        *args, "--probe", "length", "--probe", "order", "--probe-answers", "6", "--out", str(tmp_path / "c")
    )
    assert code == 0, stderr
    assert "Bias probes on small.jsonl (6 answers, seed 42)" in stdout
    assert (
        "Judge rules (" in stdout and f"Judge {length_lover} (panel {length_lover}, {length_lover};" in stdout
    )
    assert f"{length_lover} is named: over the threshold on length 100.0%" in stdout
    assert "│ position" not in stdout
    code, _, stderr = run(*args, "--probe", "size", "--out", str(tmp_path / "d"))
    assert code == 2 and "unknown probe 'size'; use one of repeat, order, length, format, position" in stderr


def test_the_report_names_a_probed_judge_and_a_same_family_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from medeval.schemas import ShipCategory

    from .test_report_support import make_record, write_run, write_scenario

    scenario = write_scenario(tmp_path, groups=("QG1",))
    records = [make_record("run1", 1, "openai:gpt-4o-mini", {"QG1": ShipCategory.ACCURATE_COMPLETE})]
    run_dir = write_run(
        tmp_path / "runs", "run1", records, scenario_paths=[scenario], judges=["openai:gpt-4.1", "rules"]
    )
    report = {
        "created_at": "2026-11-26T07:00:00.000Z",
        "medeval_version": "0.1.0",
        "reference": "ship_reference_v1.jsonl",
        "reference_sha256": "0" * 64,
        "answers": 10,
        "seed": 42,
        "judges": [
            {
                "judge": "rules",
                "panel": ["rules", "rules"],
                "extractor": "rules",
                "family": None,
                "probes": [
                    probe_rate(
                        "length",
                        [
                            arms(
                                "not_substantive", original="not_substantive", padded="substantive_incomplete"
                            )
                        ],
                    ).model_dump()
                ],
                "self_preference": self_preference("rules", [], rules_coder=True).model_dump(),
                "answers": [],
            }
        ],
    }
    probes = tmp_path / "probes.json"
    probes.write_text(json.dumps(report), encoding="utf-8")
    code, _, stderr = cli(monkeypatch, capsys, "report", str(run_dir), "--probes", str(probes))
    assert code == 0, stderr
    text = (run_dir / "report" / "report.md").read_text(encoding="utf-8")
    validity = text[text.index("### Judge validity") :]
    assert "judge openai:gpt-4.1 and target openai:gpt-4o-mini are both openai models" in validity
    assert "rules is named: over the threshold on length 100.0%" in validity
    assert "no probe results for judge openai:gpt-4.1" in validity
    html = (run_dir / "report" / "report.html").read_text(encoding="utf-8")
    assert "rules is named: over the threshold on length" in html
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    code, _, stderr = cli(monkeypatch, capsys, "report", str(run_dir), "--probes", str(bad))
    assert code == 2 and "not a probes.json written by `medeval calibrate --probes`" in stderr


def test_a_judge_of_the_targets_vendor_family_is_flagged() -> None:
    from medeval.reporting.tables.families import family
    from medeval.reporting.tables.families import same_family as pairs_of
    from medeval.reporting.tables.headline import Headline

    assert (
        family("openai:gpt-5") == "openai" and family("openrouter:anthropic/claude-sonnet-4-5") == "anthropic"
    )
    assert family("fake:accurate") is None and family("rules") is None
    pairs = pairs_of(["openai:gpt-5", "google:gemini-2.5-pro", "fake:accurate"], ["openai:gpt-4.1", "rules"])
    assert pairs == [("openai:gpt-5", "openai:gpt-4.1")]
    flagged = Headline.model_construct(same_family=pairs).self_preference()
    assert (
        "Self-preference risk: judge openai:gpt-4.1 and target openai:gpt-5 are of one vendor family"
        in flagged
    )
    assert Headline.model_construct(same_family=[]).self_preference() == ""


def test_self_preference_is_measured_where_the_reference_names_each_answers_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The length lover under a first-party provider's name, so it has a vendor family (openai).
    monkeypatch.setitem(registry._PROVIDERS, "openai", f"{__name__}:create_length_lover")
    lines = [
        json.loads(line) for line in small_reference(tmp_path, 8).read_text(encoding="utf-8").splitlines()
    ]
    for i, line in enumerate(lines):
        line["target"] = "openai:gpt-4o" if i % 2 else "anthropic:claude-sonnet-4-5"
    path = tmp_path / "sourced.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    reference = load_reference(path, load_scenarios([]))
    assert {a.target for a in reference.answers} == {"openai:gpt-4o", "anthropic:claude-sonnet-4-5"}
    result = probe_judge(
        reference, calibration_config(reference, ["openai:judge"], extractor="rules"), ("repeat",)
    )
    sp = result.self_preference
    assert result.family == sp.family == "openai"
    assert sp.same is not None and sp.other is not None and sp.difference is not None
    assert "openai answers vs" in sp.note and sp.low is not None and sp.low <= sp.difference <= (sp.high or 0)
