"""Text from outside the tool (answers, provider errors, served-model names, scenario text), made
inert in the files people open: a CSV cell a spreadsheet will not run, a Markdown span a renderer
will not turn into markup.

CSV (the OWASP rule against formula injection): a text cell that begins with `=`, `+`, `-`, `@`, a
tab or a carriage return gets a leading apostrophe, so a spreadsheet shows it as text instead of
evaluating it. A plain number written as text ("-3.5", "+2") is left alone: a spreadsheet reads it
as the number it is. Numbers themselves are never touched. The apostrophe is visible to a program
reading the file back; strip one leading apostrophe before a cell that starts with one of the six
characters to recover the original.

Markdown: `<` becomes an entity, so no tag can open (and `&` where it would start one; `>` is
escaped only at the start, where it would open a quote), every character that
starts inline markup (emphasis, code, links, images, strikethrough, table pipes, headings) is
backslash-escaped (an underscore between two letters or digits opens nothing and stays as it is),
and line breaks become spaces, so the span cannot open a block either. A CommonMark renderer with
raw HTML enabled shows the text as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TypeVar

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")

K = TypeVar("K")


def csv_cell(value: object) -> object:
    """A value as it may go into a CSV cell: text that a spreadsheet would run as a formula is
    prefixed with an apostrophe; anything else is returned as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_row(row: Mapping[K, object]) -> dict[K, object]:
    return {key: csv_cell(value) for key, value in row.items()}


def csv_values(row: Iterable[object]) -> list[object]:
    return [csv_cell(value) for value in row]


def csv_sql(column: str) -> str:
    """The same rule as a duckdb expression over a VARCHAR column, for files written by COPY."""
    return (
        f"CASE WHEN regexp_matches({column}, '^[=+\\-@\\t\\r]') "
        f"AND NOT regexp_full_match({column}, '{_PLAIN_NUMBER.pattern}') "
        f"THEN '''' || {column} ELSE {column} END"
    )


def csv_select(sql: str, text_columns: Iterable[str]) -> str:
    """`sql` with the rule applied to its text columns (the caller knows which: DESCRIBE tells)."""
    quoted = ['"' + name.replace('"', '""') + '"' for name in text_columns]
    if not quoted:
        return sql
    replaced = ", ".join(f"{csv_sql(q)} AS {q}" for q in quoted)
    return f"SELECT * REPLACE ({replaced}) FROM ({sql})"


# An underscore inside a word (scenario_001) cannot open or close emphasis, so it stays readable.
_MD_SPECIAL = re.compile(r"([\\`*\[\]!~|#{}]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")
#: Only an ampersand that would start a character reference needs escaping ("A&C" stays as it is).
_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
_LINE_START = re.compile(r"^(\s*)(>)|^(\s*(?:\d{1,9})?)([-+.)])(?=\s|$)")


def md_text(value: object) -> str:
    """Any text as an inline Markdown span that renders as exactly that text."""
    text = _ENTITY.sub("&amp;", str(value)).replace("<", "&lt;")
    text = " ".join(_MD_SPECIAL.sub(r"\\\1", text).splitlines())
    # Placed at the start of a line (after "> "), a list or heading marker would still open a block.
    return _LINE_START.sub(lambda m: f"{m[1] or m[3] or ''}\\{m[2] or m[4]}", text)


def md_code(value: object) -> str:
    """An identifier as a code span (whose content a renderer never reads as markup), or as escaped
    text when a backtick or line break in it could end the span."""
    text = str(value)
    if text and not any(c in text for c in "`\r\n"):
        return f"`{text}`"
    return md_text(text)
