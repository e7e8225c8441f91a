"""The system prompts under the specification's names (`prompts/<role>_system.txt`; the repository's
prompts/ links here): the five roles, and the questioner's reply mode (`questioner_reply`, a file of
its own so the paraphrase prompt, and the hashes older runs recorded for it, stay unchanged); loaded
from package files so their sha256 is recorded per run."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from medeval.records.hashing import sha256_text

ROLES = ("questioner", "extractor", "verifier", "scorer", "adjudicator", "questioner_reply")


@cache
def load_prompt(role: str) -> str:
    if role not in ROLES:
        raise KeyError(f"no prompt for role {role!r}")
    return files(__package__).joinpath(f"{role}_system.txt").read_text(encoding="utf-8")


def prompt_hashes() -> dict[str, str]:
    return {role: sha256_text(load_prompt(role)) for role in ROLES}
