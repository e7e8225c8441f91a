"""The specification's entry point, `python -m src.orchestrator run ...`, kept working verbatim.

It reaches exactly the same code as the `medeval` console script."""

import sys
from pathlib import Path

try:
    from medeval.cli import main
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from medeval.cli import main

if __name__ == "__main__":
    main()
