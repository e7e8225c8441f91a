"""`medeval --help` and `medeval version` start fast: the command line loads no heavy library until a
command that uses it runs (issue 27). Checked from sys.modules in a fresh interpreter, not by timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from medeval.cli.data import TABLE_NAMES
from medeval.export import TABLES

HEAVY = ("scipy", "statsmodels", "duckdb", "matplotlib", "numpy", "pandas", "jinja2", "httpx")

PROBE = """
import contextlib, io, json, sys
import medeval.cli
from medeval.cli import app
with contextlib.redirect_stdout(io.StringIO()):
    try:
        app(args={args!r}, standalone_mode=False)
    except SystemExit:
        pass
heavy = {heavy!r}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy or m in heavy)))
"""


def loaded_after(args: list[str]) -> list[str]:
    code = PROBE.format(args=args, heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "args", [["--help"], ["version"], ["run", "--help"], ["query", "--help"], ["calibrate", "--help"]]
)
def test_help_and_version_load_no_heavy_library(args: list[str]) -> None:
    assert loaded_after(args) == []


def test_the_probe_sees_a_heavy_library_when_a_command_loads_one(tmp_path: Path) -> None:
    # The same probe on a command that needs statsmodels: the check above can fail.
    loaded = loaded_after(["calibrate", "--out", str(tmp_path / "cal")])
    assert "statsmodels" in {m.split(".")[0] for m in loaded}


def test_query_help_names_the_tables_export_makes() -> None:
    assert TABLE_NAMES == TABLES


#: What `--help` must not load either: the models (pydantic), the engine, the schemas. A command
#: module that imports them at the top makes every start slow (issue 27: 2-2.5 s).
NOT_FOR_HELP = (*HEAVY, "pydantic", "medeval.engine.config", "medeval.engine.orchestrator", "medeval.schemas")


def test_help_loads_neither_pydantic_nor_the_engine() -> None:
    code = PROBE.format(args=["--help"], heavy=NOT_FOR_HELP)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_ingest_help_names_the_schemas_channels() -> None:
    from medeval.cli.ingest import CHANNEL_NAMES
    from medeval.schemas import CHANNELS

    assert CHANNEL_NAMES == CHANNELS


def test_version_is_answered_before_typer_loads() -> None:
    code = (
        "import sys; sys.argv = ['medeval', 'version']\n"
        "from medeval.__main__ import main; main()\n"
        "print(sorted(m for m in ('typer', 'rich', 'pydantic', 'medeval.cli.app') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    from medeval import __version__

    assert done.stdout.splitlines() == [__version__, "[]"]
