"""The run directory: manifest.json, results.jsonl and calls.jsonl.

The two JSONL files are append-only. Each line is written whole and flushed, and carries the hash of
the previous record and its own hash over canonical JSON, so any edit, deletion or truncation is
detectable (`medeval verify`). A final line torn by a kill is skipped by readers with a warning, and
the writer continues on a fresh line: nothing already written is ever rewritten.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import secrets
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from medeval.errors import UserError
from medeval.records.hashing import canonical_json, sha256_file, sha256_text
from medeval.records.redact import redact

MANIFEST = "manifest.json"
RESULTS = "results.jsonl"
CALLS = "calls.jsonl"
#: Chain heads (record count and last hash of each JSONL file), rewritten after every trial, so
#: `medeval verify` can tell a deleted or truncated last record from a clean end.
CHECKPOINT = "checkpoint.json"
#: End-of-run totals (trials, calls, cost); the manifest itself is written once and never rewritten.
SUMMARY = "summary.json"
GENESIS = "0" * 64
#: People's codes (`medeval review import`): append-only and chained like results.jsonl, with its own
#: head file, since checkpoint.json is rewritten by the run and would drop a head it does not know.
REVIEWS = "reviews.jsonl"
REVIEWS_CHECKPOINT = "reviews.checkpoint.json"
#: Held (flock, exclusive) by whichever process writes to the run; it holds that process's pid.
LOCK = "run.lock"


class TornLineWarning(UserWarning):
    """A JSONL line that does not parse: usually the last line of a run killed mid-write."""


class RunLocked(UserError):
    """Another process holds the run directory's lock."""


class StorageError(Exception):
    """A write to the run directory failed (disk full, file too large, permissions)."""

    def __init__(self, path: Path, error: OSError) -> None:
        reason = error.strerror or errno.errorcode.get(error.errno or 0) or str(error)
        super().__init__(f"cannot write {path} ({reason})")
        self.path = path
        self.reason = reason


@contextmanager
def run_lock(directory: Path, action: str = "write to") -> Iterator[None]:
    """Hold the run directory's exclusive lock for the whole of a command that appends to it (run,
    --resume, rescore, review import), so two processes never interleave their chains. The lock
    goes with the process: a killed holder leaves nothing to clean up."""
    path = directory / LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise UserError(
            f"cannot {action} {directory}: cannot create its lock file ({error.strerror or error}); "
            "make the run directory writable (or copy it somewhere writable) and retry"
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise RunLocked(
                f"cannot {action} {directory}: process {holder} is writing to it; wait for that "
                "process to finish (or stop it), then retry"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def check_writable(directory: Path, action: str) -> None:
    """Refuse early, before any call, a run directory this process cannot write to."""
    paths = [directory, *(directory / n for n in (RESULTS, CALLS, CHECKPOINT) if (directory / n).exists())]
    for path in paths:
        if not os.access(path, os.W_OK):
            raise UserError(
                f"cannot {action} {directory}: {path.name} is read-only; make the run directory "
                "writable (chmod -R u+w) and retry"
            )


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_run_id() -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{secrets.token_hex(3)}"


def record_hash(record: dict[str, Any]) -> str:
    """Hash over the canonical JSON of the record without its own `hash` field."""
    body = {k: v for k, v in record.items() if k != "hash"}
    return sha256_text(canonical_json(body))


def without_chain(record: dict[str, Any]) -> dict[str, Any]:
    """A stored record as it was before chaining (without `prev_hash` and `hash`)."""
    return {k: v for k, v in record.items() if k not in ("hash", "prev_hash")}


class ChainedJsonl:
    """An append-only JSONL file whose records form a hash chain."""

    def __init__(self, path: Path, *, fsync: bool = False) -> None:
        self.path = path
        # write(2) alone survives a killed process; fsync per line also survives a power cut, at a cost.
        self._fsync = fsync
        self._last_hash = GENESIS
        self._count = 0
        self._needs_newline = False
        if path.exists():
            for record in read_jsonl(path, warn=False):
                self._last_hash = str(record.get("hash", self._last_hash))
                self._count += 1
            data = path.read_bytes()
            self._needs_newline = bool(data) and not data.endswith(b"\n")

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        chained = {**record, "prev_hash": self._last_hash}
        body = canonical_json(chained)
        clean = redact(body)
        if clean != body:
            # A provider echoed a key into a message: the record is stored (and hashed) without it.
            chained = json.loads(clean)
            body = canonical_json(chained)
        chained["hash"] = sha256_text(body)
        # The stored line is the canonical body with its hash added last: one serialisation, and
        # record_hash() (which drops `hash` and re-canonicalises) gives the same digest on read.
        line = f'{body[:-1]},"hash":"{chained["hash"]}"}}'
        # Leave a torn line as it is and start afresh on the next line.
        data = ("\n" if self._needs_newline else "") + line + "\n"
        # One write(2) of the whole line on an O_APPEND descriptor: a kill cannot land between two
        # halves of a record, as it can between the chunks of a buffered text file.
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                view = memoryview(data.encode("utf-8"))
                while view:
                    view = view[os.write(fd, view) :]
                if self._fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as error:
            # Part of the line may be on disk: it is a torn line, and the next append (if any)
            # starts afresh after it.
            self._needs_newline = True
            raise StorageError(self.path, error) from None
        self._needs_newline = False
        self._last_hash = chained["hash"]
        self._count += 1
        return chained

    def sync(self) -> None:
        """fsync what has been appended, so it survives a power cut too."""
        if self.path.exists():
            fd = os.open(self.path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def head(self) -> dict[str, Any]:
        """How many records the chain holds and the hash of the last one."""
        return {"records": self._count, "head": self._last_hash}


def parse_line(raw: bytes) -> Any:
    """One JSONL line as JSON, or raise ValueError. A line cut inside a multi-byte UTF-8 character
    does not decode: it is as torn as one cut between two ASCII characters."""
    return json.loads(raw.decode("utf-8"))


def read_jsonl(path: Path, *, warn: bool = True) -> Iterator[dict[str, Any]]:
    """Every parseable record; a torn or garbled line is skipped (with a warning)."""
    if not path.exists():
        return
    with path.open("rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                value = parse_line(line)
            except ValueError:  # JSONDecodeError and UnicodeDecodeError both
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
        # Every line reaches the kernel at once (a killed process loses nothing); fsync, for a power
        # cut, happens at each checkpoint, so the checkpoint never claims more than is on disk.
        self.results = ChainedJsonl(directory / RESULTS)
        self.calls = ChainedJsonl(directory / CALLS)
        self._last_checkpoint = 0.0
        # The manifest's hash is taken once, when it is written; a resumed run carries the recorded
        # one forward, so an edit made between sessions still shows as a mismatch in `verify`.
        checkpoint = self.read_json(CHECKPOINT)
        manifest = directory / MANIFEST
        self._manifest_sha256: str | None = (
            str(checkpoint["manifest_sha256"])
            if checkpoint and checkpoint.get("manifest_sha256")
            else (sha256_file(manifest) if manifest.is_file() else None)
        )

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
        if (self.directory / MANIFEST).exists():
            raise FileExistsError(f"{self.directory / MANIFEST} exists; a manifest is never rewritten")
        self._write_json(MANIFEST, manifest)
        self._manifest_sha256 = sha256_file(self.directory / MANIFEST)

    def write_checkpoint(self, *, min_interval: float = 0.0) -> None:
        """Record both chains' heads and the manifest's hash. With `min_interval`, skip the write
        if the last one is more recent (a run checkpoints after every trial, at most once a second,
        and always at the end)."""
        now = time.monotonic()
        if min_interval and now - self._last_checkpoint < min_interval:
            return
        self._last_checkpoint = now
        for chain in (self.results, self.calls):
            try:
                chain.sync()
            except OSError as error:
                raise StorageError(chain.path, error) from None
        self._write_json(
            CHECKPOINT,
            {
                "updated_at": utc_now(),
                "manifest_sha256": self._manifest_sha256,
                "results": self.results.head(),
                "calls": self.calls.head(),
            },
        )

    def write_summary(self, summary: dict[str, Any]) -> None:
        # The review chain's head, recorded at each import, outlives a resumed session's summary.
        try:
            earlier = (self.read_json(SUMMARY) or {}).get("chains") or {}
        except (OSError, ValueError):
            earlier = {}
        if isinstance(earlier, dict) and "reviews" in earlier:
            summary = {**summary, "chains": {**summary.get("chains", {}), "reviews": earlier["reviews"]}}
        self._write_json(SUMMARY, summary)

    def read_json(self, name: str) -> dict[str, Any] | None:
        path = self.directory / name
        if not path.is_file():
            return None
        value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return value

    def _write_json(self, name: str, value: dict[str, Any]) -> None:
        write_json(self.directory / name, value)

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


def write_json(path: Path, value: dict[str, Any]) -> None:
    # Write-then-rename, so a kill leaves the old file or the new one, never half of one.
    tmp = path.with_name(path.name + ".tmp")
    try:
        text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        tmp.write_text(redact(text), encoding="utf-8")
        tmp.replace(path)
    except OSError as error:
        tmp.unlink(missing_ok=True)  # a full disk leaves no half-written .tmp behind
        raise StorageError(path, error) from None


def record_reviews_head(directory: Path, head: dict[str, Any]) -> None:
    """Note the review chain's head in summary.json (made if the run wrote none), so `verify` sees
    a deleted reviews.jsonl and its head file together. The caller holds the run lock."""
    path = directory / SUMMARY
    try:
        summary = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        summary = {}
    summary = summary if isinstance(summary, dict) else {}
    recorded = summary.get("chains")
    chains: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    write_json(path, {"run_id": directory.name, **summary, "chains": {**chains, "reviews": head}})
