"""Calls: the one way a role reaches a model: the gateway with its cache, pacing limits, cost meter,
retries, failures and batching. Imports adapters, records, schemas and errors; never agents or the engine."""
