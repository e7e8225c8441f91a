"""Agents: the specification's roles (questioner, extractor, verifiers, adjudicator, scorer) and the
offline `rules` coder. Imports calls (the gateway), adapters' request types, schemas, records, errors."""
