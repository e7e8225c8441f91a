"""Run progress: trials done of total, calls, cache hits, errors, cost so far and ETA.

A rich progress bar on a terminal; plain lines (at most one every few seconds, and a last one) when
stderr is not a terminal, so CI logs stay readable; nothing at all with --quiet.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Protocol, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Column

from medeval.schemas import TrialRecord


class RunProgress(Protocol):
    def start(self, total: int, done: int) -> None: ...
    def call(self, record: dict[str, Any]) -> None: ...
    def trial(self, record: TrialRecord) -> None: ...
    def stop(self) -> None: ...


class Tally:
    """The counters every progress display shows."""

    def __init__(self) -> None:
        self.total = 0
        self.done = 0
        self.calls = 0
        self.cache_hits = 0
        self.errors = 0
        self.unscored = 0
        self.cost = 0.0

    def count_call(self, record: dict[str, Any]) -> None:
        self.calls += 1
        self.cache_hits += record.get("cache") == "hit"
        self.errors += "error" in record
        self.cost += record.get("cost_usd") or 0.0

    def line(self) -> str:
        return (
            f"calls {self.calls}  cache hits {self.cache_hits}  errors {self.errors}  "
            f"unscored {self.unscored}  cost ${self.cost:.4f}"
        )

    def short(self) -> str:
        """The same counters for a narrow terminal (the bar's count and ETA come first)."""
        unscored = f", {self.unscored} unscored" if self.unscored else ""
        return f"{self.calls} calls, {self.cache_hits} cached, {self.errors} err{unscored}, ${self.cost:.4f}"


class QuietProgress:
    def start(self, total: int, done: int) -> None:
        pass

    def call(self, record: dict[str, Any]) -> None:
        pass

    def trial(self, record: TrialRecord) -> None:
        pass

    def stop(self) -> None:
        pass


class PlainProgress:
    def __init__(self, stream: TextIO | None = None, every: float = 5.0) -> None:
        self.tally = Tally()
        self._stream = stream or sys.stderr
        self._every = every
        self._last = 0.0
        self._began = 0.0
        self._done_before = 0

    def start(self, total: int, done: int) -> None:
        self.tally.total, self.tally.done, self._done_before = total, done, done
        self._began = time.monotonic()
        self._print(f"trials {done}/{total} (already done: {done})")

    def call(self, record: dict[str, Any]) -> None:
        self.tally.count_call(record)

    def trial(self, record: TrialRecord) -> None:
        self.tally.done += 1
        self.tally.unscored += record.status == "unscored"
        now = time.monotonic()
        if now - self._last >= self._every:
            self._last = now
            self._print(self._status(now))

    def stop(self) -> None:
        self._print(self._status(time.monotonic()))

    def _status(self, now: float) -> str:
        t = self.tally
        ran, elapsed = t.done - self._done_before, now - self._began
        eta = f"{(t.total - t.done) * elapsed / ran:.0f}s" if ran else "?"
        return f"trials {t.done}/{t.total}  {t.line()}  eta {eta}"

    def _print(self, text: str) -> None:
        print(text, file=self._stream, flush=True)


#: Below this many columns the bar is short and the counters compact, after the count and ETA.
WIDE = 120


class RichProgress:
    def __init__(self, console: Console) -> None:
        self.tally = Tally()
        # The trial count and the ETA come first, so a narrow terminal crops the counters, never them.
        self._narrow = console.width < WIDE
        self._bar = Progress(
            TextColumn("trials"),
            MofNCompleteColumn(table_column=Column(no_wrap=True, min_width=13)),
            BarColumn(bar_width=10 if self._narrow else 40),
            TextColumn("eta"),
            TimeRemainingColumn(table_column=Column(no_wrap=True, min_width=7)),
            # Only the counters give way (cut with "…") when the terminal is too narrow for them.
            TextColumn(
                "{task.fields[stats]}", table_column=Column(no_wrap=True, overflow="ellipsis", ratio=1)
            ),
            console=console,
            transient=False,
        )
        self._task = self._bar.add_task("run", total=0, stats="")

    def _stats(self) -> str:
        return self.tally.short() if self._narrow else self.tally.line()

    def start(self, total: int, done: int) -> None:
        self.tally.total, self.tally.done = total, done
        self._bar.update(self._task, total=total, completed=done, stats=self._stats())
        self._bar.start()

    def call(self, record: dict[str, Any]) -> None:
        self.tally.count_call(record)
        self._bar.update(self._task, stats=self._stats())

    def trial(self, record: TrialRecord) -> None:
        self.tally.done += 1
        self.tally.unscored += record.status == "unscored"
        self._bar.update(self._task, completed=self.tally.done, stats=self._stats())

    def stop(self) -> None:
        self._bar.stop()


def choose_progress(*, quiet: bool, stream: TextIO | None = None) -> RunProgress:
    """Rich on a terminal, plain lines otherwise, nothing with --quiet."""
    if quiet:
        return QuietProgress()
    stream = stream or sys.stderr
    if stream.isatty():
        return RichProgress(Console(file=stream))
    return PlainProgress(stream)
