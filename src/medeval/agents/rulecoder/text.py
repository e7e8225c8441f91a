"""Answer text as the rules coder reads it: a line stripped of its markdown, and clauses.

Every piece keeps a map from its characters back to the original answer, so a pattern matched in
the plain text still points at the exact passage the chatbot wrote (bold markers, bullets and
table pipes included).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from medeval.schemas import Span


@dataclass(frozen=True)
class Piece:
    """Plain text with, for each character, its index in the original answer."""

    text: str
    offsets: tuple[int, ...]

    def span(self, start: int = 0, end: int | None = None) -> Span:
        end = len(self.text) if end is None else end
        if not self.offsets:
            return Span(start=0, end=0)
        if end <= start:
            at = self.offsets[min(start, len(self.offsets) - 1)]
            return Span(start=at, end=at)
        return Span(start=self.offsets[start], end=self.offsets[end - 1] + 1)

    def sub(self, start: int, end: int) -> Piece:
        return Piece(self.text[start:end], self.offsets[start:end])

    def strip(self) -> Piece:
        start = len(self.text) - len(self.text.lstrip(" ,"))
        end = len(self.text.rstrip(" ,"))
        return self.sub(start, max(start, end))

    def __add__(self, other: Piece) -> Piece:
        return Piece(self.text + other.text, self.offsets + other.offsets)


class _Builder:
    def __init__(self) -> None:
        self.chars: list[str] = []
        self.offsets: list[int] = []

    def add(self, char: str, at: int) -> None:
        # Runs of white space read as one space: markup removed from "Part **B** premium" must
        # not leave a gap that a pattern like "part b premium" cannot cross.
        if char.isspace():
            if not self.chars or self.chars[-1] == " ":
                return
            char = " "
        self.chars.append(char)
        self.offsets.append(at)

    def piece(self) -> Piece:
        while self.chars and self.chars[-1] == " ":
            self.chars.pop()
            self.offsets.pop()
        return Piece("".join(self.chars), tuple(self.offsets))


# Typographic characters read as their plain forms (one for one, so offsets stay exact).
CHAR_MAP = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " ", "\u2011": "-"}
)

_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_HORIZONTAL_RULE = re.compile(r"^\s*(?:[-*_]\s*){3,}$")
_LINE_LEAD = re.compile(
    r"^\s*(?:>\s*)*(?:#{1,6}\s+|(?:[-*+\u2022\u25e6\u25aa\u2023]|\d{1,2}[.)])\s+)?(?:\[[ xX]\]\s+)?"
)
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(([^)\s]*)\)")
_EMPHASIS = re.compile(r"\*{1,3}|(?<![A-Za-z0-9])_{1,3}|_{1,3}(?![A-Za-z0-9])|`+|~~")


def _strip_line(line: str, start: int, out: _Builder) -> None:
    """Append one line's text without its markdown to `out`."""
    if _TABLE_RULE.match(line) or _HORIZONTAL_RULE.match(line):
        return
    lead = _LINE_LEAD.match(line)
    begin = lead.end() if lead else 0
    body = line[begin:].rstrip()
    body_end = begin + len(body)
    if body.rstrip().endswith("#"):
        body_end = begin + len(body.rstrip("# "))
    table = line.count("|") >= 2
    if not table:
        _strip_prose(line, begin, body_end, start, out)
        return
    drop = [False] * len(line)
    for link in _LINK.finditer(line, begin, body_end):
        # [text](url): keep the text, drop the brackets and the address.
        drop[link.start()] = True
        for i in range(link.start(1) + len(link.group(1)), link.end()):
            drop[i] = True
    for mark in _EMPHASIS.finditer(line, begin, body_end):
        for i in range(mark.start(), mark.end()):
            drop[i] = True
    row_start = len(out.chars)
    cells_seen = 0
    for i in range(begin, body_end):
        char = line[i]
        if drop[i]:
            continue
        if table and char == "|":
            # Cells stay apart (" | "): each is read with the row's label (see `clauses`).
            while out.chars and out.chars[-1] == " ":
                out.chars.pop()
                out.offsets.pop()
            if cells_seen and len(out.chars) > row_start and out.chars[-1] != "|":
                out.add(" ", start + i)
                out.add("|", start + i)
            out.add(" ", start + i)
            cells_seen += 1
            continue
        if table and char != " " and not cells_seen:
            cells_seen = 1
        out.add(char, start + i)
    while out.chars and out.chars[-1] in (" ", ",", "|"):
        out.chars.pop()
        out.offsets.pop()


_SPACE = re.compile(r"\s+")


def _strip_prose(line: str, begin: int, end: int, start: int, out: _Builder) -> None:
    """`_strip_line` for a line that is not a table row, a run of characters at a time rather than
    one by one (the same result: this is most of the text the rules coder reads)."""
    kept: list[tuple[int, int]] = []  # [a, b) ranges of `line` that stay
    cut: list[tuple[int, int]] = []
    for link in _LINK.finditer(line, begin, end):
        # [text](url): keep the text, drop the brackets and the address.
        cut += [(link.start(), link.start() + 1), (link.start(1) + len(link.group(1)), link.end())]
    cut += [(m.start(), m.end()) for m in _EMPHASIS.finditer(line, begin, end)]
    at = begin
    for a, b in sorted(cut):
        if a > at:
            kept.append((at, a))
        at = max(at, b)
    if at < end:
        kept.append((at, end))
    text = "".join(line[a:b] for a, b in kept)
    offsets = [start + i for a, b in kept for i in range(a, b)]
    # Runs of white space read as one space, none at the start (see _Builder.add).
    position = 0
    for space in _SPACE.finditer(text):
        a, b = space.span()
        out.chars.extend(text[position:a])
        out.offsets.extend(offsets[position:a])
        if out.chars and out.chars[-1] != " ":
            out.chars.append(" ")
            out.offsets.append(offsets[a])
        position = b
    out.chars.extend(text[position:])
    out.offsets.extend(offsets[position:])
    while out.chars and out.chars[-1] in (" ", ",", "|"):
        out.chars.pop()
        out.offsets.pop()


def plain_line(line: str, start: int) -> Piece:
    """One line of the answer (starting at offset `start`) without its markdown."""
    out = _Builder()
    _strip_line(line, start, out)
    return out.piece()


# Between the cells of a table row in the plain text.
CELL = " | "


@dataclass(frozen=True)
class Clause:
    """A clause of a sentence; `role` says how it relates to the sentence's main statement:
    "main", "contrast" (after "but", "while", "whereas", "although"...), or "comparison" (the
    thing compared against: "unlike Medicare", "compared with Medigap")."""

    piece: Piece
    role: str

    @property
    def text(self) -> str:
        return self.piece.text


# Hard clause boundaries: semicolons, dashes used as punctuation, and contrastive conjunctions.
_BOUNDARY = re.compile(
    r";|\u2014|\s--\s|\s[\u2013-]\s|,?\s+\b(?:but|whereas|although|however|while)\b,?\s+|,\s+(?:though|yet)\b,?\s+"
    r"|,\s+(?=(?:except|unless)\b)",
    re.I,
)
_CONTRAST_WORD = re.compile(r"^[,\s]*(but|whereas|although|though|however|yet|while)\b", re.I)
_COLON = re.compile(r":\s")
# A year labelling the value after it, up to its colon: "(2025: $209.50/day)".
YEAR_LABEL = re.compile(r"\b(20\d\d)\s*:?\s*$")
# A comparison phrase set off by commas or parentheses: "unlike Medicare", "compared with Medigap".
_COMPARISON = re.compile(
    r"(?:^|,\s*|\(\s*)(?P<phrase>(?:unlike|compared (?:with|to)|as opposed to|in contrast to|versus|vs\.?)"
    r"\s[^,;()]*?(?:\s*\([^()]*\))?)(?=\s*(?:,|\)|$))",
    re.I,
)
_RANGE_DASH = re.compile(r"[\d$%]\s*$")


def _is_range_dash(text: str, at: int, mark: str) -> bool:
    """A dash between figures or dates ("Oct 15 - Dec 7", "$50 - $300") joins a range."""
    if mark.strip() not in ("\u2013", "-"):
        return False
    return (
        bool(_RANGE_DASH.search(text[:at]))
        or text[at + len(mark) :].lstrip()[:1].isdigit()
        or (text[at + len(mark) :].lstrip()[:1] == "$")
    )


# A long aside in parentheses: "None of the Medicare options (Original Medicare, a Medicare
# Advantage plan, or a D-SNP) pays for custodial care".
_ASIDE = re.compile(r"\s*\([^()]{20,}\)")


def without_asides(clause: Clause) -> Clause | None:
    """The clause with its long parenthetical asides left out, so a subject and its verb that an
    aside holds apart are read together; None when it has none. Only credit is read so: an aside
    may hold the condition that keeps a statement from being wrong."""
    if "(" not in clause.text:
        return None
    kept: list[Piece] = []
    start = 0
    for match in _ASIDE.finditer(clause.text):
        kept.append(clause.piece.sub(start, match.start()))
        start = match.end()
    if not kept:
        return None
    kept.append(clause.piece.sub(start, len(clause.text)))
    joined = kept[0]
    for piece in kept[1:]:
        joined = joined + piece
    return Clause(joined, clause.role)


def clauses(sentence: Piece) -> list[Clause]:
    """Split a sentence into clauses that a pattern is matched within. A table row's cells are
    read with the row's label: "Medicare Advantage | Medicaid stays separate" reads as
    "Medicare Advantage, Medicaid stays separate"."""
    if CELL not in sentence.text:
        return _clauses(sentence)
    cells: list[Piece] = []
    start = 0
    while True:
        at = sentence.text.find(CELL, start)
        end = len(sentence.text) if at < 0 else at
        cells.append(sentence.sub(start, end).strip())
        if at < 0:
            break
        start = at + len(CELL)
    label, rest = cells[0], [c for c in cells[1:] if c.text]
    if not rest:
        return _clauses(label)
    out: list[Clause] = []
    for cell in rest:
        comma = Piece(", ", (cell.offsets[0], cell.offsets[0]))
        out.extend(Clause(label + comma + c.piece, c.role) for c in _clauses(cell))
    return out


def _clauses(sentence: Piece) -> list[Clause]:
    parts: list[tuple[Piece, str]] = []
    text = sentence.text
    start = 0
    role = "main"
    for match in _BOUNDARY.finditer(text):
        mark = match.group()
        if _is_range_dash(text, match.start(), mark):
            continue
        if mark.strip(" ,").lower() == "while" and not mark.startswith(","):
            continue  # "while you are working" is a time, not a contrast
        if _inside_aside(text, start, match.start()):
            continue  # "If you collect Social Security (you don't yet, but ...), you're enrolled"
        parts.append((sentence.sub(start, match.start()), role))
        contrast = _CONTRAST_WORD.match(mark)
        role = "contrast" if contrast else "main"
        start = match.end()
    parts.append((sentence.sub(start, len(text)), role))
    out: list[Clause] = []
    for piece, part_role in parts:
        for sub in _split_colon(piece):
            out.extend(_split_comparisons(sub, part_role))
    return [c for c in out if re.search(r"[A-Za-z0-9]", c.text)]


def _inside_aside(text: str, start: int, at: int) -> bool:
    """`at` is inside a parenthetical aside without figures, opened after `start`: its commas and
    "but" do not end the clause around it. (An aside with figures is split as before: the figures
    are read clause by clause.)"""
    opened = text.rfind("(", start, at)
    if opened < 0 or text.find(")", opened, at) >= 0:
        return False
    closed = text.find(")", at)
    return closed >= 0 and not any(c.isdigit() for c in text[opened:closed])


def _split_colon(piece: Piece) -> list[Piece]:
    """A colon after a short label ("Part B premium: $202.90") keeps label and value together;
    one after a full clause ("Here is how it works: you ...") ends the clause."""
    out: list[Piece] = []
    start = 0
    for match in _COLON.finditer(piece.text):
        label = piece.text[start : match.start()]
        # ... or a year labelling the value after it ("... (2025: $209.50/day)").
        if len(label.split()) <= 5 or YEAR_LABEL.search(label):
            continue
        out.append(piece.sub(start, match.start()))
        start = match.end()
    out.append(piece.sub(start, len(piece.text)))
    return out


def _split_comparisons(piece: Piece, role: str) -> list[Clause]:
    """Take comparison phrases out of the clause, so "Medicaid, unlike Medicare, pays for
    long-term care" reads as "Medicaid pays for long-term care" plus the comparison."""
    kept: list[Piece] = []
    compared: list[Clause] = []
    start = 0
    for match in _COMPARISON.finditer(piece.text):
        phrase_start, phrase_end = match.start("phrase"), match.end("phrase")
        kept.append(piece.sub(start, match.start()))
        compared.append(Clause(piece.sub(phrase_start, phrase_end).strip(), "comparison"))
        start = phrase_end
        if piece.text[start : start + 1] in (",", ")"):
            start += 1
    kept.append(piece.sub(start, len(piece.text)))
    main = kept[0]
    for part in kept[1:]:
        if main.text and not main.text.endswith(" ") and part.text and not part.text.startswith(" "):
            main = main + Piece(" ", (part.offsets[0],))
        main = main + part
    return [Clause(main.strip(), role), *compared]
