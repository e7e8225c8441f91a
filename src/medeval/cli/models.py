"""`medeval models`: the providers and whether each key is set (never its value), the endpoint in
use, the specification's model names and what they resolve to, each known model's lifecycle, and
the capability families. Reads only the environment and `data/models.json`; makes no call."""

from __future__ import annotations

from datetime import date
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from medeval.errors import UserError
from medeval.records.redact import redact_url
from medeval.reporting.render.terminal import emit, fit, stdout_console

#: The model names the specification uses, in the order it lists them.
SPECIFICATION_NAMES = (
    "gpt-4.1",
    "gpt-4.1-mini",
    "claude-3.5-sonnet",
    "claude-3-opus",
    "gemini-1.5-pro",
    "grok-2",
)
STATUS_STYLE = {"active": "green", "deprecated": "yellow", "retired": "red"}


def _parse_day(value: str | None) -> date:
    if value is None:
        return date.today()
    try:
        return date.fromisoformat(value)
    except ValueError as error:
        raise UserError(f"--as-of {value!r} is not a date; use YYYY-MM-DD, e.g. 2026-11-22") from error


def providers_table() -> Table:
    from medeval.adapters.apikeys import endpoint, key_status
    from medeval.adapters.catalog import catalog

    table = Table(title="providers", title_justify="left")
    for column in ("provider", "sdk", "key", "endpoint", "from"):
        table.add_column(column)
    for name, info in catalog().providers.items():
        status = key_status(info.key_variables)
        if status == "missing":
            status = f"missing: set {' or '.join(info.key_variables)}"
            if info.key_optional:
                status += " (optional)"
        configured = endpoint(info.endpoint_variable)
        table.add_row(
            name,
            info.sdk,
            status,
            redact_url(configured) if configured else info.default_endpoint or "(required)",
            info.endpoint_variable if configured else "default",
        )
    return table


def lifecycle_table(today: date) -> Table:
    from medeval.adapters.catalog import catalog

    table = Table(title=f"models (lifecycle as of {today})", title_justify="left")
    for column in ("spec", "api id", "status", "deprecated", "retires", "successors"):
        table.add_column(column)
    entries = sorted(
        catalog().models,
        key=lambda e: (e.name not in SPECIFICATION_NAMES, e.provider, e.retires_on or date.max, e.name),
    )
    for entry in entries:
        status = entry.status(today)
        marker = " *" if entry.name in SPECIFICATION_NAMES else ""
        retires = entry.date_text or (str(entry.retires_on) if entry.retires_on else "-")
        table.add_row(
            f"{entry.provider}:{entry.name}{marker}",
            entry.api_id + (f" (aliases: {', '.join(entry.aliases)})" if entry.aliases else ""),
            f"[{STATUS_STYLE[status]}]{status}[/]",
            str(entry.deprecated_on or "-"),
            retires,
            ", ".join(entry.successors) or "-",
        )
    return table


def families_table() -> Table:
    from medeval.adapters.catalog import catalog

    table = Table(title="capability families", title_justify="left")
    for column in (
        "provider",
        "family",
        "matches",
        "temperature",
        "top_p",
        "seed",
        "structured output",
        "api",
    ):
        table.add_column(column)
    for family in catalog().families:
        table.add_row(
            family.provider,
            family.family,
            ", ".join(m or "(any)" for m in family.match),
            *("yes" if family.accepts(k) else "dropped" for k in ("temperature", "top_p", "seed")),
            family.structured_output,
            family.api,
        )
    return table


def models_command(
    as_of: Annotated[
        str | None, typer.Option("--as-of", help="Show lifecycle as of this date (YYYY-MM-DD); default today")
    ] = None,
) -> None:
    """List providers (key set or missing, never its value), model aliases, lifecycles and capabilities."""
    # The catalog loads pydantic models and the adapters' base: only when this command runs.
    from medeval.adapters.catalog import catalog

    today = _parse_day(as_of)
    console = stdout_console()
    emit(
        console,
        fit(providers_table(), console),
        fit(lifecycle_table(today), console),
        Text("* a model name used by the specification; retired models are refused before any call."),
        fit(families_table(), console),
        Text(f"table data: medeval/data/models.json (as of {catalog().as_of}; sources: {catalog().sources})"),
    )
