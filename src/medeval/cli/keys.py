"""`medeval keys show|diff|status`: answer keys season by season (the work is in
medeval.scenarios.keys)."""

from __future__ import annotations

from datetime import date
from typing import Annotated

import typer

from medeval.errors import UserError
from medeval.reporting.render.terminal import stdout_console

out = stdout_console()

keys_app = typer.Typer(
    help="Answer keys by season: facts with their years and sources, changes, pending values.",
    no_args_is_help=True,
)

SPEC_HELP = "A scenario file or folder, a season (2026, 2027), or ID@SEASON (ship_medicare_only@2027)"


def _print(lines: list[str]) -> None:
    for line in lines:
        out.print(line, highlight=False, soft_wrap=True, markup=False)


def _today(value: str | None) -> date:
    if value is None:
        return date.today()
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UserError(f"--today {value!r}: not a date; give YYYY-MM-DD") from None


@keys_app.command("show")
def show_command(
    scenario: Annotated[str, typer.Argument(help=SPEC_HELP)],
    today: Annotated[str | None, typer.Option(help="Read expected dates as of this day (YYYY-MM-DD)")] = None,
) -> None:
    """Each fact of the key: its year, source, values by year, and status (published, pending, past due)."""
    from medeval.scenarios.keys import resolve, show_lines
    from medeval.scenarios.load import load_scenario

    day = _today(today)
    for path in resolve(scenario):
        _print(show_lines(load_scenario(path), path, day))


@keys_app.command("diff")
def diff_command(
    a: Annotated[str, typer.Argument(help="The earlier key: " + SPEC_HELP)],
    b: Annotated[str, typer.Argument(help="The later key: " + SPEC_HELP)],
) -> None:
    """What changed between two keys or seasons: values, sources, items, and the groups each affects."""
    from medeval.scenarios.keys import diff_paths, resolve

    for change in diff_paths(resolve(a), resolve(b)):
        _print(change.lines())


@keys_app.command("status")
def status_command(
    specs: Annotated[
        list[str] | None, typer.Argument(help=SPEC_HELP + "; default: every bundled season")
    ] = None,
    months: Annotated[int, typer.Option(min=1, help="List facts whose newest dated source is older")] = 12,
    today: Annotated[str | None, typer.Option(help="Read dates as of this day (YYYY-MM-DD)")] = None,
) -> None:
    """Pending values with their expected dates (past-due ones flagged), and facts with old sources."""
    from medeval.scenarios.keys import resolve, status_lines
    from medeval.scenarios.load import SEASONS

    paths = [p for spec in (specs or list(SEASONS)) for p in resolve(spec)]
    _print(status_lines(paths, _today(today), months))
