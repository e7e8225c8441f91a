"""Reading a file a user names (a scenario, a study file and the prompt files it names, a codes file,
a reference set, a price table): only a regular file, at most a stated size, as UTF-8 text.

A device (/dev/zero), a pipe or a directory is refused before a byte is read, and a file over its
limit is refused with the limit in the line, so no input can make medeval read without end or hold
more than the limit in memory. Each refusal is one UserError line naming the file and the fix.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from medeval.errors import UserError

KB = 1024
MB = 1024 * KB

#: Limits per kind of file, each far above any real one (the bundled scenarios are under 200 kB).
SCENARIO_MAX_BYTES = 4 * MB
STUDY_MAX_BYTES = 1 * MB
PROMPT_MAX_BYTES = 256 * KB
CODES_MAX_BYTES = 16 * MB
REFERENCE_MAX_BYTES = 64 * MB
PRICES_MAX_BYTES = 1 * MB
TRANSCRIPT_MAX_BYTES = 64 * MB


def _size(n: int) -> str:
    return f"{n / MB:,.1f} MB" if n >= MB else f"{n / KB:,.0f} kB"


def read_user_bytes(path: Path, *, limit: int, what: str, fix: str | None = None) -> bytes:
    """The file's bytes, or a UserError: not there, not a regular file, unreadable, over `limit`.
    `fix` replaces the line's advice when the caller knows better (an environment variable)."""

    def refuse(problem: str, advice: str) -> UserError:
        return UserError(f"{path}: {problem}; {fix or advice}")

    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then says what it is.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        raise refuse("no such file", f"pass the {what} file") from None
    except IsADirectoryError:
        raise refuse(f"is a directory, not a {what} file", "pass the file itself") from None
    except OSError as error:
        raise refuse(f"cannot open it ({error.strerror or error})", f"pass a readable {what} file") from None
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        # Linux opens a directory read-only without complaint; fdopen would then raise.
        os.close(fd)
        raise refuse(f"is a directory, not a {what} file", "pass the file itself")
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(info.st_mode):
            raise refuse("not a regular file (a device, pipe or socket)", f"pass a {what} file saved on disk")
        too_big = f"over the {_size(limit)} limit for a {what} file"
        if info.st_size > limit:
            raise refuse(f"{_size(info.st_size)} is {too_big}", "check it is the file you meant")
        try:
            data = handle.read(limit + 1)
        except OSError as error:
            raise refuse(
                f"cannot read it ({error.strerror or error})", f"pass a readable {what} file"
            ) from None
    if len(data) > limit:  # it grew while being read
        raise refuse(too_big, "check it is the file you meant")
    return data


def read_user_text(
    path: Path, *, limit: int, what: str, encoding: str = "utf-8", fix: str | None = None
) -> str:
    """The file as UTF-8 text (`utf-8-sig` drops a spreadsheet's byte-order mark)."""
    data = read_user_bytes(path, limit=limit, what=what, fix=fix)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text; {fix or f'save the {what} file as UTF-8'}") from None
