"""Where the command line writes: one stdout console for tables, one-line errors on stderr."""

from __future__ import annotations

import sys

from rich.console import Console

from medeval.redact import redact

# Off a terminal (logs, CI, pipes) rich would wrap at 80 columns and cut table cells.
OFF_TERMINAL_WIDTH = 200


def stdout_console() -> Console:
    return Console(width=None if sys.stdout.isatty() else OFF_TERMINAL_WIDTH)


def error_line(message: str) -> None:
    """One unwrapped line on stderr, so every problem stays greppable."""
    print(f"error: {redact(message)}", file=sys.stderr, flush=True)
