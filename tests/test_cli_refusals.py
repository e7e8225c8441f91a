"""Bad input gets one line naming the problem and the fix, a non-zero exit and never a traceback:
price tables, output folders, runaway scenario files, directory walks, repeated or mistyped
options, and run directories that cannot be written."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from medeval.cli import main
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run
from medeval.scenarios.load import MAX_SCENARIO_TURNS
from tests.engine_support import SCENARIO_001


def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run the command line in-process; the exit code and the error lines it printed."""
    monkeypatch.setattr(sys, "argv", ["medeval", *args])
    with pytest.raises(SystemExit) as done:
        main()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    code = done.value.code
    return (code if isinstance(code, int) else 1), "\n".join(
        line for line in err.splitlines() if line.startswith("error:")
    )


def one_error(code: int, errors: str) -> str:
    assert code == 2, errors
    assert len(errors.splitlines()) == 1, errors
    return errors


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "no such file"),
        ("{not json", "line 1 column 2: not JSON"),
        ('{"as_of": "2026-01-01"}', "not a price table (currency: Field required"),
    ],
)
def test_a_bad_price_table_is_one_line_even_for_the_demo(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    content: str | None,
    problem: str,
) -> None:
    prices = tmp_path / "prices.json"
    if content is not None:
        prices.write_text(content, encoding="utf-8")
    monkeypatch.setenv("MEDEVAL_PRICES", str(prices))
    line = one_error(*cli(monkeypatch, capsys, "demo", "--out", str(tmp_path / "runs")))
    assert line.startswith(f"error: MEDEVAL_PRICES={prices}: {problem}")
    assert line.endswith("fix the file, or unset MEDEVAL_PRICES to use the bundled price table")
    assert not (tmp_path / "runs").exists()


def test_compare_and_rescore_out_on_a_file_are_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = RunConfig(scenarios=[SCENARIO_001], targets=["fake:accurate"], out=tmp_path / "runs")
    a, b = run(config).store.directory, run(config).store.directory
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")

    line = one_error(*cli(monkeypatch, capsys, "compare", str(a), str(b), "--out", str(blocker)))
    assert line.startswith(f"error: {blocker}: cannot write compare.md and compare.csv there (")
    assert line.endswith("pass --out with a writable folder")

    line = one_error(*cli(monkeypatch, capsys, "rescore", str(a), "-j", "rules", "--out", str(blocker)))
    assert line.startswith(f"error: cannot create a run directory in {blocker} (")
    assert line.endswith("pass --out with a writable folder")


def test_deeply_nested_json_is_one_line_for_validate_and_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    code, errors = cli(monkeypatch, capsys, "validate", str(deep))
    assert code == 2 and f"{deep}: nested too deeply to be a scenario" in errors
    line = one_error(*cli(monkeypatch, capsys, "run", "-s", str(deep), "-t", "fake:accurate"))
    assert (
        line == f"error: {deep}: nested too deeply to be a scenario; check the file is the scenario you meant"
    )


def test_a_scenario_over_the_turn_limit_is_refused_at_load(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = json.loads(SCENARIO_001.read_text(encoding="utf-8"))
    turn = data["scripted_turns"][0]
    data["scripted_turns"] = [{**turn, "turn_id": f"Q{i}"} for i in range(1, 501)]
    long = tmp_path / "long.json"
    long.write_text(json.dumps(data), encoding="utf-8")
    line = one_error(
        *cli(monkeypatch, capsys, "run", "-s", str(long), "-t", "fake:accurate", "--out", "runs")
    )
    assert line == (
        f"error: {long}: $.scripted_turns: 500 turns; a scenario may have at most {MAX_SCENARIO_TURNS} "
        "(MAX_SCENARIO_TURNS): split it into several scenarios"
    )
    assert not Path("runs").exists()


def test_a_directory_walk_skips_hidden_and_virtualenv_folders_and_other_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project = tmp_path / "project"
    venv_json = project / "env" / "lib" / "site" / "schema.json"
    venv_json.parent.mkdir(parents=True)
    (project / "env" / "pyvenv.cfg").write_text("home = /usr\n", encoding="utf-8")
    venv_json.write_text('{"type": "object"}', encoding="utf-8")
    (project / ".git").mkdir()
    (project / ".git" / "x.json").write_text("[]", encoding="utf-8")
    (project / "data").mkdir()
    (project / "data" / "prices.json").write_text('{"as_of": "2026"}', encoding="utf-8")
    (project / "scenarios").mkdir()
    (project / "scenarios" / "one.json").write_text(
        SCENARIO_001.read_text(encoding="utf-8"), encoding="utf-8"
    )
    monkeypatch.chdir(project)
    monkeypatch.setattr(sys, "argv", ["medeval", "validate", "."])
    main()  # exits 0 by returning
    captured = capsys.readouterr()
    assert "1 scenario file(s) valid" in captured.out
    assert "schema.json" not in captured.err and "prices.json" not in captured.err

    (project / "scenarios" / "one.json").unlink()
    line = one_error(*cli(monkeypatch, capsys, "validate", "."))
    assert line.startswith("error: .: no scenario files in this directory (hidden and virtualenv folders")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["-t", "fake:accurate", "-t", "fake:accurate"],
            "error: target 'fake:accurate' is given twice; pass each target once (use --epochs N to repeat "
            "its trials)",
        ),
        (
            ["-t", "fake:accurate", "--provider-concurrency", "opneai=2"],
            "error: --provider-concurrency 'opneai=2': unknown provider 'opneai' (did you mean 'openai'?); "
            "known providers: ",
        ),
        (["-t", "fake:accurate", "-j", "rule"], "error: model spec 'rule' is not of the form provider:model "
         "(did you mean 'rules'?)"),
        (["-t", "fake:accurate", "--tpm", "openai:gpt-5=lots"],
         "error: --tpm 'openai:gpt-5=lots' is not PROVIDER:MODEL=N with N >= 1; "
         "example: openai:gpt-5=200000"),
        (["-t", "fake:accurate", "--model-concurrency", "opneai:gpt-5=4"],
         "error: --model-concurrency 'opneai:gpt-5=4': unknown provider 'opneai' in 'opneai:gpt-5' "
         "(did you mean 'openai'?)"),
    ],
)  # fmt: skip
def test_repeated_or_mistyped_options_are_refused_with_a_suggestion(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    args: list[str],
    expected: str,
) -> None:
    line = one_error(*cli(monkeypatch, capsys, "run", "-s", str(SCENARIO_001), *args, "--out", "runs"))
    assert line.startswith(expected)
    assert not Path("runs").exists()


def _read_only_run(tmp_path: Path) -> Path:
    config = RunConfig(scenarios=[SCENARIO_001], targets=["fake:accurate"], out=tmp_path / "runs", max_cost=0)
    return run(config).store.directory


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only folders")
def test_resume_on_a_read_only_run_directory_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    run_dir = _read_only_run(tmp_path)
    run_dir.chmod(0o555)
    try:
        line = one_error(*cli(monkeypatch, capsys, "run", "--resume", str(run_dir)))
    finally:
        run_dir.chmod(0o755)
    assert line.startswith(f"error: cannot resume {run_dir}: ")


def test_resume_refuses_a_run_directory_this_process_cannot_write(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # As root (CI containers) permissions do not bind, so the check is exercised through os.access.
    run_dir = _read_only_run(tmp_path)
    real_access = os.access

    def access(path: str, mode: int) -> bool:
        # Only the write check: typer checks --resume is readable with os.access too.
        return False if mode == os.W_OK and Path(path) == run_dir else real_access(path, mode)

    monkeypatch.setattr(os, "access", access)
    line = one_error(*cli(monkeypatch, capsys, "run", "--resume", str(run_dir)))
    assert line == (
        f"error: cannot resume {run_dir}: {run_dir.name} is read-only; make the run directory "
        "writable (chmod -R u+w) and retry"
    )
