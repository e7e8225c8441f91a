"""The CSV transcript format: one row per turn.

Columns (a header row names them, in any order; case and spaces do not matter):
`conversation_id`, `role` and `text` are required; `turn_id` (a scripted turn id such as Q3, or the
question text to match), `timestamp`, `scenario_id` and the provenance columns `product_version`,
`collected_by`, `collected_at`, `channel`, `counselor` and `attachment` are optional. A provenance
value need only be on one row of its conversation; two different values for one conversation are a
problem. Rows of a conversation are read in file order."""

from __future__ import annotations

import csv
import io
from pathlib import Path

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

REQUIRED = ("conversation_id", "role", "text")
OPTIONAL = ("turn_id", "timestamp", "scenario_id", "attachment", *PROVENANCE_FIELDS)
ALIASES = {"conversation": "conversation_id", "turn": "turn_id", "question": "turn_id", "speaker": "role"}


def column_name(header: str) -> str:
    name = "_".join(header.strip().lower().replace("-", " ").split())
    return ALIASES.get(name, name)


def parse_csv(path: Path, text: str) -> ParsedFile:
    problems = Problems(path)
    conversations: dict[str, RawConversation] = {}
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
    except csv.Error as error:
        problems.add(1, f"not CSV ({error}); save the sheet as CSV (UTF-8)")
        return ParsedFile(path, "csv", [], problems.lines)
    if header is None:
        problems.add(
            None, "the file is empty; write a header row (conversation_id,turn_id,role,text,timestamp)"
        )
        return ParsedFile(path, "csv", [], problems.lines)
    columns = [column_name(h) for h in header]
    unknown = [h for h, c in zip(header, columns, strict=True) if c not in REQUIRED + OPTIONAL]
    missing = [c for c in REQUIRED if c not in columns]
    if unknown:
        problems.add(
            1, f"unknown column(s) {', '.join(map(repr, unknown))}; known: {', '.join(REQUIRED + OPTIONAL)}"
        )
    if missing:
        problems.add(1, f"missing column(s) {', '.join(missing)}; the header needs {', '.join(REQUIRED)}")
    if len(set(columns)) < len(columns):
        problems.add(1, "a column is named twice; name each column once")
    if unknown or missing or len(set(columns)) < len(columns):
        return ParsedFile(path, "csv", [], problems.lines)
    line = reader.line_num
    try:
        for cells in reader:
            start, line = line + 1, reader.line_num
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(columns):
                problems.add(
                    start, f"{len(cells)} cells where the header has {len(columns)}; quote text with commas"
                )
                continue
            _row(dict(zip(columns, cells, strict=True)), start, conversations, problems)
    except csv.Error as error:
        problems.add(line + 1, f"not CSV ({error}); close every quoted cell")
    if not conversations and not problems.lines:
        problems.add(None, "no rows under the header; add one row per turn")
    return ParsedFile(path, "csv", list(conversations.values()), problems.lines)


def _row(
    row: dict[str, str], line: int, conversations: dict[str, RawConversation], problems: Problems
) -> None:
    conversation_id = row["conversation_id"].strip()
    if not conversation_id:
        problems.add(line, "empty conversation_id; give every row its conversation's id")
        return
    conversation = conversations.setdefault(conversation_id, RawConversation(conversation_id, line))
    role = role_of(row["role"])
    if role is None:
        problems.add(
            line, f"role {row['role']!r} is neither user nor assistant (e.g. user, assistant, counselor)"
        )
    text = row["text"].strip()
    if not text:
        problems.add(line, "empty text; write what was said, or drop the row")
    timestamp = (row.get("timestamp") or "").strip() or None
    if timestamp and (problem := check_timestamp(timestamp)):
        problems.add(line, problem)
    scenario_id = (row.get("scenario_id") or "").strip()
    if scenario_id:
        if conversation.scenario_id not in (None, scenario_id):
            problems.add(line, f"conversation {conversation_id!r} names two scenarios; give one")
        conversation.scenario_id = scenario_id
    for name in PROVENANCE_FIELDS:
        set_field(conversation, name, row.get(name) or "", line, problems)
    attachment = (row.get("attachment") or "").strip()
    if attachment and attachment not in conversation.attachments:
        conversation.attachments.append(attachment)
    if role is not None and text:
        ref = (row.get("turn_id") or "").strip() or None
        conversation.turns.append(RawTurn(role, text, line, ref, timestamp))
