"""Every reader checks a run before it reads it: `medeval verify`'s checks, once per state of the run.

A full verification walks every chain, which costs as much as reading the run. Its outcome is kept
in the run's cache folder (RUN/.cache/verified.json) under a key made of the run's chain heads as
its checkpoints record them and of each run file's size and modification time: while none of them
changes, a reader only compares the key (a few `stat` calls); any write, append or edit to the run
changes the key and the run is verified again in full.

A damaged run gets one warning line, the same from every reader (export, query, the API, compare,
review export): `damaged run RUN: failed medeval verify: FIRST PROBLEM (+N more)`. Readers refuse it
(non-zero exit, or DamagedRunError from the API) unless told `--allow-damaged`, and then read it
with that line printed as a warning.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path

from medeval.errors import UserError
from medeval.records.hashing import sha256_text
from medeval.records.redact import redact
from medeval.records.storage import (
    CALLS,
    CHECKPOINT,
    MANIFEST,
    RESULTS,
    REVIEWS,
    REVIEWS_CHECKPOINT,
    SUMMARY,
    write_json,
)

CACHE_DIR = ".cache"
VERIFIED = "verified.json"
#: The files whose state the key covers: everything `verify` reads inside the run.
WATCHED = (MANIFEST, CHECKPOINT, SUMMARY, RESULTS, CALLS, REVIEWS, REVIEWS_CHECKPOINT)
ALLOW_HINT = "pass --allow-damaged to read it anyway, or run medeval verify for every problem"


class DamagedRunError(UserError):
    """A run failed its integrity checks and the reader was not told to go on."""


def run_key(run_dir: Path) -> str:
    """What the run's state is, cheaply: each watched file's size and mtime, and the checkpoints'
    recorded chain heads."""
    parts = []
    for name in WATCHED:
        path = run_dir / name
        try:
            stat = path.stat()
        except OSError:
            parts.append(f"{name}:-")
            continue
        parts.append(f"{name}:{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ino}")
        if name in (CHECKPOINT, REVIEWS_CHECKPOINT):
            parts.append(_heads(path))
    return sha256_text("\n".join(parts))


def _heads(path: Path) -> str:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "unreadable"
    if not isinstance(value, dict):
        return "not an object"
    return json.dumps({k: v for k, v in value.items() if k != "updated_at"}, sort_keys=True)


def run_problems(run_dir: Path) -> list[str]:
    """`medeval verify`'s errors for one run (none for an intact run), from the cache when the run
    has not changed since its last verification."""
    key = run_key(run_dir)
    cache = run_dir / CACHE_DIR / VERIFIED
    try:
        stored = json.loads(cache.read_text(encoding="utf-8"))
        if isinstance(stored, dict) and stored.get("key") == key and isinstance(stored.get("problems"), list):
            return [str(p) for p in stored["problems"]]
    except (OSError, ValueError):
        pass
    # The walk (and the pydantic model its findings use) loads only when the run changed.
    from medeval.records.audit import verify_run

    problems = [str(f) for f in verify_run(run_dir) if f.severity == "error"]
    try:
        cache.parent.mkdir(exist_ok=True)
        write_json(cache, {"key": key, "problems": problems})
    except Exception:
        pass
    return problems


def damaged_line(run_dir: Path, problems: list[str]) -> str:
    more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
    return redact(f"damaged run {run_dir}: failed medeval verify: {problems[0]}{more}")


def check_runs(run_dirs: Iterable[Path], *, allow_damaged: bool) -> list[str]:
    """Verify each run before reading it. A damaged one raises DamagedRunError (its line, and the
    way on), unless `allow_damaged`: then each damaged run's line is printed as a warning on
    stderr and returned."""
    run_dirs = list(run_dirs)
    for run_dir in run_dirs:
        if not (run_dir / MANIFEST).is_file():
            raise UserError(f"{run_dir}: not a run directory (no {MANIFEST}); pass one made by medeval run")
    lines = [damaged_line(d, p) for d in run_dirs if (p := run_problems(d))]
    if lines and not allow_damaged:
        raise DamagedRunError(f"{lines[0]}; {ALLOW_HINT}", lines=[f"{line}; {ALLOW_HINT}" for line in lines])
    for line in lines:
        print(f"warning: {line}; read anyway (--allow-damaged)", file=sys.stderr, flush=True)
    return lines
