"""The answer's structure, read with a Markdown parser (markdown-it-py), and its sentences.

Real chatbot answers are markdown: headings (often phrased as questions), bold lead-ins, bullet
lists under a lead-in ("What Medicare does NOT cover:"), tables, blockquotes. Line regexes read
them as a flat run of sentences, so a heading reads as an assertion and a list item loses the
lead-in that gives it its polarity. Here the parser finds the blocks; each block's lines are then
stripped of their markup by `text.strip_line`, so every sentence keeps its exact span in the
original answer. Each sentence carries its role and what it is read under:

- role: "heading", "question" (a sentence or heading that asks), "suggested" (an item under a
  lead-in that tells the reader what to ask), "row" (a table row, read as "header: cell"), or
  "statement";
- lead: for a list item's first sentence, its lead-in (the paragraph ending in ":" or the heading
  right before the list, or the parent item ending in ":");
- context: the sentence before it (or the heading), from which a subject that leans on it
  ("both", "neither", "they") is resolved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from medeval.agents.rulecoder.text import CELL, CHAR_MAP, Piece, plain_line

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

Role = Literal["statement", "heading", "question", "suggested", "row"]


@dataclass(frozen=True)
class Sentence:
    piece: Piece
    role: Role = "statement"
    lead: Piece | None = None
    context: Piece | None = None
    #: The lead-in says what its items are ("What Medicare does NOT cover:", "What counts toward
    #: it?"): an item joined to it asserts what the joint says. Not so under a lead-in that asks
    #: where or how to find something, or sets a condition ("covers SNF care when:").
    lead_states: bool = False
    #: The heading the sentence is under.
    heading: Piece | None = None

    @property
    def text(self) -> str:
        return self.piece.text

    @property
    def asserts(self) -> bool:
        """Whether the sentence can assert anything: a heading, a question or a question the
        reader is told to ask never does."""
        return self.role in ("statement", "row")


@dataclass
class _Block:
    kind: Literal["heading", "paragraph", "item", "row"]
    lines: list[Piece]
    lead: Piece | None = None
    heading: Piece | None = None
    lead_states: bool = False
    #: A task-list item ("- [ ] Doctor confirmed in network"): a box to tick, a check to make.
    task: bool = False


# Anything that could be markdown structure; an answer without any is read line by line, which
# is what the parser would find, without its cost.
_MARKUP = re.compile(r"^\s{0,3}(?:#|[-*+]\s|\d{1,2}[.)]\s|>|=+\s*$|-+\s*$)|\|", re.M)
# "Questions to ask the plan:", "When you call, ask:": its items are questions to put, not claims.
_ASKING_LEAD = re.compile(r"\b(?:ask(?:ing)?|questions?)\b", re.I)
_TASK_BOX = re.compile(r"\s*\[[ xX]\]\s")
_BOLD_LABEL = re.compile(r"^\s*(?:\*\*|__)[^*_\n]{2,80}(?:\*\*|__)\s*$")
# A lead-in that lists what is wrong ("Common mistakes to avoid", "Myths"): its items are denied.
DENYING_LEAD = re.compile(
    r"\b(?:mistakes?|myths?|misconceptions?|misunderstandings?|confusions?|mix-?ups?|pitfalls?|avoid|"
    r"not true|false|don't assume|do not assume|wrong)\b",
    re.I,
)
_PLACE_QUESTION = re.compile(
    r"\W*(?:where|who|how (?:can|do|to|should)|when|"
    r"to (?:find|check|see|confirm|verify|look up|learn|get)|"
    # "**Finding Harborview's PCP copay (2026):**" heads a list of places to look, as "To find" does.
    r"(?:finding|checking|confirming|verifying|looking up))\b",
    re.I,
)
_CONDITION_LEAD = re.compile(r"\b(?:when|if|only if|as long as|provided|unless)\s*:?\s*$", re.I)
# A question, allowing closing quotes and markup after the mark.
_QUESTION_END = re.compile(r"\?[\"')\]*_\s]*$")
# The reader's question said back ("You're asking whether Harborview covers Lipitor."): it asks.
_RESTATED = re.compile(
    r"^\W*(?:so,?\s+)?(?:you're|you are|you've been|you were) (?:asking|wondering)\b|"
    r"^\W*(?:you asked|you want to know|your question (?:is|was))\b",
    re.I,
)
# A lead-in that names what follows by a wh-clause ("What an HMO typically covers out of
# network:", "Which costs count:") labels its list as a heading does; it asserts nothing itself.
_WH_LABEL = re.compile(r"^\W*(?:what|which|where|when|who|how|why)\b[^:]*:[\s*_]*$", re.I)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    # Only the blocks are read: each line's inline markup is stripped by `plain_line`, which keeps
    # offsets, so the parser's inline pass (two thirds of its time) is left out.
    return MarkdownIt("commonmark", {"html": False}).enable("table").disable(["inline", "text_join"])


def _line_starts(text: str) -> tuple[list[str], list[int]]:
    lines = text.splitlines(keepends=True)
    starts = []
    at = 0
    for line in lines:
        starts.append(at)
        at += len(line)
    return lines, starts


def _pieces(lines: list[str], starts: list[int], first: int, last: int) -> list[Piece]:
    out = []
    for n in range(first, min(last, len(lines))):
        piece = plain_line(lines[n].rstrip("\r\n"), starts[n])
        if piece.text.strip():
            out.append(piece)
    return out


# A bare "No" cell ("No", "❌ No", "✗", "No (it counts toward the Part D cap instead)"), perhaps
# with a search assistant's source markers ("No [2]").
_CELL_NO = re.compile(
    r"^(?:[\u274c\u2717\u2718\u26d4]\ufe0f?\s*(?:no\b\.?)?|(?:(?:generally|usually|typically|mostly|often)\s+)?no\b\.?)"
    r"\s*(?:\([^()]*\))?\s*(?:\[\d+\]\s*)*$",
    re.I,
)
# A header that negates ("Doesn't count?"): a "No" under it is not read as a plain negation.
_HEADER_NEGATION = re.compile(r"\b(?:not|no|never)\b|n't\b", re.I)
_HEADER_FIGURE = re.compile(r"[$%]|\d")
# A column of what is wrong ("Myth | Fact", "Common misconception | Reality"): its cells are the
# myths the row goes on to correct, so the row is read without them.
_MYTH_HEADER = re.compile(
    r"^\W*(?:(?:the|common|a)\s+)?(?:myths?|misconceptions?|misunderstandings?|mistakes?|"
    r"what (?:people|many people|some people|you might) (?:think|assume|believe|hear)|"
    r"(?:common )?(?:belief|assumption)s?|false|wrong|you might hear|people say)\W*$",
    re.I,
)


def _row(cells: Piece, header: list[Piece], width: int) -> Piece:
    """A table row with each cell after the first labelled by its column's header: "Part B |
    2026: $202.90". The header's characters point at the cell's first character, so the row's
    span stays inside the row."""
    parts = _split_cells(cells)
    if not header or len(parts) < 2:
        return cells
    # Empty cells at the row's start leave no text: the cells left are the row's last ones.
    shift = max(0, width - len(parts))
    myths = {i for i, name in enumerate(header) if _MYTH_HEADER.match(name.text)}
    if shift == 0 and 0 in myths and len(parts) > 1 and len(myths) < len(header):
        parts = parts[1:]
        shift = 1
    out = parts[0]
    for i, cell in enumerate(parts[1:], start=1 + shift):
        if not cell.text or i in myths:
            continue
        at = cell.offsets[0]
        out = out + Piece(CELL, (at,) * len(CELL))
        name = header[i].text.rstrip(": ") if i < len(header) else ""
        if name.endswith("?") and _HEADER_FIGURE.search(name):
            name = ""  # "Can it be $0?": the header's figure is asked about, not the row's value
        if name and _CELL_NO.match(cell.text) and not _HEADER_NEGATION.search(name):
            # A "No" under a yes/no column answers its header in the negative: "COBRA | Lets you
            # delay Part B without penalty?: No" says COBRA does not; read it so ("not Lets you
            # delay ...: No"), or a key's pattern would take the header as the row's claim.
            label = f"not {name.rstrip('? ')}: "
            out = out + Piece(label, (at,) * len(label)) + cell
            continue
        if name:
            label = f"{name}: "
            out = out + Piece(label, (at,) * len(label))
        out = out + cell
    return out


def _split_cells(row: Piece) -> list[Piece]:
    cells: list[Piece] = []
    start = 0
    while True:
        at = row.text.find(CELL, start)
        end = len(row.text) if at < 0 else at
        cells.append(row.sub(start, end).strip())
        if at < 0:
            return cells
        start = at + len(CELL)


def _ends_lead(piece: Piece) -> bool:
    return piece.text.rstrip().endswith(":")


def _blocks(text: str) -> list[_Block]:
    lines, starts = _line_starts(text)
    if not _MARKUP.search(text):
        return [_Block("paragraph", _pieces(lines, starts, n, n + 1)) for n in range(len(lines))]
    tokens: list[Any] = _parser().parse(text)
    out: list[_Block] = []
    heading: Piece | None = None
    pending: Piece | None = None  # a lead-in just read: what a list right after it is under
    pending_states = False  # the lead-in is a statement ending in ":" (not a heading)
    leads: list[tuple[Piece | None, bool]] = []  # per open list
    first_in_item: list[bool] = []
    inside: str = ""
    header: list[Piece] = []
    cells: list[Piece]
    table_lead: Piece | None = None
    in_head = False
    row_line, cells = 0, []
    for tok in tokens:
        kind = tok.type
        if kind == "heading_open":
            inside = "heading"
        elif kind == "paragraph_open":
            inside = "paragraph"
        elif kind in ("heading_close", "paragraph_close"):
            inside = ""
        elif kind in ("bullet_list_open", "ordered_list_open"):
            leads.append((pending, pending_states))
            pending = None
        elif kind in ("bullet_list_close", "ordered_list_close"):
            leads.pop()
            pending = None
        elif kind == "list_item_open":
            first_in_item.append(True)
        elif kind == "list_item_close":
            first_in_item.pop()
        elif kind == "table_open":
            # A table right after a lead-in ("Here's an illustration with made-up numbers:") is
            # read under it, row by row, as a list is; its rows still assert on their own.
            header, table_lead = [], pending
            pending = None
        elif kind in ("thead_open", "thead_close"):
            in_head = kind == "thead_open"
        elif kind == "tr_open" and tok.map:
            row_line, cells = tok.map[0], []
        elif kind == "inline" and inside == "cell":
            cells.append(plain_line(tok.content, 0))
        elif kind in ("th_open", "td_open"):
            inside = "cell"
        elif kind in ("th_close", "td_close"):
            inside = ""
        elif kind == "tr_close":
            if in_head:
                header = cells
                continue
            row = _pieces(lines, starts, row_line, row_line + 1)
            if row:
                block = _Block("row", [_row(row[0], header, len(cells))], lead=table_lead, heading=heading)
                out.append(block)
        elif kind == "inline" and inside and tok.map:
            pieces = _pieces(lines, starts, tok.map[0], tok.map[1])
            if not pieces:
                continue
            if inside == "heading":
                out.append(_Block("heading", pieces))
                heading = pending = pieces[-1]
                # A heading's list answers it ("What counts toward it?" - "Your premiums"), unless
                # it asks where or how to find something (its items are places to look).
                pending_states = not _PLACE_QUESTION.match(pending.text) and not _CONDITION_LEAD.search(
                    pending.text
                )
                continue
            item = bool(first_in_item) and first_in_item[-1]
            if item:
                first_in_item[-1] = False
            lead, states = leads[-1] if item and leads else (None, False)
            out.append(
                _Block(
                    "item" if item else "paragraph",
                    pieces,
                    lead=lead,
                    heading=heading,
                    lead_states=states,
                    task=item and _TASK_BOX.match(tok.content) is not None,
                )
            )
            # A paragraph that is one bold label of what is wrong ("**Common confusions.**") heads
            # the list after it, as "Common mistakes:" does.
            bold_label = (
                not item and _BOLD_LABEL.match(tok.content) is not None and DENYING_LEAD.search(tok.content)
            )
            pending = pieces[-1] if _ends_lead(pieces[-1]) or bold_label else None
            # A lead-in that sets a condition ("Part A covers SNF care when:") lists conditions.
            pending_states = (
                pending is not None
                and not _PLACE_QUESTION.match(pending.text)
                and not _CONDITION_LEAD.search(pending.text)
            )
        elif kind in ("fence", "code_block", "html_block") and tok.map:
            out.append(_Block("paragraph", _pieces(lines, starts, tok.map[0], tok.map[1]), heading=heading))
    return out


# Words after which a period does not end a sentence.
_ABBREVIATIONS = frozenset(
    {
        *("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"),
        *("mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri"),
        *("dr", "mr", "mrs", "ms", "st", "jr", "sr", "vs", "etc", "approx", "e.g", "i.e", "u.s", "u.s.a"),
        *("a.m", "p.m", "inc", "dept", "ph.d"),
    }
)
_SENTENCE_END = re.compile(r"[.!?]+(?=[\"')\]]*(?:\s|$))")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_HAS_TEXT = re.compile(r"[A-Za-z0-9]")


#: How far back a period looks for the word it ends. Every abbreviation is far shorter; the bound
#: keeps splitting linear in the answer's length (an unbounded look-back searched the whole line
#: before each period: a 60,000-character answer took seconds).
_LOOK_BACK = 64
_NEXT_CHAR = re.compile(r"\s*(\S?)")


def _ends_sentence(text: str, match: re.Match[str]) -> bool:
    if match.group() != ".":
        return True
    word = _WORD_BEFORE.search(text, max(0, match.start() - _LOOK_BACK), match.start())
    if word is None:
        return True
    token = word.group(1).lower().rstrip(".")
    if token in _ABBREVIATIONS:
        return False
    # "No. 2" is a number; a lone capital is an initial ("Dr. J. Smith").
    after = _NEXT_CHAR.match(text, match.end())
    if token == "no" and after is not None and after.group(1).isdigit():
        return False
    return not (len(token) == 1 and word.group(1).isupper())


def _split(line: Piece) -> list[Piece]:
    if CELL in line.text:
        return [line]  # a table row is one statement: its label and its cells
    out = []
    start = 0
    for match in _SENTENCE_END.finditer(line.text):
        if _ends_sentence(line.text, match):
            out.append(line.sub(start, match.end()))
            start = match.end()
    out.append(line.sub(start, len(line.text)))
    return [s.strip() for s in out if _HAS_TEXT.search(s.text)]


def _lead_clause(lead: Piece) -> Piece:
    """The lead-in without its closing colon."""
    text = lead.text.rstrip()
    end = len(text) - 1 if text.endswith(":") else len(text)
    return lead.sub(0, end).strip()


# One answer is read again by every reader of a trial (claims, each group's items, grounding): the
# reading is pure and its parts are frozen, so it is kept for the most recent answers. Splitting
# was about a quarter of the harness's CPU per trial (docs/performance.md).
@lru_cache(maxsize=256)
def read_structure(answer: str) -> tuple[Sentence, ...]:
    """The answer's sentences in order, each with its role, lead-in and context."""
    out: list[Sentence] = []
    previous: Piece | None = None
    for block in _blocks(answer.translate(CHAR_MAP)):
        lead = _lead_clause(block.lead) if block.lead is not None else None
        suggested = lead is not None and _ASKING_LEAD.search(lead.text) is not None
        first = True
        for line in block.lines:
            for piece in _split(line):
                role: Role
                if _QUESTION_END.search(piece.text) or _RESTATED.match(piece.text):
                    role = "question"
                elif block.kind == "heading" or (block.kind != "row" and _WH_LABEL.match(piece.text)):
                    role = "heading"
                elif suggested or block.task:
                    role = "suggested"
                elif block.kind == "row":
                    role = "row"
                else:
                    role = "statement"
                context = previous if previous is not None else block.heading
                out.append(
                    Sentence(
                        piece,
                        role,
                        lead if first else None,
                        context,
                        first and block.lead_states,
                        block.heading,
                    )
                )
                first = False
                previous = piece
    return tuple(out)


def sentences(answer: str) -> list[Piece]:
    """Sentences of the answer: a line break or a sentence-ending mark ends one."""
    return [s.piece for s in read_structure(answer)]


def plain_lines(answer: str) -> list[Piece]:
    """The answer's non-empty lines as the parser reads them, markdown stripped."""
    return [line for block in _blocks(answer.translate(CHAR_MAP)) for line in block.lines]
