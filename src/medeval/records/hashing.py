"""Canonical JSON, content hashes and derived seeds: the basis of reproducibility and audit."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any


def canonical_json(value: Any) -> str:
    """One byte-exact serialisation per value, so equal content always hashes equally."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def derive_seed(base_seed: int, *parts: object) -> int:
    """A stable 31-bit seed for one role instance, independent of run order and Python's hash salt."""
    digest = hashlib.sha256(canonical_json([base_seed, *map(str, parts)]).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def short_hash(value: Any, length: int = 16) -> str:
    return sha256_text(canonical_json(value))[:length]
