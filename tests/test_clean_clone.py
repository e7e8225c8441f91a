"""The documented commands leave a clone clean: what `calibrate` and `export` write by default goes
under `runs/`, which git ignores, or where --out says (issue 27)."""

from __future__ import annotations

from pathlib import Path

from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run

from .conftest import REPO, medeval
from .engine_support import SCENARIO_001


def test_calibrate_and_export_write_under_runs_by_default(tmp_path: Path) -> None:
    run(RunConfig(scenarios=[SCENARIO_001], targets=["fake:accurate"], out=tmp_path / "runs"))
    done = medeval("calibrate", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = medeval("export", "runs", "--format", "csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]
    (calibration,) = (tmp_path / "runs" / "calibration").iterdir()
    assert (calibration / "validity.md").is_file()
    assert (tmp_path / "runs" / "export" / "trials.csv").is_file()
    # Neither folder is taken for a run by the readers that look in runs/.
    done = medeval("query", "select count(*) AS n from trials", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "runs/" in (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
