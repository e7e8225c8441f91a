"""Scenarios: loading the scenario files and their answer keys, and linting them (`medeval validate`).
Imports schemas, records and errors; the linter also asks the rules coder (agents) how it reads a pattern."""
