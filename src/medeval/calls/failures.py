"""Calls that failed for good, grouped so a person sees each distinct failure once.

A 401 or 403 means the provider refuses this key: every further call to that provider would fail
the same way, so none is sent. A 404 means the model name is wrong: further calls to that model are
not sent either. Both would otherwise be paid for in retries and hidden in calls.jsonl."""

from __future__ import annotations

from pydantic import BaseModel

from medeval.adapters.base import ProviderError

#: The provider refuses the credentials (HTTP, and gRPC's spelling of the same).
AUTH_STATUSES = frozenset({401, 403, "UNAUTHENTICATED", "PERMISSION_DENIED"})
#: The model does not exist at this provider.
MISSING_STATUSES = frozenset({404, "NOT_FOUND"})
#: Distinct failures printed at the end of a run; the rest are counted.
SHOWN_FAILURES = 10


class CallFailure(BaseModel):
    spec: str
    message: str
    calls: int = 0
    not_sent: int = 0
    first_trial: str

    def line(self) -> str:
        count = f"{self.calls} call{'s' if self.calls != 1 else ''} failed"
        if self.not_sent:
            count += f", {self.not_sent} more not sent"
        return f"{self.spec}: {self.reason()} ({count}; first in trial {self.first_trial})"

    def reason(self) -> str:
        """The message without its leading provider or spec (the line names the spec once)."""
        for name in (self.spec, self.spec.partition(":")[0]):
            if self.message.startswith(name):
                return self.message[len(name) :].lstrip(": ")
        return self.message


class FailureLog:
    def __init__(self) -> None:
        self.failures: dict[tuple[str, str], CallFailure] = {}
        #: provider or spec -> the failure that stopped calls to it.
        self._stopped: dict[str, tuple[str, str]] = {}

    def stopped(self, spec: str) -> CallFailure | None:
        """The failure that already stopped calls to this spec or its provider, if one did."""
        key = self._stopped.get(spec) or self._stopped.get(spec.partition(":")[0])
        return self.failures[key] if key else None

    def failed(self, spec: str, error: ProviderError, trial_id: str) -> None:
        key = (spec, str(error))
        entry = self.failures.setdefault(
            key, CallFailure(spec=spec, message=str(error), first_trial=trial_id)
        )
        entry.calls += 1
        if error.status in AUTH_STATUSES:
            self._stopped.setdefault(spec.partition(":")[0], key)
        elif error.status in MISSING_STATUSES:
            self._stopped.setdefault(spec, key)

    def lines(self) -> list[str]:
        ordered = sorted(self.failures.values(), key=lambda f: (-f.calls - f.not_sent, f.spec, f.message))
        shown = [f.line() for f in ordered[:SHOWN_FAILURES]]
        if len(ordered) > SHOWN_FAILURES:
            shown.append(
                f"... and {len(ordered) - SHOWN_FAILURES} other distinct call failures (see calls.jsonl)"
            )
        return shown
