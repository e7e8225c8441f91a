"""What a provider's prompt cache would report, for the loopback servers: how many input tokens of
a request were read from cache (a prefix an earlier request sent too) and, for Anthropic's explicit
caching, how many were written to it. Implicit caching (OpenAI, Gemini, xAI) matches the longest
earlier prefix in blocks; explicit caching (Anthropic) reads and writes only up to the breakpoints
the request marks. No minimum length and no expiry: a fake for tests, not a model of any price."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from medeval.adapters.base import Message

#: Characters per cache block (real providers cache in blocks of 128 tokens or so).
BLOCK = 64
#: Between the parts of a prompt (system, each message), so "ab" + "c" is not "a" + "bc".
SEPARATOR = "\x1e"


def tokens(text: str) -> int:
    """The loopback servers' token count (loopback.tokens without its floor of one)."""
    return len(text) // 4


def prompt_parts(system: str, messages: Sequence[Message]) -> list[str]:
    """A request's text in the order a provider reads it: system prompt, then each message."""
    return [system, *(f"{m.role}:{m.content}" for m in messages)]


@dataclass
class PromptCache:
    _seen: set[bytes] = field(default_factory=set)

    @staticmethod
    def _digests(text: str, ends: Sequence[int]) -> list[bytes]:
        running = hashlib.sha256()
        out: list[bytes] = []
        start = 0
        for end in ends:
            running.update(text[start:end].encode())
            out.append(running.copy().digest()[:12])
            start = end
        return out

    def implicit(self, parts: Sequence[str]) -> int:
        """Tokens of the longest block-aligned prefix of `parts` seen in an earlier request; every
        prefix of this one is remembered."""
        text = SEPARATOR.join(parts)
        ends = list(range(BLOCK, len(text) + 1, BLOCK))
        digests = self._digests(text, ends)
        hit = 0
        for end, digest in zip(ends, digests, strict=True):
            if digest not in self._seen:
                break
            hit = end
        self._seen.update(digests)
        return tokens(text[:hit])

    def explicit(self, parts: Sequence[tuple[str, bool]]) -> tuple[int, int, int]:
        """(read, written, total) tokens for `parts` (text, breakpoint after it?): the longest
        prefix ending at a breakpoint that was written before is read, and what lies between it and
        the last breakpoint is written; text after the last breakpoint is neither."""
        texts = [text for text, _ in parts]
        ends, end = [], -len(SEPARATOR)
        for text, marked in parts:
            end += len(SEPARATOR) + len(text)
            if marked:
                ends.append(end)
        joined = SEPARATOR.join(texts)
        digests = self._digests(joined, ends)
        read = 0
        for stop, digest in zip(ends, digests, strict=True):
            if digest in self._seen:
                read = stop
        written = (ends[-1] if ends else 0) - read
        self._seen.update(digests)
        read_tokens = tokens(joined[:read])
        written_tokens = tokens(joined[: read + written]) - read_tokens
        return read_tokens, written_tokens, tokens(joined)
