"""API keys and endpoints from the environment (which `medeval` fills from `.env` at start-up).
A key is read only to hand it to an SDK: never logged, recorded or put in an error message."""

from __future__ import annotations

import os

from medeval.errors import ConfigError


def find_key(variables: tuple[str, ...]) -> str | None:
    """The first non-empty variable among `variables`, in order."""
    for name in variables:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def require_key(spec: str, variables: tuple[str, ...]) -> str:
    key = find_key(variables)
    if key is None:
        names = " or ".join(variables)
        raise ConfigError(f"{spec} needs an API key: set {names} in the environment or in a .env file")
    return key


def key_status(variables: tuple[str, ...]) -> str:
    """Which variable supplies the key ('set (NAME)') or 'missing'; never the value."""
    for name in variables:
        if os.environ.get(name, "").strip():
            return f"set ({name})"
    return "missing"


def endpoint(variable: str) -> str | None:
    value = os.environ.get(variable, "").strip()
    return value or None
