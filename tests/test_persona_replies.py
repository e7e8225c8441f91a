"""The persona answers back: when the chatbot asks the beneficiary something (here a fake target
that first asks for a ZIP code), the questioner answers from the persona only, every reply is a
recorded turn, and the question group is coded on everything the chatbot said after its question."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from medeval.agents import questioner
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run
from medeval.engine.rescore import stored_conversation
from medeval.records.storage import read_jsonl
from medeval.scenarios.load import load_scenario
from medeval.schemas import PersonaReplies, PersonaReply, ShipCategory, TrialRecord

from .conftest import SCENARIOS

ZIP_REPLY = "My ZIP code is 43215."


def scenario_file(tmp_path: Path, *, zip_code: bool = True, scripted: bool = True) -> Path:
    """scenario_001 with a persona who has (or lacks) a ZIP code, and scripted replies or none."""
    data: dict[str, Any] = json.loads((SCENARIOS / "scenario_001.json").read_text())
    if zip_code:
        data["persona"]["zip"] = "43215"
    if scripted:
        data["persona_replies"] = {
            "replies": [{"pattern": r"zip\s*code", "reply": ZIP_REPLY}],
            "default": "I'm sorry, I don't know that.",
            "max_exchanges": 2,
        }
    path = tmp_path / "scenario_zip.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def one_trial(tmp_path: Path, scenario: Path, target: str, **overrides: Any) -> TrialRecord:
    config = RunConfig(scenarios=[scenario], targets=[target], out=tmp_path / "runs", **overrides)
    (record,) = run(config).records
    return record


def category(record: TrialRecord) -> ShipCategory:
    (group,) = record.groups
    return group.ship_category


def test_chatbot_questions_skip_offers_and_pleasantries() -> None:
    text = "Happy to help. What is your ZIP code? Would you like me to compare plans? Anything else?"
    assert questioner.chatbot_questions(text) == ["What is your ZIP code?"]
    assert questioner.chatbot_questions("Medicare has four parts.") == []
    # An invitation to ask is answered by the next scripted question, not by the persona.
    assert questioner.chatbot_questions("Of course! What would you like to know first?") == []
    assert questioner.chatbot_questions("What's your first question? What is your ZIP code?") == [
        "What is your ZIP code?"
    ]


def test_scripted_reply_matches_a_pattern_or_leaves_it_to_the_default() -> None:
    replies = PersonaReplies(replies=[PersonaReply(pattern="zip", reply=ZIP_REPLY)])
    assert questioner.scripted_reply(replies, ["What's your ZIP?"]) == ZIP_REPLY
    assert questioner.scripted_reply(replies, ["What is your income?"]) is None


def test_scripted_persona_gives_its_zip_and_the_group_is_coded_on_the_answer(tmp_path: Path) -> None:
    record = one_trial(tmp_path / "zip", scenario_file(tmp_path), "fake:asks_zip")
    turns = [(t.role, t.turn_id, t.reply_to, t.text) for t in record.conversation]
    assert turns[0][:3] == ("user", "Q1", None)
    assert turns[1] == ("assistant", "Q1", None, "Before I answer, what is your ZIP code?")
    assert turns[2] == ("user", "Q1.r1", "Q1", ZIP_REPLY)
    assert turns[3][:3] == ("assistant", "Q1.r1", "Q1")
    assert "Original Medicare" in turns[3][3]
    assert len(turns) == 4
    # Coded on what the chatbot said after the persona answered: the same category as the profile
    # that answers at once, and not the Not Substantive a bare question back would get.
    plain = one_trial(tmp_path / "plain", scenario_file(tmp_path), "fake:accurate")
    assert category(record) == category(plain) == ShipCategory.ACCURATE_COMPLETE
    assert any(c.turn_id == "Q1" and "Original Medicare" in c.text for c in record.claims)


def test_each_persona_reply_is_a_target_call_of_its_own(tmp_path: Path) -> None:
    record = one_trial(tmp_path, scenario_file(tmp_path), "fake:asks_zip")
    calls = list(read_jsonl(tmp_path / "runs" / record.run_id / "calls.jsonl"))
    assert [(c["role"], c["turn_id"]) for c in calls] == [("target", "Q1"), ("target", "Q1.r1")]
    last = calls[1]["request"]["messages"]
    assert [m["role"] for m in last] == ["user", "assistant", "user"]
    assert last[2]["content"] == ZIP_REPLY


def test_a_question_no_pattern_covers_gets_the_default_at_most_n_times(tmp_path: Path) -> None:
    data = json.loads(scenario_file(tmp_path, zip_code=False).read_text())
    data["persona_replies"]["replies"] = []
    path = tmp_path / "no_pattern.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    record = one_trial(tmp_path, path, "fake:asks_zip", persona_replies=2)
    replies = [t for t in record.conversation if t.role == "user" and t.reply_to == "Q1"]
    assert [t.text for t in replies] == ["I'm sorry, I don't know that."] * 2
    assert record.conversation[-1].text == "Before I answer, what is your ZIP code?"
    # Nothing but questions back: the group is not credited with an answer.
    assert category(record) != ShipCategory.ACCURATE_COMPLETE


def test_no_persona_replies_without_a_script_or_a_questioner(tmp_path: Path) -> None:
    record = one_trial(tmp_path, scenario_file(tmp_path, scripted=False), "fake:asks_zip")
    assert [t.turn_id for t in record.conversation] == ["Q1", "Q1"]


def test_model_questioner_answers_from_the_persona_in_reply_mode(tmp_path: Path) -> None:
    scenario = scenario_file(tmp_path, scripted=False)
    record = one_trial(tmp_path, scenario, "fake:asks_zip", questioner="fake:judge")
    replies = [t.text for t in record.conversation if t.role == "user" and t.reply_to == "Q1"]
    assert replies == ["My zip is 43215."]
    assert category(record) == ShipCategory.ACCURATE_COMPLETE
    calls = list(read_jsonl(tmp_path / "runs" / record.run_id / "calls.jsonl"))
    asked = [c for c in calls if c["role"] == "questioner"]
    assert len(asked) == 1
    request = asked[0]["request"]
    assert request["output_schema"]["name"] == "persona_reply"
    assert "REPLY MODE" in request["system"] and "Answer ONLY from the persona" in request["system"]
    assert '"zip": "43215"' in request["messages"][0]["content"]
    assert "Before I answer, what is your ZIP code?" in request["messages"][0]["content"]


def test_model_questioner_without_the_fact_says_it_does_not_know(tmp_path: Path) -> None:
    scenario = scenario_file(tmp_path, zip_code=False, scripted=False)
    record = one_trial(tmp_path, scenario, "fake:asks_zip", questioner="fake:judge", persona_replies=1)
    replies = [t.text for t in record.conversation if t.role == "user" and t.reply_to == "Q1"]
    assert replies == [questioner.DONT_KNOW]


def test_rescore_codes_the_stored_exchange_as_the_run_did(tmp_path: Path) -> None:
    record = one_trial(tmp_path, scenario_file(tmp_path), "fake:asks_zip")
    conversation = stored_conversation(record, load_scenario(scenario_file(tmp_path)))
    (answered,) = conversation.answered
    assert answered.question.startswith("I'm turning 65")
    assert answered.response.startswith("Before I answer, what is your ZIP code?\n\n")
    assert answered.exchanges[0][0] == ZIP_REPLY


def test_validate_checks_reply_patterns_and_knobs_read_through_paraphrase(tmp_path: Path) -> None:
    from medeval.scenarios.lint import lint_file

    data = json.loads(scenario_file(tmp_path).read_text())
    data["persona_replies"]["replies"].append({"pattern": "zip(", "reply": "43215"})
    data["variation_knobs"] = {"paraphrase": False, "tone": "worried"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    findings = [f.line() for f in lint_file(path)]
    assert any("persona_replies.replies[1].pattern" in f and "does not compile" in f for f in findings), (
        findings
    )
    assert any("tone is applied through the questioner's paraphrase" in f for f in findings), findings


def test_ship_persona_gives_its_zip_code_and_every_group_is_coded_as_if_asked_directly(
    tmp_path: Path,
) -> None:
    script = SCENARIOS / "ship_medicare_only.json"
    asking = one_trial(tmp_path / "asks", script, "fake:asks_zip")
    direct = one_trial(tmp_path / "direct", script, "fake:accurate")
    replies = [t.text for t in asking.conversation if t.role == "user" and t.reply_to]
    # Told once (after the first scripted question), the chatbot does not ask again.
    assert replies == ["My ZIP code is 43215."]
    assert {g.question_group: g.ship_category for g in asking.groups} == {
        g.question_group: g.ship_category for g in direct.groups
    }


def test_report_highlights_claims_in_the_answer_after_the_persona_reply(tmp_path: Path) -> None:
    from medeval.reporting.render.html import exchange_offsets

    record = one_trial(tmp_path, scenario_file(tmp_path), "fake:asks_zip")
    first = record.conversation[1].text
    # The chatbot's question starts the coded text; its answer after the reply follows a blank line.
    assert exchange_offsets(record) == {1: 0, 3: len(first) + 2}
    answer = record.conversation[3].text
    from medeval.engine.types import answered_text

    coded = answered_text(first, [(ZIP_REPLY, answer)])
    claim = next(c for c in record.claims if "Original Medicare" in c.text)
    span = claim.quote_spans[0]
    start = span.start - (len(first) + 2)
    assert coded[span.start : span.end] == answer[start : start + span.end - span.start]


def test_the_persona_answers_a_question_asked_in_reply_to_the_opening_statement(tmp_path: Path) -> None:
    script = SCENARIOS / "ship_medicare_only.json"
    record = one_trial(tmp_path / "early", script, "fake:asks_zip_early")
    turns = [(t.role, t.turn_id, t.reply_to) for t in record.conversation]
    assert turns[:4] == [
        ("user", "opening", None),
        ("assistant", "opening", None),
        ("user", "opening.r1", "opening"),
        ("assistant", "opening.r1", "opening"),
    ]
    assert record.conversation[1].text == "Happy to help. First, what is your ZIP code?"
    assert record.conversation[2].text == "My ZIP code is 43215."
    # Told at the opening, the chatbot answers the first scripted question at once: no reply to Q1.
    assert turns[4:6] == [("user", "Q1", None), ("assistant", "Q1", None)]
    assert [t.reply_to for t in record.conversation if t.reply_to] == ["opening", "opening"]
    direct = one_trial(tmp_path / "direct", script, "fake:accurate")
    assert {g.question_group: g.ship_category for g in record.groups} == {
        g.question_group: g.ship_category for g in direct.groups
    }


def test_a_question_nobody_can_answer_is_warned_about(tmp_path: Path) -> None:
    data = json.loads(scenario_file(tmp_path, scripted=False).read_text())
    data["opening_statement"] = "Hello, I have a question about Medicare."
    path = tmp_path / "no_replies.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.warns(
        UserWarning, match="turn opening: the chatbot asked the beneficiary a question"
    ) as caught:
        one_trial(tmp_path, path, "fake:asks_zip_early")
    assert "add persona_replies to the scenario or pass --questioner MODEL" in str(caught[0].message)
