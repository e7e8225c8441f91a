"""The `medeval` command line: `app` is the typer application, `main` its entry point.
The top layer: may import every other."""

from medeval.cli.app import app, main

__all__ = ["app", "main"]
