"""The specification's entry point, `python -m src.orchestrator run ...`, kept working verbatim.

It reaches exactly the same code as the `medeval` console script. Run with an interpreter that
lacks medeval's dependencies (the system `python3` after `make demo`), it re-executes itself with
the project's .venv interpreter, or says in one line what to run."""

import os
import sys
from pathlib import Path

_HERE = Path(__file__).resolve()
_VENV_PYTHON = _HERE.parent.parent / ".venv" / "bin" / "python"
_REEXEC = "MEDEVAL_ORCHESTRATOR_REEXEC"


def _load_main():  # type: ignore[no-untyped-def]
    try:
        from medeval.cli import main
    except ImportError:
        sys.path.insert(0, str(_HERE.parent))  # a checkout without `pip install -e .`
        try:
            from medeval.cli import main
        except ImportError as error:
            _without_dependencies(error)
    return main


def _without_dependencies(error: ImportError) -> None:
    if _VENV_PYTHON.is_file() and not os.environ.get(_REEXEC):
        os.environ[_REEXEC] = "1"
        os.execv(str(_VENV_PYTHON), [str(_VENV_PYTHON), str(_HERE), *sys.argv[1:]])
    missing = error.name or "a dependency"
    sys.stderr.write(
        f"error: {sys.executable} cannot import medeval's dependencies ({missing} is missing); "
        "run `make demo` in the repository first (it creates .venv), then repeat the command\n"
    )
    sys.exit(2)


if __name__ == "__main__":
    _load_main()()
