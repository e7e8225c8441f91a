"""Provider calls in worker processes (see pool.py)."""

from medeval.adapters.workers.pool import CallWorkers

__all__ = ["CallWorkers"]
