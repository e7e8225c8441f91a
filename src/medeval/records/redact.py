"""Secrets never leave the process: every writer of a run file and every printed message passes its
text through `redact`.

A secret is the value of any key-like environment variable (`*_API_KEY`, `*_KEY`, `*_TOKEN`,
`*_SECRET`, `*_PASSWORD`, which covers every provider's key variable) and the password in the
userinfo of an endpoint or proxy variable. Providers and proxies do echo keys back ("Incorrect API
key provided: sk-...") and a base URL may carry `user:password@`: `redact` replaces every known
secret value and drops the userinfo of any URL in the text; `redact_url` also drops a URL's query
string and fragment (where tokens travel), for the URLs medeval records itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

REDACTED = "<redacted>"
#: Environment variables whose values are secrets.
SECRET_NAME = re.compile(r"(API_KEY|_KEY|_TOKEN|_SECRET|_PASSWORD)$", re.IGNORECASE)
#: Environment variables that hold a URL, whose userinfo password is a secret too.
URL_NAME = re.compile(r"(_BASE_URL|_HOST|_PROXY|_ENDPOINT)$", re.IGNORECASE)
#: Shorter values are not treated as secrets: redacting "test" would garble ordinary text.
MIN_SECRET_LENGTH = 8
#: `scheme://userinfo@`: the userinfo goes, whatever it holds.
USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.\-]*://)[^/\\\s\"'<>@]+@")


#: The process environment's secrets, with the raw environment they were read from: every record a
#: run writes is redacted, and scanning the environment each time cost more than writing the record.
_scanned: tuple[object, list[str]] | None = None


def secret_values(environ: dict[str, str] | None = None) -> list[str]:
    """Every secret value in the environment, longest first (so a key containing another goes whole)."""
    global _scanned
    if environ is None:
        # A C-level copy of the raw environment, compared item by item: any change (a key set,
        # changed or removed) scans again, so the cache can never hide a secret.
        raw = tuple(getattr(os.environ, "_data", os.environ).items())
        if _scanned is None or _scanned[0] != raw:
            _scanned = (raw, _scan(os.environ))
        return list(_scanned[1])
    return _scan(environ)


def _scan(env: Mapping[str, str]) -> list[str]:
    found: set[str] = set()
    for name, value in env.items():
        value = value.strip()
        if SECRET_NAME.search(name) and len(value) >= MIN_SECRET_LENGTH:
            found.add(value)
        elif URL_NAME.search(name) and "@" in value:
            password = urlsplit(value if "://" in value else f"//{value}").password
            if password and len(password) >= MIN_SECRET_LENGTH:
                found.add(password)
    return sorted(found, key=len, reverse=True)


def redact(text: str, secrets: list[str] | None = None) -> str:
    """`text` with every secret value replaced and every URL's userinfo removed."""
    if "@" in text and "://" in text:
        text = USERINFO.sub(r"\g<scheme>", text)
    for secret in secret_values() if secrets is None else secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact_url(url: str) -> str:
    """A URL fit to record: no userinfo, no query string, no fragment."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return redact(url)
    if not parts.scheme or not parts.netloc:
        return redact(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{port}" if port else host
    return redact(urlunsplit((parts.scheme, netloc, parts.path, "", "")))


def redact_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """A model's recorded settings with every URL-valued field made fit to record."""
    return {
        key: redact_url(value) if isinstance(value, str) and "://" in value else value
        for key, value in settings.items()
    }
