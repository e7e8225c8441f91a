"""`medeval plan --study FILE`: the differences a study can detect, the human codes it needs and
its cost, before it spends (study/plan.py; docs/statistics.md, "Planning a study")."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from medeval.reporting.render.terminal import stdout_console

out = stdout_console()


def plan_command(
    study: Annotated[Path, typer.Option(help="The study file (TOML) to plan; see docs/studies.md")],
    repeat_icc: Annotated[
        float,
        typer.Option(
            min=0, max=1, help="Correlation of two answers to one question group (epochs, variants)"
        ),
    ] = 0.5,
    group_icc: Annotated[
        float, typer.Option(min=0, max=1, help="Correlation of answers to two groups of one script")
    ] = 0.05,
) -> None:
    """Print trials, detectable differences at 80% power, human codes needed and the cost of a study."""
    from medeval.study.plan import plan_study

    for line in plan_study(study, repeat_icc=repeat_icc, group_icc=group_icc).lines():
        out.print(line, highlight=False, soft_wrap=True)
