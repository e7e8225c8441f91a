"""Runs as tidy tables: trials, groups, claims, checklist codes and calls, one row per thing, with
stable column names (documented in docs/data.md), for `medeval export`, `medeval query` and
`medeval.api`.
A reader: imports records, schemas and errors; never the engine."""

from medeval.export.tables import COLUMNS, TABLES
from medeval.export.views import connect, export_runs, find_runs

__all__ = ["COLUMNS", "TABLES", "connect", "export_runs", "find_runs"]
