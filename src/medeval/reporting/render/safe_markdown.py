"""A model's answer as safe Markdown, with its claims highlighted by verdict.

Answers are Markdown more often than not (headings, lists, bold). This renders the small subset that
reads better formatted: ATX headings, bullet and numbered lists, paragraphs and **bold**. Every
character of the answer is escaped; the only tags in the output are the fixed ones written here, so
raw HTML in an answer shows as text and a link never becomes a link. Claim highlights are computed
on the verbatim text's offsets (the judges' quote spans) and carried through the Markdown markup, the
worst verdict winning where quotes overlap. Linear in the length of the answer plus the spans.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

VERDICT_RANK = {"CONTRADICTED": 3, "PENDING": 2, "NOT_IN_KEY": 1, "SUPPORTED": 0}
_HEADING = re.compile(r"(#{1,6})[ \t]+")
_BULLET = re.compile(r"[ \t]*[-*+][ \t]+")
_NUMBERED = re.compile(r"[ \t]*\d{1,3}[.)][ \t]+")
_SCHEME = re.compile(r"(?i)\b(https?):(//)")


def defang(text: str) -> str:
    """Plain text in which a URL cannot read as one (a zero-width space after the scheme)."""
    return _SCHEME.sub(lambda m: f"{m.group(1)}:\u200b{m.group(2)}", text)


def _verdicts(length: int, claims: list[tuple[str, list[tuple[int, int]]]]) -> list[int]:
    """Per character, the worst verdict's rank covering it (-1 = none): a difference array per rank."""
    marks = [-1] * length
    by_rank: dict[int, list[int]] = {}
    for verdict, spans in claims:
        rank = VERDICT_RANK.get(verdict, 0)
        delta = by_rank.setdefault(rank, [0] * (length + 1))
        for start, end in spans:
            if 0 <= start < end <= length:
                delta[start] += 1
                delta[end] -= 1
    for rank in sorted(by_rank):  # higher ranks overwrite lower ones
        running = 0
        delta = by_rank[rank]
        for i in range(length):
            running += delta[i]
            if running > 0:
                marks[i] = rank
    return marks


_CLASS = {rank: f"v-{verdict.lower()}" for verdict, rank in VERDICT_RANK.items()}


def _inline(text: str, offset: int, marks: list[int]) -> str:
    """One line's content: **bold** and highlights; every character escaped."""
    bold = [False] * len(text)
    keep = [True] * len(text)
    for match in re.finditer(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", text):
        for i in range(match.start(), match.start() + 2):
            keep[i] = False
        for i in range(match.end() - 2, match.end()):
            keep[i] = False
        for i in range(match.start() + 2, match.end() - 2):
            bold[i] = True
    out: list[str] = []
    run: list[str] = []
    state: tuple[int, bool] | None = None

    def flush() -> None:
        if not run or state is None:
            return
        piece = defang(str(escape("".join(run))))
        if state[1]:
            piece = f"<strong>{piece}</strong>"
        if state[0] >= 0:
            piece = f'<mark class="{_CLASS[state[0]]}">{piece}</mark>'
        out.append(piece)
        run.clear()

    for i, char in enumerate(text):
        if not keep[i]:
            continue
        current = (marks[offset + i], bold[i])
        if current != state:
            flush()
            state = current
        run.append(char)
    flush()
    return "".join(out)


def render(text: str, claims: list[tuple[str, list[tuple[int, int]]]]) -> Markup:
    """`claims` = (verdict, [(start, end), ...]) on `text`'s offsets."""
    marks = _verdicts(len(text), claims)
    html: list[str] = []
    open_list: str | None = None
    paragraph: list[str] = []

    def close_paragraph() -> None:
        if paragraph:
            html.append("<p>" + "<br>".join(paragraph) + "</p>")
            paragraph.clear()

    def close_list() -> None:
        nonlocal open_list
        if open_list:
            html.append(f"</{open_list}>")
            open_list = None

    offset = 0
    for line in text.split("\n"):
        start = offset
        offset += len(line) + 1
        if not line.strip():
            close_paragraph()
            close_list()
            continue
        heading = _HEADING.match(line)
        item = _BULLET.match(line) or _NUMBERED.match(line)
        if heading:
            close_paragraph()
            close_list()
            level = min(len(heading.group(1)) + 3, 6)  # inside the drawer: h4 and below
            body = _inline(line[heading.end() :], start + heading.end(), marks)
            html.append(f"<h{level}>{body}</h{level}>")
        elif item:
            close_paragraph()
            kind = "ol" if _NUMBERED.match(line) else "ul"
            if open_list != kind:
                close_list()
                html.append(f"<{kind}>")
                open_list = kind
            html.append("<li>" + _inline(line[item.end() :], start + item.end(), marks) + "</li>")
        else:
            close_list()
            paragraph.append(_inline(line, start, marks))
    close_paragraph()
    close_list()
    return Markup("".join(html))
