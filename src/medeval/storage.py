"""The run directory: manifest.json, results.jsonl and calls.jsonl.

The two JSONL files are append-only. Each line is written whole and flushed, and carries the hash of
the previous record and its own hash over canonical JSON, so any edit, deletion or truncation is
detectable (`medeval verify`). A final line torn by a kill is skipped by readers with a warning, and
the writer continues on a fresh line: nothing already written is ever rewritten.
"""

from __future__ import annotations

import json
import os
import secrets
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from medeval.hashing import canonical_json, sha256_text

MANIFEST = "manifest.json"
RESULTS = "results.jsonl"
CALLS = "calls.jsonl"
GENESIS = "0" * 64


class TornLineWarning(UserWarning):
    """A JSONL line that does not parse: usually the last line of a run killed mid-write."""


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_run_id() -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{secrets.token_hex(3)}"


def record_hash(record: dict[str, Any]) -> str:
    """Hash over the canonical JSON of the record without its own `hash` field."""
    body = {k: v for k, v in record.items() if k != "hash"}
    return sha256_text(canonical_json(body))


class ChainedJsonl:
    """An append-only JSONL file whose records form a hash chain."""

    def __init__(self, path: Path, *, fsync: bool = False) -> None:
        self.path = path
        # flush() alone survives a killed process; fsync also survives a power cut, at a cost per line.
        self._fsync = fsync
        self._last_hash = GENESIS
        self._needs_newline = False
        if path.exists():
            for record in read_jsonl(path, warn=False):
                self._last_hash = str(record.get("hash", self._last_hash))
            data = path.read_bytes()
            self._needs_newline = bool(data) and not data.endswith(b"\n")

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        chained = {**record, "prev_hash": self._last_hash}
        chained["hash"] = record_hash(chained)
        line = canonical_json(chained)
        with self.path.open("a", encoding="utf-8") as handle:
            if self._needs_newline:
                # Leave a torn line as it is and start afresh on the next line.
                handle.write("\n")
                self._needs_newline = False
            handle.write(line + "\n")
            handle.flush()
            if self._fsync:
                os.fsync(handle.fileno())
        self._last_hash = chained["hash"]
        return chained


def read_jsonl(path: Path, *, warn: bool = True) -> Iterator[dict[str, Any]]:
    """Every parseable record; a torn or garbled line is skipped (with a warning)."""
    if not path.exists():
        return
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                if warn:
                    warnings.warn(
                        f"{path.name} line {number} is torn or not JSON; skipped",
                        TornLineWarning,
                        stacklevel=2,
                    )
                continue
            if isinstance(value, dict):
                yield value


class RunStore:
    """One run directory: `runs/<UTC timestamp>-<short id>/`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.results = ChainedJsonl(directory / RESULTS, fsync=True)
        self.calls = ChainedJsonl(directory / CALLS)

    @property
    def run_id(self) -> str:
        return self.directory.name

    @classmethod
    def create(cls, parent: Path, run_id: str | None = None) -> RunStore:
        directory = parent / (run_id or new_run_id())
        directory.mkdir(parents=True, exist_ok=False)
        return cls(directory)

    @classmethod
    def open(cls, directory: Path) -> RunStore:
        if not (directory / MANIFEST).is_file():
            raise FileNotFoundError(directory / MANIFEST)
        return cls(directory)

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        path = self.directory / MANIFEST
        tmp = path.with_suffix(".tmp")
        tmp.write_text(
            json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        tmp.replace(path)

    def read_manifest(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads((self.directory / MANIFEST).read_text(encoding="utf-8"))
        return value

    def append_trial(self, record: dict[str, Any]) -> dict[str, Any]:
        return self.results.append(record)

    def append_call(self, record: dict[str, Any]) -> dict[str, Any]:
        return self.calls.append(record)

    def trials(self) -> Iterator[dict[str, Any]]:
        return read_jsonl(self.directory / RESULTS)

    def call_records(self) -> Iterator[dict[str, Any]]:
        return read_jsonl(self.directory / CALLS)
