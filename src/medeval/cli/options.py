"""Options several commands take with the same meaning, declared once so their names, defaults and
help read the same everywhere (typer copies an option's declaration for each command using it)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from medeval.engine.defaults import DEFAULT_JUDGE

JudgeSpecs = Annotated[
    list[str] | None,
    typer.Option("--judge", "-j", help=f"Judge spec, repeatable (default {DEFAULT_JUDGE})"),
]
JudgeCount = Annotated[int, typer.Option("--judges", min=2, help="Independent verifiers per turn")]
Extractor = Annotated[str | None, typer.Option(help="Extractor spec (default: first judge)")]
Adjudicator = Annotated[str | None, typer.Option(help="Model that breaks verifier ties")]
RunsOut = Annotated[Path, typer.Option("--out", help="Parent directory of run directories")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress display")]
