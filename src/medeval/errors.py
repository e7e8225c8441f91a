"""User-facing errors: one line that names the problem and the fix, never a traceback."""

from __future__ import annotations


class UserError(Exception):
    """A mistake in input or configuration. The CLI prints it as one line and exits non-zero."""

    exit_code = 2

    def __init__(self, message: str, *, lines: list[str] | None = None) -> None:
        super().__init__(message)
        self.lines = lines or [message]


class ScenarioError(UserError):
    """A scenario file failed to load or validate; `lines` holds one line per problem."""


class ConfigError(UserError):
    """A run configuration that cannot work (unknown model, missing key, judge equals target)."""
