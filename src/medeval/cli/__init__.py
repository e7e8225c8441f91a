"""The `medeval` command line: `app` is the typer application, `main` its entry point."""

from medeval.cli.app import app, main

__all__ = ["app", "main"]
