"""`python -m medeval` and the `medeval` command (pyproject's entry point).

`medeval version` is answered here, before the command modules, typer and rich load; everything
else goes to the typer application in medeval.cli."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["version"]:
        from medeval import __version__

        print(__version__)
        return
    from medeval.cli import main as run

    run()


if __name__ == "__main__":
    main()
