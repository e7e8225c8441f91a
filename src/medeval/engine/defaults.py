"""Defaults the command line shows in its help: a module with no imports, so `--help` stays fast."""

DEFAULT_JUDGE = "rules"
