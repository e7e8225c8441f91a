"""The three transcript formats of `medeval ingest` (CSV, JSONL, Markdown) and the matching of a
collected conversation to a scenario's script: parsed turns, provenance, one line per problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from medeval.engine.ingest.csv_format import parse_csv
from medeval.engine.ingest.jsonl_format import parse_jsonl
from medeval.engine.ingest.markdown_format import parse_markdown
from medeval.engine.ingest.match import MATCH_THRESHOLD, Similarity, clear, match_conversation
from medeval.engine.ingest.plan import plan_ingest
from medeval.engine.orchestrator import load_scenarios
from medeval.errors import UserError
from medeval.schemas import Provenance

from .conftest import REPO, SCENARIOS

EXAMPLES = REPO / "examples"
SHIP = SCENARIOS / "ship_medicare_only.json"


@pytest.fixture(scope="module")
def scenario():  # type: ignore[no-untyped-def]
    [loaded] = load_scenarios([SHIP])
    return loaded


def test_csv_example_reads_every_conversation_with_its_provenance() -> None:
    parsed = parse_csv(EXAMPLES / "transcripts.csv", (EXAMPLES / "transcripts.csv").read_text("utf-8"))
    assert parsed.problems == []
    web1, web2 = parsed.conversations
    assert (web1.conversation_id, web2.conversation_id) == ("web-1", "web-2")
    assert web1.provenance == {
        "collected_by": "Example researcher",
        "collected_at": "2026-11-20",
        "product_version": "Example model 4 (named in the chat window)",
        "channel": "web",
    }
    assert web1.turns[0].role == "user" and web1.turns[0].ref == "opening"
    assert web1.turns[1].role == "assistant" and web1.turns[1].timestamp == "2026-11-20T10:02:00Z"
    assert web2.turns[0].ref is None  # matched by its text


def test_csv_problems_are_one_line_each_with_their_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    text = (
        "conversation_id,turn_id,role,text,timestamp\n"
        "c1,Q1,user,When can I select my plan?,2026-11-20\n"
        "c1,Q1,robot,An answer,2026-11-20\n"
        "c1,Q2,user,,yesterday\n"
        ",Q3,user,text,\n"
    )
    problems = parse_csv(path, text).problems
    assert problems == [
        f"{path}:3: role 'robot' is neither user nor assistant (e.g. user, assistant, counselor)",
        f"{path}:4: empty text; write what was said, or drop the row",
        f"{path}:4: timestamp 'yesterday' is not ISO 8601 (e.g. 2026-11-20T10:42:00Z, 2026-11-20 or 10:42)",
        f"{path}:5: empty conversation_id; give every row its conversation's id",
    ]


def test_csv_without_the_required_columns_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    problems = parse_csv(path, "conversation,speaker,words\nc1,user,hello\n").problems
    assert problems == [
        f"{path}:1: unknown column(s) 'words'; known: conversation_id, role, text, turn_id, timestamp, "
        "scenario_id, attachment, product, product_version, collected_by, collected_at, channel",
        f"{path}:1: missing column(s) text; the header needs conversation_id, role, text",
    ]


def test_csv_conflicting_provenance_in_one_conversation_is_a_problem(tmp_path: Path) -> None:
    text = "conversation_id,role,text,channel\nc1,user,Hi?,web\nc1,assistant,Hello,app\n"
    [problem] = parse_csv(tmp_path / "x.csv", text).problems
    assert "gives channel 'web' and then 'app'" in problem


def test_jsonl_example_reads_turns_provenance_and_attachments() -> None:
    path = EXAMPLES / "transcripts.jsonl"
    parsed = parse_jsonl(path, path.read_text("utf-8"))
    assert parsed.problems == []
    app1, app2 = parsed.conversations
    assert app1.scenario_id == "ship_medicare_only" and app2.scenario_id is None
    assert app1.attachments == ["attachments/app-1.png"]
    assert app1.provenance["channel"] == "app" and app2.provenance["collected_by"] == "Second collector"
    assert [t.role for t in app1.turns[:3]] == ["user", "assistant", "user"]


def test_jsonl_problems_name_the_line_and_the_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    lines = [
        json.dumps({"conversation_id": "a", "turns": [{"role": "user", "text": "Hi?", "speaker": "x"}]}),
        "{not json",
        json.dumps({"conversation_id": "b", "turns": []}),
        json.dumps({"conversation_id": "c", "provenance": {"chanel": "web"}, "turns": [{"role": "user"}]}),
    ]
    problems = parse_jsonl(path, "\n".join(lines)).problems
    assert (
        problems[0] == f"{path}:1: turns[0]: unknown key(s) 'speaker'; known: role, text, turn_id, timestamp"
    )
    assert problems[1].startswith(f"{path}:2: not JSON (")
    assert problems[2] == f"{path}:3: turns is missing or empty; give the conversation's turns in order"
    assert problems[3].startswith(f"{path}:4: provenance: unknown key(s) 'chanel'")
    assert (
        problems[4] == f"{path}:4: turns[0]: text is missing or empty; write what was said, or drop the turn"
    )
    assert len(problems) == 5


def test_markdown_example_reads_typed_and_pasted_conversations() -> None:
    path = EXAMPLES / "transcripts.md"
    parsed = parse_markdown(path, path.read_text("utf-8"))
    assert parsed.problems == []
    typed, pasted = parsed.conversations
    assert typed.conversation_id == "web-3" and typed.provenance["product_version"] == "Example model 4"
    assert typed.turns[2].ref == "Q1" and typed.turns[3].text.startswith("Your first window")
    # An answer's paragraphs stay whole, verbatim.
    assert "\n\nOriginal Medicare is the government program." in typed.turns[7].text
    # "You said:" / "Example Assistant said:", as a chat window copies a conversation.
    assert [t.role for t in pasted.turns] == ["user", "assistant"] * 4
    assert pasted.attachments == ["attachments/app-1.png"]


def test_markdown_keeps_headings_and_colons_inside_an_answer(tmp_path: Path) -> None:
    text = (
        "**User:** What does Part B cost?\n\n"
        "**Assistant:**\n## Costs in 2026\nNote: the premium is $202.90.\n- Deductible: $283\n\n"
        "User (10:42): thanks\n"
    )
    parsed = parse_markdown(tmp_path / "one.md", text)
    assert parsed.problems == []
    [conversation] = parsed.conversations
    assert conversation.conversation_id == "one"  # no '# Conversation' line: named after the file
    assert conversation.turns[1].text == "## Costs in 2026\nNote: the premium is $202.90.\n- Deductible: $283"
    assert conversation.turns[2].timestamp == "10:42"


def test_markdown_problems_are_one_line_each(tmp_path: Path) -> None:
    path = tmp_path / "bad.md"
    text = "stray text\n# Conversation a\nChanel: web\n**You:**\n\n**Assistant:** hello\n# Conversation a\n"
    problems = parse_markdown(path, text).problems
    assert problems[0] == f"{path}:1: text before the first '# Conversation' line; move it under one"
    assert problems[1].startswith(f"{path}:3: 'Chanel: web' is neither a field (")
    assert problems[2] == f"{path}:4: the user turn is empty; write what was said, or drop the line"
    assert problems[3] == f"{path}:7: conversation id 'a' is used twice"
    assert problems[4].startswith(f"{path}:7: conversation 'a' has no speaker lines")


def test_no_scripted_question_matches_another_and_a_repeat_stays_extra(scenario, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    script = {t.turn_id: t.user_message for t in scenario.scenario.scripted_turns}
    similarity = Similarity(list(script.values()))
    for asked in script:
        for other in script:
            if other != asked:
                # Even with the asked question's own turn already matched, it never takes a neighbour.
                runner_up = max(similarity(script[asked], script[t]) for t in script if t != other)
                assert not clear(similarity(script[asked], script[other]), runner_up), (asked, other)
    text = "".join(f"**You:** {script[t]}\n**Assistant:** An answer.\n" for t in ("Q10", "Q11", "Q10"))
    [raw] = parse_markdown(tmp_path / "c.md", text).conversations
    matched = match_conversation(raw, scenario.scenario, [], "c.md")
    assert [m.turn_id for m in matched.matched] == ["Q10", "Q11"]
    assert [(e.turn_id, e.role) for e in matched.extra] == [("x1", "user"), ("x1", "assistant")]


def test_a_reworded_question_matches_and_an_unrelated_one_does_not(scenario) -> None:  # type: ignore[no-untyped-def]
    script = {t.turn_id: t.user_message for t in scenario.scenario.scripted_turns}
    similarity = Similarity(list(script.values()))

    def best(asked: str) -> str | None:
        scores = sorted(((similarity(asked, q), t) for t, q in script.items()), reverse=True)
        return scores[0][1] if clear(scores[0][0], scores[1][0]) else None

    assert best("When can I pick my Medicare plan, and when can I change it afterwards?") == "Q1"
    assert (
        best("Hi! I turn 65 in May. Do I have to sign up for Medicare at 65, or keep my employer plan?")
        == "Q2"
    )
    assert best("whats the monthly premium for harborview?") == "Q8"
    assert best("Does Medicare cover dental cleanings?") is None


def test_matching_by_id_and_text_lists_skipped_and_extra_turns(scenario, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = (
        "# Conversation c1\n"
        "**You [Q1]:** When can I select my Medicare coverage plan, and when can I change it later?\n"
        "**Assistant:** Your Initial Enrollment Period is seven months long.\n"
        "**You:** Hi again. Do I have to sign up for Medicare at 65, or can I stay on my employer plan?\n"
        "**Assistant:** You can keep the employer plan. What is your ZIP code?\n"
        "**You:** 55401\n"
        "**Assistant:** Thanks. In 55401 the same rules apply.\n"
        "**You:** Does Medicare cover dental cleanings?\n"
        "**Assistant:** Original Medicare generally does not.\n"
    )
    [raw] = parse_markdown(tmp_path / "c.md", text).conversations
    problems: list[str] = []
    matched = match_conversation(raw, scenario.scenario, problems, "c.md")
    assert problems == []
    assert [(m.turn_id, m.by) for m in matched.matched] == [("Q1", "id"), ("Q2", "text")]
    assert MATCH_THRESHOLD <= matched.matched[1].score < 1
    assert matched.skipped[:3] == ["Q3", "Q4", "Q5"] and "Q1" not in matched.skipped
    # The ZIP reply answers the chatbot's question: coded with Q2. The dental question is the
    # person's own: kept verbatim, not coded.
    assert [(e.turn_id, e.role, e.coded_with) for e in matched.extra] == [
        ("Q2.r1", "user", "Q2"),
        ("Q2.r1", "assistant", "Q2"),
        ("x1", "user", None),
        ("x1", "assistant", None),
    ]
    assert matched.extra[2].text == "Does Medicare cover dental cleanings?"
    q2 = next(a for a in matched.conversation.answered if a.turn.turn_id == "Q2")
    assert q2.response.endswith("In 55401 the same rules apply.")
    assert "dental" not in " ".join(a.response for a in matched.conversation.answered)
    assert [t.turn_id for t in matched.conversation.turns].count("x1") == 2


def test_an_unknown_turn_id_is_a_problem(scenario, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    [raw] = parse_markdown(tmp_path / "c.md", "**You [Q99]:** hello?\n**Assistant:** hi\n").conversations
    problems: list[str] = []
    match_conversation(raw, scenario.scenario, problems, "c.md")
    assert problems == [
        "c.md:1: turn id 'Q99' is not in scenario ship_medicare_only (Q1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, "
        "Q9, Q10, Q11, Q12, Q13, Q14a, Q14b, Q15, Q16); fix it, or leave it empty to match the question "
        "by its text"
    ]


def test_plan_hashes_attachments_and_refuses_a_missing_one(scenario, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    defaults = Provenance(product="Example")
    planned, files = plan_ingest([EXAMPLES / "transcripts.jsonl"], [scenario], defaults)
    [shot] = planned[0].source.provenance.attachments
    assert (shot.kind, shot.path, shot.bytes) == ("screenshot", "attachments/app-1.png", 69)
    assert len(shot.sha256) == 64 and files[0]["format"] == "jsonl"
    assert [p.epoch for p in planned] == [1, 2]
    lost = tmp_path / "lost.md"
    lost.write_text("Screenshot: nowhere.png\n**You [Q1]:** When?\n**Assistant:** Now.\n", encoding="utf-8")
    with pytest.raises(UserError) as refused:
        plan_ingest([lost], [scenario], defaults)
    assert refused.value.lines == [
        f"{lost}:1: attachment 'nowhere.png' not found (looked for {tmp_path / 'nowhere.png'}); "
        "give the file's path"
    ]


def test_timestamps_are_kept_and_date_a_conversation_without_one(scenario, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "dated.csv"
    path.write_text(
        "conversation_id,turn_id,role,text,timestamp\n"
        "c1,,user,Do I have to sign up for Medicare at 65 or can I stay on my employer plan?,"
        "2026-11-19T09:05Z\n"
        "c1,,assistant,You can stay on the employer plan.,2026-11-19T09:06Z\n"
        "c1,,user,Is dental covered?,2026-11-19T09:07Z\n"
        "c1,,assistant,Not by Original Medicare.,\n",
        encoding="utf-8",
    )
    [planned], _ = plan_ingest([path], [scenario], Provenance(product="Example"))
    [q2] = planned.source.matched
    assert (q2.turn_id, q2.asked_at, q2.answered_at) == ("Q2", "2026-11-19T09:05Z", "2026-11-19T09:06Z")
    assert [(e.role, e.at) for e in planned.source.extra] == [
        ("user", "2026-11-19T09:07Z"),
        ("assistant", None),
    ]
    assert planned.source.provenance.collected_at == "2026-11-19"


def test_only_regular_files_are_read_or_hashed(scenario, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "folder.md"
    folder.mkdir()
    (tmp_path / "shots").mkdir()
    named = tmp_path / "named.md"
    named.write_text("Screenshot: shots\n**You [Q1]:** When?\n**Assistant:** Now.\n", encoding="utf-8")
    with pytest.raises(UserError) as refused:
        plan_ingest([folder, named], [scenario], Provenance(product="Example"))
    assert refused.value.lines == [
        f"{folder}: is a directory, not a transcript file; pass the file itself",
        f"{named}:1: attachment 'shots' is not a regular file ({tmp_path / 'shots'}); "
        "name a screenshot or recording file",
    ]


def test_answers_over_several_messages_are_one_answer(scenario, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = "**You [Q1]:** When?\n**Assistant:** First part.\n**Assistant:** Second part.\n"
    [raw] = parse_markdown(tmp_path / "c.md", text).conversations
    matched = match_conversation(raw, scenario.scenario, [], "c.md")
    [answered] = matched.conversation.answered
    assert answered.response == "First part.\n\nSecond part."
    assert [t.role for t in matched.conversation.turns] == ["user", "assistant"]


def test_a_failure_while_writing_leaves_no_run_behind(
    scenario,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,  # type: ignore[no-untyped-def]
) -> None:
    import medeval.engine.ingest as ingest_module
    from medeval.engine.config import RunConfig

    real = ingest_module.judge_conversation
    seen: list[str] = []

    async def failing(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append("judged")
        if len(seen) == 2:
            raise RuntimeError("disk gone")
        return await real(*args, **kwargs)

    monkeypatch.setattr(ingest_module, "judge_conversation", failing)
    config = RunConfig(
        scenarios=[SHIP], targets=["ingested:Example"], out=tmp_path / "runs", max_concurrency=1
    )
    with pytest.raises(RuntimeError, match="disk gone"):
        ingest_module.ingest([EXAMPLES / "transcripts.csv"], config, Provenance(product="Example"))
    assert seen == ["judged", "judged"]
    assert list((tmp_path / "runs").iterdir()) == []
