"""The five system prompts, loaded from package files so their sha256 can be recorded per run."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from medeval.hashing import sha256_text

ROLES = ("questioner", "extractor", "verifier", "scorer", "adjudicator")


@cache
def load_prompt(role: str) -> str:
    if role not in ROLES:
        raise KeyError(f"no prompt for role {role!r}")
    return files(__package__).joinpath(f"{role}.md").read_text(encoding="utf-8")


def prompt_hashes() -> dict[str, str]:
    return {role: sha256_text(load_prompt(role)) for role in ROLES}
