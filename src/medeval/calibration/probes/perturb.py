"""The probes' text transforms: pure functions of an answer, deterministic given their seed.

- `padded`: the answer with neutral, content-free sentences around it (data/probes.json), adding at
  least as many characters as the answer has and at least PAD_MIN_CHARS.
- `as_prose` / `as_markdown`: the answer's sentences, markdown stripped, laid out as plain
  paragraphs, or under headings as a summary line, bullets and a one-column table. Both carry the
  same sentences in the same order, so only the format differs between them.
- `with_statement`: a long (padded) answer with one sentence placed first or last.
"""

from __future__ import annotations

import json
import random
import re
from functools import cache
from importlib.resources import files
from typing import Literal

from pydantic import BaseModel

#: The labels the markdown arm adds (format, not content).
MARKDOWN_LABELS = ("In short", "Details", "At a glance", "Key point")
#: The least padding added, so that even a one-line answer becomes clearly longer.
PAD_MIN_CHARS = 400
PROSE_SENTENCES_PER_PARAGRAPH = 3


class WrongStatement(BaseModel):
    fact_id: str
    statement: str


class ProbeMaterial(BaseModel):
    neutral_sentences: list[str]
    wrong_statements: list[WrongStatement]


@cache
def material() -> ProbeMaterial:
    text = files("medeval.data").joinpath("probes.json").read_text(encoding="utf-8")
    return ProbeMaterial.model_validate(json.loads(text))


def padded(answer: str, seed: int) -> str:
    """The answer with neutral sentences added: one before it, the rest in a paragraph after."""
    pool = list(material().neutral_sentences)
    random.Random(seed).shuffle(pool)
    need = max(len(answer), PAD_MIN_CHARS)
    chosen: list[str] = []
    while sum(len(s) + 1 for s in chosen) < need:
        chosen.append(pool[len(chosen) % len(pool)])
    return f"{chosen[0]}\n\n{answer.strip()}\n\n{' '.join(chosen[1:])}"


def with_statement(long_answer: str, statement: str, where: Literal["early", "late"]) -> str:
    return f"{statement}\n\n{long_answer}" if where == "early" else f"{long_answer}\n\n{statement}"


_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LEAD = re.compile(r"^\s*(?:>\s*)*(?:#{1,6}\s+|(?:[-*+\u2022]|\d{1,2}[.)])\s+)?")
_EMPHASIS = re.compile(r"\*{1,3}|(?<![A-Za-z0-9])_{1,3}|_{1,3}(?![A-Za-z0-9])|`+")
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\s]*\)")
_BOUNDARY = re.compile(r"([.!?][\"')\]]?)\s+(?=[A-Z\"'(\[])")
#: Words whose period does not end a sentence ("Oct. 15", "U.S. Department").
_ABBREVIATIONS = frozenset(
    {
        *("dr", "mr", "mrs", "ms", "st", "vs", "e.g", "i.e", "u.s", "no", "approx", "etc"),
        *("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"),
    }
)


def _units(answer: str) -> list[str]:
    """The answer's lines as plain text: markdown marks dropped, a table row's cells each a unit."""
    out: list[str] = []
    for line in answer.splitlines():
        if not line.strip() or _TABLE_RULE.match(line):
            continue
        lead = _LEAD.match(line)
        body = _LINK.sub(r"\1", line[lead.end() if lead else 0 :])
        body = _EMPHASIS.sub("", body).strip().rstrip("#").strip()
        cells = [c.strip() for c in body.split("|")] if body.count("|") >= 2 else [body]
        out += [c for c in cells if c]
    return out


def _split(unit: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(unit):
        word = unit[: match.start() + 1].rsplit(None, 1)[-1].rstrip(".").lower()
        if word in _ABBREVIATIONS:
            continue
        pieces.append(unit[start : match.end(1)].strip())
        start = match.end()
    pieces.append(unit[start:].strip())
    return [p if p[-1] in ".!?:\"')" else p + "." for p in pieces if p]


def sentences(answer: str) -> list[str]:
    """The answer's sentences, markdown stripped; a heading or bullet without a full stop gets one."""
    return [s for unit in _units(answer) for s in _split(unit)]


def as_prose(answer: str) -> str:
    parts = sentences(answer)
    n = PROSE_SENTENCES_PER_PARAGRAPH
    return "\n\n".join(" ".join(parts[i : i + n]) for i in range(0, len(parts), n))


def as_markdown(answer: str) -> str:
    """Headings, a summary line, bullets and a one-column table, over the same sentences."""
    parts = sentences(answer)
    if len(parts) < 2:
        return f"## {MARKDOWN_LABELS[0]}\n\n" + "\n".join(f"- {s}" for s in parts)
    rest = parts[1:]
    in_table = len(rest) // 3 or (1 if len(rest) >= 2 else 0)
    bullets, table = rest[: len(rest) - in_table], rest[len(rest) - in_table :]
    short, details, glance, point = MARKDOWN_LABELS
    lines = [f"## {short}", "", parts[0], "", f"## {details}", ""]
    lines += [f"- {s}" for s in bullets]
    if table:
        lines += ["", f"## {glance}", "", f"| {point} |", "|---|"]
        lines += [f"| {s.replace('|', '/')} |" for s in table]
    return "\n".join(lines)
