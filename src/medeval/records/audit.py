"""`medeval verify RUN_DIR`: check that a run directory is what the run wrote.

- Both hash chains (results.jsonl, calls.jsonl): every record's own hash over its canonical JSON, and
  its `prev_hash` against the record before it. The first broken record is named by file and line.
- Truncation and deletion: checkpoint.json holds each chain's record count and head hash, rewritten
  after every trial and at the end, so a deleted last record (which leaves a valid, shorter chain)
  still shows.
- The manifest's hash (recorded in the checkpoint), and its prompt and scenario hashes against the
  prompt files of the installed package and the scenario files.

A torn final line (a kill mid-write) is a warning, not a failure: the writer continues on a fresh
line after it and the chain skips it. A chain without a signature detects accidents and naive edits,
not a forger who rewrites every later hash and the checkpoint too; publishing the head hashes that
`medeval run` prints closes that gap.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from medeval.prompts import prompt_hashes
from medeval.records.hashing import sha256_file
from medeval.records.storage import (
    CALLS,
    CHECKPOINT,
    GENESIS,
    MANIFEST,
    RESULTS,
    REVIEWS,
    REVIEWS_CHECKPOINT,
    SUMMARY,
    parse_line,
    record_hash,
)


class Finding(BaseModel):
    severity: Literal["error", "warning", "ok"]
    file: str
    line: int | None = None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{self.severity}: {where}: {self.message}"


class ChainState:
    """How many valid records a chain holds, and each one's hash (as 32 raw bytes, so a chain of
    100,000 records costs 3 MB here rather than the whole file)."""

    def __init__(self) -> None:
        self.records = 0
        self._digests = bytearray()

    def add(self, digest: str) -> None:
        self._digests += bytes.fromhex(digest)
        self.records += 1

    def hash_at(self, count: int) -> str:
        """The hash of record `count` (1-based); GENESIS for 0."""
        return self._digests[32 * (count - 1) : 32 * count].hex() if count else GENESIS


def check_chain(path: Path, findings: list[Finding]) -> ChainState:
    """Walk one JSONL chain; report the first broken record (later ones follow from it)."""
    state = ChainState()
    if not path.exists():
        # A run stopped before its first record has an empty chain, which is a valid chain; a
        # deleted file with records behind it shows against the checkpoint's count.
        return state
    expected = GENESIS
    # Read line by line: a study's results.jsonl runs to gigabytes. A torn line is reported once
    # the next line is read, so the last one can be told apart ("final line").
    torn: int | None = None
    with path.open("rb") as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            if torn is not None:
                findings.append(_torn(path, torn, final=False))
                torn = None
            digest = _stored_digest(text, expected)
            if digest is not None:
                expected = digest
                state.add(digest)
                continue
            try:
                record: Any = parse_line(text)
            except ValueError:  # not JSON, or cut inside a multi-byte character
                if not text.startswith(b'{"'):
                    # Every record starts so, and so does any cut-off start of one: this line
                    # was never a record.
                    findings.append(
                        _broken(path, number, "not a record (a line that no write of the run produced)")
                    )
                    return state
                torn = number
                continue
            if not isinstance(record, dict) or "hash" not in record or "prev_hash" not in record:
                findings.append(_broken(path, number, "not a chained record"))
                return state
            if record_hash(record) != record["hash"]:
                message = f"record {state.records + 1} was changed: its content does not match its hash"
                findings.append(_broken(path, number, message))
                return state
            if record["prev_hash"] != expected:
                message = (
                    f"chain broken at record {state.records + 1}: prev_hash does not match the record "
                    "before it (a record was deleted, inserted or reordered)"
                )
                findings.append(_broken(path, number, message))
                return state
            expected = record["hash"]
            state.add(expected)
    if torn is not None:
        findings.append(_torn(path, torn, final=True))
    return state


_TAIL_START = b',"hash":"'
_TAIL_LENGTH = len(_TAIL_START) + 64 + 2  # ,"hash":"<64 hex digits>"}
_HEX = frozenset(b"0123456789abcdef")


def _stored_digest(line: bytes, expected: str) -> str | None:
    """The record's hash when the line is exactly as the writer stores it (its canonical body with
    the hash added last) and the body hashes to it and names `expected` as the record before; else
    None, and the line is parsed and checked in full (which names what is wrong). Hashing the bytes
    skips a JSON parse and re-serialisation per record: a 10,000-trial run verifies in about a
    second instead of ten."""
    end = len(line)
    while end and line[end - 1] in b"\r\n":
        end -= 1
    start = end - _TAIL_LENGTH
    if start < 1 or line[start : start + len(_TAIL_START)] != _TAIL_START or line[end - 2 : end] != b'"}':
        return None
    digest_bytes = line[end - 66 : end - 2]
    if not _HEX.issuperset(digest_bytes):
        return None
    body = memoryview(line)[:start]
    hasher = hashlib.sha256(body)
    hasher.update(b"}")
    digest = digest_bytes.decode("ascii")
    if hasher.hexdigest() != digest:
        return None
    if line.find(b'"prev_hash":"' + expected.encode("ascii") + b'"', 0, start) < 0:
        return None
    return digest


def _broken(path: Path, number: int, message: str) -> Finding:
    """The error at the line where a chain stops being checkable."""
    return Finding(severity="error", file=path.name, line=number, message=message)


def _torn(path: Path, number: int, *, final: bool) -> Finding:
    where = "final line" if final else "line"
    return Finding(
        severity="warning",
        file=path.name,
        line=number,
        message=f"torn {where} (a write cut off by a kill); skipped",
    )


def check_heads(
    name: str,
    state: ChainState,
    recorded: dict[str, Any] | None,
    findings: list[Finding],
    source: str = CHECKPOINT,
) -> None:
    """The chain must reach at least as far as `source` (the checkpoint, or summary.json) says it
    did, through the same head."""
    if not recorded:
        findings.append(Finding(severity="error", file=source, message=f"no head recorded for {name}"))
        return
    who = "the checkpoint" if source == CHECKPOINT else source
    try:
        count, head = int(recorded.get("records", 0)), str(recorded.get("head", ""))
    except (TypeError, ValueError, AttributeError):
        findings.append(Finding(severity="error", file=source, message=f"malformed head for {name}"))
        return
    if state.records < count:
        findings.append(
            Finding(
                severity="error",
                file=name,
                message=(
                    f"truncated: {who} records {count} records, the file holds {state.records} "
                    f"valid ones ({count - state.records} deleted or cut off)"
                ),
            )
        )
    elif state.hash_at(count) != head:
        findings.append(
            Finding(
                severity="error",
                file=name,
                line=None,
                message=f"record {count} is not the head {who} recorded (records replaced)",
            )
        )


def check_inputs(run_dir: Path, manifest: dict[str, Any], findings: list[Finding]) -> None:
    """The manifest's prompt and scenario hashes against the files."""
    installed = prompt_hashes()
    prompts = manifest.get("prompts")
    if not isinstance(prompts, dict):
        findings.append(Finding(severity="error", file=MANIFEST, message="no prompt hashes recorded"))
        prompts = {}
    for role, recorded in sorted(prompts.items()):
        if installed.get(role) != recorded:
            findings.append(
                Finding(
                    severity="error",
                    file=MANIFEST,
                    message=f"prompt {role!r} differs from the installed package's prompts/{role}_system.txt",
                )
            )
    workdir = Path(manifest.get("working_directory") or ".")
    for entry in manifest.get("scenarios", []):
        if not isinstance(entry, dict) or not {"path", "sha256", "scenario_id"} <= entry.keys():
            findings.append(
                Finding(severity="error", file=MANIFEST, message=f"malformed scenario entry {entry!r}")
            )
            continue
        path = Path(entry["path"])
        path = path if path.is_absolute() else workdir / path
        if not path.is_file():
            findings.append(
                Finding(severity="error", file=MANIFEST, message=f"scenario file {path} not found")
            )
        elif sha256_file(path) != entry["sha256"]:
            findings.append(
                Finding(
                    severity="error",
                    file=str(path),
                    message=f"scenario {entry['scenario_id']} changed since the run (sha256 differs)",
                )
            )


def check_source_run(manifest: dict[str, Any], findings: list[Finding]) -> None:
    """A rescored run names the source run's results head: that source must still hold it."""
    source = manifest.get("source_run")
    if not source:
        return
    results = Path(source["path"]) / RESULTS
    if not results.is_file():
        findings.append(
            Finding(
                severity="warning",
                file=MANIFEST,
                message=f"source run {results.parent} not found; not checked",
            )
        )
        return
    scratch: list[Finding] = []
    state = check_chain(results, scratch)
    count, head = int(source["results"]["records"]), str(source["results"]["head"])
    if state.records < count or state.hash_at(count) != head:
        findings.append(
            Finding(
                severity="error",
                file=str(results),
                message=f"the source run no longer holds the {count} trial records this run rescored",
            )
        )


def check_reviews(run_dir: Path, findings: list[Finding]) -> ChainState:
    """People's codes (reviews.jsonl): the same chain checks, against the review chain's own head."""
    path, head_path = run_dir / REVIEWS, run_dir / REVIEWS_CHECKPOINT
    if not path.exists() and not head_path.exists():
        return ChainState()
    before = len(findings)
    state = check_chain(path, findings)
    if any(f.severity == "error" for f in findings[before:]):
        return state
    if not head_path.is_file():
        if state.records:
            findings.append(
                Finding(
                    severity="error",
                    file=REVIEWS_CHECKPOINT,
                    message="missing: a deleted last review import cannot be ruled out",
                )
            )
        return state
    recorded = _read_object(head_path)
    if isinstance(recorded, Finding):
        findings.append(recorded)
        return state
    check_heads(REVIEWS, state, recorded.get("reviews"), findings)
    return state


def check_summary(run_dir: Path, states: dict[str, ChainState], findings: list[Finding]) -> None:
    """summary.json's recorded heads (each chain at the run's end, and the review chain at its
    last import) must be reached by the files: a deleted reviews.jsonl with its head file shows."""
    path = run_dir / SUMMARY
    if not path.is_file():
        return
    summary = _read_object(path)
    if isinstance(summary, Finding):
        findings.append(summary)
        return
    chains = summary.get("chains")
    if not isinstance(chains, dict):
        return
    for name, key in ((RESULTS, "results"), (CALLS, "calls"), (REVIEWS, "reviews")):
        broken = any(f.severity == "error" and f.file == name for f in findings)
        if key in chains and not broken:
            check_heads(name, states[name], chains[key], findings, source=SUMMARY)


def _read_object(path: Path) -> dict[str, Any] | Finding:
    """A JSON object from a run file, or the finding that says why it is not one."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        return Finding(severity="error", file=path.name, message=f"unreadable: {error}")
    except json.JSONDecodeError as error:
        return Finding(
            severity="error", file=path.name, message=f"not JSON: {error.msg} (line {error.lineno})"
        )
    if not isinstance(value, dict):
        return Finding(severity="error", file=path.name, message="not a JSON object")
    return value


def verify_run(run_dir: Path) -> list[Finding]:
    findings: list[Finding] = []
    manifest_path = run_dir / MANIFEST
    if not manifest_path.is_file():
        return [Finding(severity="error", file=MANIFEST, message=f"not found in {run_dir}")]
    manifest = _read_object(manifest_path)
    if isinstance(manifest, Finding):
        return [manifest]
    # The checkpoint first, then the chains: a live run appends records before it moves the
    # checkpoint, so chains read later can only be longer than it says, never shorter.
    checkpoint_path = run_dir / CHECKPOINT
    checkpoint: dict[str, Any] | Finding | None = (
        _read_object(checkpoint_path) if checkpoint_path.is_file() else None
    )
    states = {name: check_chain(run_dir / name, findings) for name in (RESULTS, CALLS)}
    if checkpoint is None:
        if any(state.records for state in states.values()):
            findings.append(
                Finding(severity="error", file=CHECKPOINT, message="missing: truncation cannot be ruled out")
            )
        else:
            findings.append(
                Finding(
                    severity="warning",
                    file=CHECKPOINT,
                    message="missing, and no record written yet (the run stopped before it began)",
                )
            )
    else:
        if isinstance(checkpoint, Finding):
            findings.append(checkpoint)
            checkpoint = {}
        if checkpoint.get("manifest_sha256") != sha256_file(manifest_path):
            findings.append(Finding(severity="error", file=MANIFEST, message="changed since the run started"))
        if not any(f.severity == "error" and f.file == RESULTS for f in findings):
            check_heads(RESULTS, states[RESULTS], checkpoint.get("results"), findings)
        if not any(f.severity == "error" and f.file == CALLS for f in findings):
            check_heads(CALLS, states[CALLS], checkpoint.get("calls"), findings)
    check_inputs(run_dir, manifest, findings)
    check_source_run(manifest, findings)
    states[REVIEWS] = check_reviews(run_dir, findings)
    check_summary(run_dir, states, findings)
    reviews = states[REVIEWS].records
    if not any(f.severity == "error" for f in findings):
        imports = f", {reviews} review import(s)" if reviews else ""
        findings.append(
            Finding(
                severity="ok",
                file=str(run_dir),
                message=(
                    f"{states[RESULTS].records} trial records{imports} and {states[CALLS].records} call "
                    "records chain intact; manifest, prompts and scenarios match"
                ),
            )
        )
    return findings
