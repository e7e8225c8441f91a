"""The content-addressed response cache: a run never pays twice for the same call.

A response is stored under the sha256 of everything that decides it: the provider and model, the
adapter's non-secret settings (base URL, API version), the full request (system prompt, so its hash,
the whole message list, the sampling settings and seed sent, the output schema, routing metadata)
and the trial's epoch. Only successful responses are stored; errors never are. Storage is one
sqlite file in the cache directory (WAL mode, so two runs can share it).

Nothing secret goes in: the key is a hash, and the value is the response (text, usage, served
model), never a request header.
"""

from __future__ import annotations

import os
import sqlite3
import warnings
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from medeval.adapters.base import ChatRequest, ChatResponse
from medeval.errors import ConfigError
from medeval.records.hashing import canonical_json, sha256_text
from medeval.records.redact import redact
from medeval.records.storage import utc_now

CACHE_ENV = "MEDEVAL_CACHE_DIR"
CACHE_FILE = "responses.sqlite3"
#: Providers whose responses are not cached: the offline fake is free, local and deterministic.
UNCACHED_PROVIDERS = frozenset({"fake"})


class CacheWarning(UserWarning):
    """An unreadable cache entry or database: the call goes to the provider instead."""


class CacheMode(StrEnum):
    USE = "use"  # read hits, store misses
    REFRESH = "refresh"  # never read, store (overwrite) every success
    OFF = "off"  # neither read nor store


def default_cache_dir() -> Path:
    """$MEDEVAL_CACHE_DIR, else $XDG_CACHE_HOME/medeval, else ~/.cache/medeval."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "medeval"


def cache_key(
    spec: str,
    settings: dict[str, Any],
    request: ChatRequest,
    epoch: int | None,
    *,
    request_json: dict[str, Any] | None = None,
) -> str:
    """`request_json`: `request.model_dump(mode="json")`, when the caller has it already."""
    body = {
        "spec": spec,
        "settings": settings,
        "prompt_sha256": sha256_text(request.system),
        "request": request_json if request_json is not None else request.model_dump(mode="json"),
        "epoch": epoch,
    }
    return sha256_text(canonical_json(body))


class ResponseCache:
    def __init__(self, directory: Path, mode: CacheMode = CacheMode.USE) -> None:
        self.directory = directory
        self.mode = mode
        self._db: sqlite3.Connection | None = None
        self._warned_entry = False

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.directory / CACHE_FILE, timeout=30, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                "key TEXT PRIMARY KEY, spec TEXT NOT NULL, created_at TEXT NOT NULL, response TEXT NOT NULL)"
            )
        return self._db

    def open_or_explain(self) -> None:
        """Open the database now, so an unusable cache directory stops the run before any call."""
        try:
            self._connect()
        except (sqlite3.Error, OSError) as error:
            raise ConfigError(
                f"cannot open the response cache in {self.directory} ({error}); "
                f"pass --cache-dir DIR, set {CACHE_ENV}, or run with --no-cache"
            ) from None

    def applies_to(self, provider: str) -> bool:
        return self.mode is not CacheMode.OFF and provider not in UNCACHED_PROVIDERS

    def get(self, key: str) -> ChatResponse | None:
        """The stored response, or None. An entry that cannot be read is a miss, never a failed
        call: it is dropped, so the provider's fresh answer replaces it."""
        if self.mode is not CacheMode.USE:
            return None
        try:
            db = self._connect()
            row = db.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as error:
            self._give_up(error)
            return None
        if not row:
            return None
        try:
            return ChatResponse.model_validate_json(row[0])
        except (ValidationError, ValueError, TypeError):
            if not self._warned_entry:
                self._warned_entry = True
                warnings.warn(
                    f"the response cache in {self.directory} holds an unreadable entry; dropped it "
                    "and called the provider (reported once per run)",
                    CacheWarning,
                    stacklevel=2,
                )
            try:
                db.execute("DELETE FROM responses WHERE key = ?", (key,))
            except sqlite3.Error as error:
                self._give_up(error)
            return None

    def put(self, key: str, spec: str, response: ChatResponse) -> None:
        if self.mode is CacheMode.OFF:
            return
        try:
            self._connect().execute(
                "INSERT OR REPLACE INTO responses (key, spec, created_at, response) VALUES (?, ?, ?, ?)",
                # A response that echoes a key (a proxy's "success" page) never puts it on disk.
                (key, spec, utc_now(), redact(response.model_dump_json())),
            )
        except sqlite3.Error as error:
            self._give_up(error)

    def _give_up(self, error: sqlite3.Error) -> None:
        """A damaged database: the rest of the run calls the providers and leaves the file alone."""
        warnings.warn(
            f"the response cache {self.directory / CACHE_FILE} is damaged ({error}); calling the "
            "providers without it for the rest of this run; delete that file to start a fresh cache",
            CacheWarning,
            stacklevel=3,
        )
        self.mode = CacheMode.OFF
        self.close()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
