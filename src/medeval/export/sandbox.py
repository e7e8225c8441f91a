"""`medeval query` contained: a read-only connection and statements that can only read the tables.

Two fences, so either alone would hold:
- the connection: external access off (no file reads or writes but the tables' own files, no
  network, no extension install or load), extension autoload off, configuration locked so SQL cannot
  turn any of it back on;
- the statement: exactly one, and only SELECT (WITH, FROM-first, DESCRIBE, SUMMARIZE...) or EXPLAIN.
  COPY, ATTACH, INSTALL, LOAD, SET, PRAGMA, CREATE and the rest are refused with the reason.

Values come back as data: timestamps with a time zone are turned into text inside DuckDB, so no
Python time-zone module is needed to print them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from medeval.errors import UserError

READABLE = {"SELECT", "EXPLAIN"}
#: Why a kind of statement is refused, in the words of its effect.
_WHY = {
    "COPY": "COPY writes or reads files",
    "EXPORT": "EXPORT writes files",
    "ATTACH": "ATTACH opens or creates other databases",
    "DETACH": "DETACH changes the databases open",
    "LOAD": "INSTALL and LOAD fetch or run extensions",
    "SET": "SET changes settings",
    "VARIABLE_SET": "SET changes settings",
    "PRAGMA": "PRAGMA changes or reads settings",
    "CALL": "CALL runs table functions outside the tables",
}
QUERY_HELP = "medeval query is read-only: one SELECT over the tables (docs/data.md)"

OUTSIDE = (
    "query refused: it reads a file or extension outside the run's tables, and file access is "
    f"disabled; {QUERY_HELP}"
)


class QueryRefused(UserError):
    """A statement `medeval query` will not run."""


def lock_down(con: duckdb.DuckDBPyConnection, readable: list[Path]) -> None:
    """Turn off every way out of the database but reading `readable` (the tables' own files)."""
    if readable:
        paths = ", ".join("'" + str(p.resolve()).replace("'", "''") + "'" for p in readable)
        con.execute(f"SET allowed_paths = [{paths}]")
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET autoload_known_extensions = false")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def check_statement(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Refuse, with one line saying why, anything but one reading statement."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as error:
        raise UserError(f"query failed: {_first_line(error)}; {QUERY_HELP}") from None
    if len(statements) != 1:
        raise QueryRefused(f"query refused: {len(statements)} statements given, one at a time; {QUERY_HELP}")
    kind = str(statements[0].type).rsplit(".", 1)[-1]
    if kind not in READABLE:
        why = _WHY.get(kind, f"{kind} changes the database")
        raise QueryRefused(f"query refused: {why}; {QUERY_HELP}")


def run_query(con: duckdb.DuckDBPyConnection, sql: str) -> duckdb.DuckDBPyRelation | None:
    """The relation of one checked reading statement, with zoned timestamps turned into text."""
    check_statement(con, sql)
    try:
        relation = con.sql(sql)
    except duckdb.PermissionException:
        raise QueryRefused(OUTSIDE) from None
    except duckdb.Error as error:
        raise UserError(f"query failed: {_first_line(error)}; {QUERY_HELP}") from None
    if relation is None:
        return None
    zoned = [i for i, kind in enumerate(relation.types) if "TIME ZONE" in str(kind).upper()]
    if not zoned:
        return relation
    columns = [
        f'#{i + 1}{"::VARCHAR" if i in zoned else ""} AS "{name.replace(chr(34), chr(34) * 2)}"'
        for i, name in enumerate(relation.columns)
    ]
    return relation.project(", ".join(columns))


def fetch(relation: duckdb.DuckDBPyRelation, limit: int) -> tuple[list[tuple[Any, ...]], bool]:
    """Up to `limit` rows, and whether more were left."""
    try:
        rows = relation.limit(limit + 1).fetchall()
    except duckdb.PermissionException:
        raise QueryRefused(OUTSIDE) from None
    except duckdb.Error as error:
        raise UserError(f"query failed: {_first_line(error)}; {QUERY_HELP}") from None
    return rows[:limit], len(rows) > limit


def _first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
