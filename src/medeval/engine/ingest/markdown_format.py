"""The Markdown transcript format: what a person types, or pastes from a chat window.

    # Conversation web-2
    Scenario: ship_medicare_only
    Collected by: A. Researcher
    Collected at: 2026-11-21
    Version shown: Example model 4
    Channel: web
    Screenshot: screenshots/web-2.png

    **You [Q1]:** When can I select my Medicare coverage plan, and when can I change it later?

    **Assistant:** You can first sign up during your Initial Enrollment Period...
    (the answer goes on, over as many lines and paragraphs as it has)

A `# Conversation ID` line starts each conversation (a file without one is one conversation named
after the file); the `Field: value` lines under it, before the first speaker line, are its
provenance. A speaker line is a role name (User, You, Shopper, Caller; Assistant, Chatbot,
Counselor, Agent...), bold or not, with an optional `[turn id]` and `(timestamp)`, then a colon;
the text follows on the same line and every line after it until the next speaker line. A chat
window's own copy ("You said:" on a line of its own, "ChatGPT said:") is read the same way. Headings
and lists inside an answer are kept verbatim: only `# Conversation` starts a new conversation."""

from __future__ import annotations

import re
from pathlib import Path

from medeval.engine.ingest.transcript import (
    ParsedFile,
    Problems,
    RawConversation,
    RawTurn,
    Role,
    check_timestamp,
    role_of,
    set_field,
)

CONVERSATION = re.compile(r"^#\s+conversation\b[\s:]*(?P<id>.*?)\s*$", re.IGNORECASE)
SPEAKER = re.compile(
    r"^\s*(?:\*\*|__)?(?P<who>[A-Za-z][A-Za-z .'-]{0,40}?)"
    r"(?:\s*\[(?P<ref>[^\]]*)\])?(?:\s*\((?P<ts>[^)]*)\))?"
    r"\s*(?P<said>\bsaid)?(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(?P<rest>.*)$"
)
FIELDS = {
    "scenario": "scenario_id",
    "scenario id": "scenario_id",
    "product": "product",
    "product version": "product_version",
    "version": "product_version",
    "version shown": "product_version",
    "model shown": "product_version",
    "collected by": "collected_by",
    "collector": "collected_by",
    "collected at": "collected_at",
    "collected on": "collected_at",
    "date": "collected_at",
    "channel": "channel",
    "screenshot": "attachment",
    "audio": "attachment",
    "recording": "attachment",
    "attachment": "attachment",
}
FIELD = re.compile(r"^\s*(?:[-*]\s+)?(?P<key>[A-Za-z][A-Za-z ]{0,30}?)\s*:\s*(?P<value>.+?)\s*$")


def speaker(line: str) -> tuple[Role, str | None, str | None, str] | None:
    """(role, turn ref, timestamp, text on the line) when the line starts a turn."""
    found = SPEAKER.match(line)
    if found is None:
        return None
    role = role_of(found["who"])
    if found["said"]:
        # "ChatGPT said:" alone on its line, as a chat window copies it: anyone but "You" answers.
        if found["rest"].strip():
            return None
        role = role or ("user" if found["who"].strip().lower() == "you" else "assistant")
    if role is None:
        return None
    return role, (found["ref"] or "").strip() or None, (found["ts"] or "").strip() or None, found["rest"]


def parse_markdown(path: Path, text: str) -> ParsedFile:
    problems = Problems(path)
    lines = text.splitlines()
    conversations: list[RawConversation] = []
    current: RawConversation | None = None
    turn: RawTurn | None = None
    body: list[str] = []

    def close_turn() -> None:
        nonlocal turn
        if turn is not None and current is not None:
            turn.text = "\n".join(body).strip()
            if turn.text:
                current.turns.append(turn)
            else:
                problems.add(
                    turn.line, f"the {turn.role} turn is empty; write what was said, or drop the line"
                )
        turn = None
        body.clear()

    if not any(CONVERSATION.match(line) for line in lines):
        current = RawConversation(path.stem, 1)
        conversations.append(current)
    for number, line in enumerate(lines, start=1):
        heading = CONVERSATION.match(line)
        if heading:
            close_turn()
            if not heading["id"]:
                problems.add(number, "a '# Conversation' line without an id; write '# Conversation ID'")
            current = RawConversation(heading["id"] or f"line-{number}", number)
            if any(c.conversation_id == current.conversation_id for c in conversations):
                problems.add(number, f"conversation id {current.conversation_id!r} is used twice")
            conversations.append(current)
            continue
        if current is None:
            if line.strip():
                problems.add(number, "text before the first '# Conversation' line; move it under one")
            continue
        said = speaker(line)
        if said is not None:
            close_turn()
            role, ref, timestamp, rest = said
            if timestamp and (problem := check_timestamp(timestamp)):
                problems.add(number, problem)
            turn = RawTurn(role, "", number, ref, timestamp)
            body.append(rest)
            continue
        if turn is not None:
            body.append(line)
            continue
        if line.strip():
            _field(current, line, number, problems)
    close_turn()
    for conversation in conversations:
        if not conversation.turns:
            problems.add(
                conversation.line,
                f"conversation {conversation.conversation_id!r} has no speaker lines "
                "(e.g. '**You:** question', '**Assistant:** answer')",
            )
    return ParsedFile(path, "markdown", conversations, problems.lines)


def _field(conversation: RawConversation, line: str, number: int, problems: Problems) -> None:
    found = FIELD.match(line)
    name = FIELDS.get(found["key"].strip().lower()) if found else None
    if found is None or name is None:
        problems.add(
            number,
            f"{line.strip()[:60]!r} is neither a field ({', '.join(sorted(set(FIELDS)))}) nor a speaker "
            "line ('**You:** ...', '**Assistant:** ...')",
        )
        return
    value = found["value"]
    if name == "scenario_id":
        conversation.scenario_id = value
    elif name == "attachment":
        conversation.attachments.append(value)
    else:
        set_field(conversation, name, value, number, problems)
