"""What every transcript format parses into, before any scenario is involved: conversations of
turns, each with the line it came from, plus the per-conversation provenance the file carries.
Problems are collected, one line each (`path:line: what is wrong; the fix`), never raised one by one:
a file is refused whole with every problem listed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time
from pathlib import Path
from typing import Literal

from medeval.schemas import CHANNELS

Role = Literal["user", "assistant"]
Format = Literal["csv", "jsonl", "markdown"]

#: Speaker names read as the person asking (the shopper, the caller) and as the one answering.
USER_NAMES = frozenset({"user", "you", "me", "shopper", "caller", "beneficiary", "human", "client"})
ASSISTANT_NAMES = frozenset(
    {"assistant", "chatbot", "bot", "ai", "counselor", "counsellor", "agent", "advisor"}
)
#: Per-conversation provenance fields a file may carry (the command line gives the defaults).
PROVENANCE_FIELDS = ("product", "product_version", "collected_by", "collected_at", "channel")


@dataclass
class RawTurn:
    role: Role
    text: str
    line: int
    #: A scripted turn id, or the question text to match (fuzzy), as the file gave it.
    ref: str | None = None
    timestamp: str | None = None


@dataclass
class RawConversation:
    conversation_id: str
    line: int
    turns: list[RawTurn] = field(default_factory=list)
    scenario_id: str | None = None
    #: Provenance fields the file gives for this conversation (PROVENANCE_FIELDS), as text.
    provenance: dict[str, str] = field(default_factory=dict)
    #: Screenshot, audio or other files named, as written (relative to the transcript's folder).
    attachments: list[str] = field(default_factory=list)


@dataclass
class ParsedFile:
    path: Path
    format: Format
    conversations: list[RawConversation]
    problems: list[str]
    #: The file's sha256, recorded with every conversation read from it.
    sha256: str = ""


class Problems:
    """Problem lines of one file, each prefixed with `path:line:`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: list[str] = []

    def add(self, line: int | None, message: str) -> None:
        where = f"{self.path}:{line}" if line else str(self.path)
        self.lines.append(f"{where}: {message}")


def role_of(name: str) -> Role | None:
    """'User', 'you', 'Counselor'... as a role; None when the name is neither."""
    word = name.strip().lower()
    if word in USER_NAMES:
        return "user"
    if word in ASSISTANT_NAMES:
        return "assistant"
    return None


def check_timestamp(value: str) -> str | None:
    """The problem with a timestamp, or None: ISO 8601 date-time, date, or a time of day (10:42)."""
    text = value.strip()
    text = text[:-1] + "+00:00" if text.endswith("Z") else text
    for parse in (datetime.fromisoformat, date.fromisoformat, time.fromisoformat):
        try:
            parse(text)
        except ValueError:
            continue
        return None
    return f"timestamp {value!r} is not ISO 8601 (e.g. 2026-11-20T10:42:00Z, 2026-11-20 or 10:42)"


def check_channel(value: str) -> tuple[str | None, str | None]:
    """(the channel in its recorded form, None) or (None, the problem)."""
    word = re.sub(r"[\s_-]+", " ", value.strip().lower())
    if word in ("phone", "call", "phone call", "transcript"):
        word = "phone transcript"
    if word in CHANNELS:
        return word, None
    return None, f"channel {value!r} is not one of {', '.join(CHANNELS)}"


def set_field(conversation: RawConversation, name: str, value: str, line: int, problems: Problems) -> None:
    """Record a provenance field, refusing a second, different value for the same conversation."""
    value = value.strip()
    if not value:
        return
    if name == "channel":
        channel, problem = check_channel(value)
        if problem:
            problems.add(line, problem)
            return
        value = channel or value
    elif name == "collected_at" and (problem := check_timestamp(value)):
        problems.add(line, f"collected_at: {problem}")
        return
    known = conversation.provenance.get(name)
    if known is not None and known != value:
        problems.add(
            line,
            f"conversation {conversation.conversation_id!r} gives {name} {known!r} and then {value!r}; "
            "give one value per conversation",
        )
        return
    conversation.provenance[name] = value
