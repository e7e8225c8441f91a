"""User-facing errors: one line that names the problem and the fix, never a traceback."""

from __future__ import annotations

#: Exit codes of `medeval run`, `--resume` and `rescore` (documented in the README).
EXIT_COMPLETE = 0
#: A write to the run directory failed (disk full): what was written stays and can be resumed.
EXIT_STORAGE = 1
#: Refused before any work: bad input, unknown model, missing key, a run locked by another process.
EXIT_USAGE = 2
#: The run finished, but some trials could not be completed (the target failed); --retry-failed.
EXIT_FAILED_TRIALS = 3
#: Stopped launching trials at --max-cost; resumable.
EXIT_MAX_COST = 4
#: Ctrl-C; resumable.
EXIT_INTERRUPTED = 130


class UserError(Exception):
    """A mistake in input or configuration. The CLI prints it as one line and exits non-zero."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, lines: list[str] | None = None) -> None:
        super().__init__(message)
        self.lines = lines or [message]


class ScenarioError(UserError):
    """A scenario file failed to load or validate; `lines` holds one line per problem."""


class ConfigError(UserError):
    """A run configuration that cannot work (unknown model, missing key, judge equals target)."""
