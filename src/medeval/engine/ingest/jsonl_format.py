"""The JSONL transcript format: one conversation per line, a JSON object:

    {"conversation_id": "web-1", "scenario_id": "ship_medicare_only",
     "provenance": {"product_version": "...", "collected_by": "...", "collected_at": "2026-11-20",
                    "channel": "web", "counselor": false, "attachments": ["shots/web-1.png"]},
     "turns": [{"role": "user", "text": "...", "turn_id": "Q1", "timestamp": "..."},
               {"role": "assistant", "text": "..."}]}

`conversation_id` and `turns` are required; every other key is optional, and an unknown key is a
problem (a typo would otherwise lose a field silently)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from medeval.engine.ingest.transcript import (
    PROVENANCE_FIELDS,
    ParsedFile,
    Problems,
    RawConversation,
    RawTurn,
    check_timestamp,
    role_of,
    set_field,
)

CONVERSATION_KEYS = ("conversation_id", "scenario_id", "provenance", "turns")
TURN_KEYS = ("role", "text", "turn_id", "timestamp")
PROVENANCE_KEYS = (*PROVENANCE_FIELDS, "attachments")


def parse_jsonl(path: Path, text: str) -> ParsedFile:
    problems = Problems(path)
    conversations: list[RawConversation] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError as error:
            problems.add(number, f"not JSON ({error.msg} at column {error.colno}); one conversation per line")
            continue
        if not isinstance(value, dict):
            problems.add(number, "not a JSON object; each line is one conversation object")
            continue
        conversation = _conversation(value, number, problems)
        if conversation is None:
            continue
        if conversation.conversation_id in seen:
            problems.add(
                number, f"conversation_id {conversation.conversation_id!r} is used twice; give each its own"
            )
        seen.add(conversation.conversation_id)
        conversations.append(conversation)
    if not conversations and not problems.lines:
        problems.add(None, "no conversations in the file; write one JSON object per line")
    return ParsedFile(path, "jsonl", conversations, problems.lines)


def _unknown(
    value: dict[str, Any], known: tuple[str, ...], where: str, line: int, problems: Problems
) -> None:
    extra = [k for k in value if k not in known]
    if extra:
        problems.add(line, f"{where}unknown key(s) {', '.join(map(repr, extra))}; known: {', '.join(known)}")


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _conversation(value: dict[str, Any], line: int, problems: Problems) -> RawConversation | None:
    _unknown(value, CONVERSATION_KEYS, "", line, problems)
    conversation_id = _text(value.get("conversation_id"))
    if conversation_id is None:
        problems.add(line, "conversation_id is missing or empty; give each conversation an id")
        return None
    conversation = RawConversation(conversation_id, line, scenario_id=_text(value.get("scenario_id")))
    provenance = value.get("provenance") or {}
    if not isinstance(provenance, dict):
        problems.add(line, 'provenance is not an object; write {"collected_by": ..., ...}')
        provenance = {}
    _unknown(provenance, PROVENANCE_KEYS, "provenance: ", line, problems)
    for name in PROVENANCE_FIELDS:
        field = provenance.get(name)
        if isinstance(field, bool):
            field = "yes" if field else "no"
        if field is not None and not isinstance(field, str):
            problems.add(line, f"provenance.{name} is not text")
            continue
        set_field(conversation, name, field or "", line, problems)
    attachments = provenance.get("attachments") or []
    if not isinstance(attachments, list) or not all(isinstance(a, str) and a.strip() for a in attachments):
        problems.add(line, "provenance.attachments is not a list of file paths")
    else:
        conversation.attachments = [a.strip() for a in attachments]
    turns = value.get("turns")
    if not isinstance(turns, list) or not turns:
        problems.add(line, "turns is missing or empty; give the conversation's turns in order")
        return conversation
    for index, turn in enumerate(turns):
        where = f"turns[{index}]: "
        if not isinstance(turn, dict):
            problems.add(line, f"{where}not an object with role and text")
            continue
        _unknown(turn, TURN_KEYS, where, line, problems)
        role = role_of(turn["role"]) if isinstance(turn.get("role"), str) else None
        text = _text(turn.get("text"))
        if role is None:
            problems.add(line, f"{where}role {turn.get('role')!r} is neither user nor assistant")
        if text is None:
            problems.add(line, f"{where}text is missing or empty; write what was said, or drop the turn")
        timestamp = _text(turn.get("timestamp"))
        if timestamp and (problem := check_timestamp(timestamp)):
            problems.add(line, f"{where}{problem}")
        ref = turn.get("turn_id")
        if ref is not None and not isinstance(ref, str):
            problems.add(line, f"{where}turn_id is not text")
            ref = None
        if role is not None and text is not None:
            conversation.turns.append(RawTurn(role, text, line, _text(ref), timestamp))
    return conversation
