"""`medeval validate`: check scenario files (or a study file), and upgrade old flat-format files."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from medeval.errors import UserError
from medeval.reporting.render.terminal import error_line, stdout_console

out = stdout_console()


def validate_command(
    paths: Annotated[list[Path] | None, typer.Argument(help="Scenario files or directories")] = None,
    upgrade: Annotated[
        bool,
        typer.Option(
            "--upgrade",
            help="Rewrite old flat-format files in the specification's shape, as NAME.upgraded.json "
            "beside each (or in place with --in-place)",
        ),
    ] = False,
    in_place: Annotated[
        bool, typer.Option("--in-place", help="With --upgrade: rewrite each file, keeping NAME.json.bak")
    ] = False,
    study: Annotated[
        Path | None, typer.Option(help="Check a study file instead: keys, models, files, roles")
    ] = None,
) -> None:
    """Check scenario files (or a study file): one line per problem, non-zero exit on any error."""
    from medeval.scenarios.lint import lint_paths
    from medeval.scenarios.load import bundled_scenarios_dir, expand_paths
    from medeval.study import study_problems

    if study is not None:
        from medeval.study.lifecycle import retiring_soon

        study_file, problems = study_problems(study)
        for problem in problems:
            error_line(problem)
        if problems or study_file is None:
            raise typer.Exit(2)
        for line in retiring_soon(study_file):
            print(f"warning: {study}: {line}", file=sys.stderr, flush=True)
        out.print(f"{study}: study file valid")
        from medeval.study.plan import plan_study

        # What the valid study can show, as `medeval plan` prints it.
        for line in plan_study(study).lines():
            out.print(line, highlight=False, soft_wrap=True)
        return
    files = expand_paths(paths or [bundled_scenarios_dir()])
    if not files:
        raise UserError("no scenario files found; pass a file or a directory of *.json scenarios")
    if in_place and not upgrade:
        raise UserError("--in-place goes with --upgrade")
    if upgrade:
        files = [_upgrade_file(path, in_place=in_place) for path in files]
    findings = lint_paths(files)
    for finding in findings:
        print(finding.line(), file=sys.stderr, flush=True)
    errors = sum(finding.level == "error" for finding in findings)
    warnings = len(findings) - errors
    registry = _registry_problems()
    for problem in registry:
        error_line(problem)
    if errors or registry:
        raise typer.Exit(2)
    out.print(f"{len(files)} scenario file(s) valid, {warnings} warning(s); contacts registry valid")


def _registry_problems() -> list[str]:
    """The shipped contacts registry checked too: a source and a date on every entry, valid numbers,
    public suffixes (data/contacts_registry.json)."""
    import json

    from medeval.agents.contacts.registry import registry_problems, registry_text

    return registry_problems(json.loads(registry_text()))


def _upgrade_file(path: Path, *, in_place: bool) -> Path:
    """Write the canonical form of an old-format file and say where; a canonical file is left alone."""
    from medeval.scenarios.load import upgrade_scenario_file

    written = upgrade_scenario_file(path, in_place=in_place)
    if written is None:
        out.print(f"{path}: already in the specification's shape; left as it is")
        return path
    target, backup = written
    note = f" (the original is kept as {backup})" if backup else ""
    out.print(f"{path}: upgraded to the specification's shape -> {target}{note}")
    return target
