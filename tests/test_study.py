"""Study files: the shipped SHIP example runs offline with two system-prompt variants and two epochs;
`medeval validate --study` names every problem on its own line; the manifest records the file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from medeval.errors import UserError
from medeval.records.hashing import sha256_file
from medeval.study import load_study, study_problems
from medeval.study.load import model_problem

from .conftest import REPO, SCENARIOS, medeval, only_run

EXAMPLE = REPO / "src" / "medeval" / "data" / "studies" / "ship_replication.toml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(text, encoding="utf-8")
    return path


MINIMAL = f"""
name = "mini"
tags = ["t1"]
epochs = 2
[scenarios]
paths = ["{SCENARIOS / "scenario_001.json"}"]
[[targets]]
spec = "fake:accurate"
max_output_tokens = 300
[[targets]]
spec = "fake:incomplete"
concurrency = 3
[[variants]]
name = "plain"
system_prompt_text = ""
[[variants]]
name = "told_location"
persona_detail = "location"
"""


def test_the_shipped_example_is_valid() -> None:
    study, problems = study_problems(EXAMPLE)
    assert problems == []
    assert study is not None and study.epochs == 2 and len(study.variants) == 2


def test_a_study_becomes_the_same_config_as_the_command_line(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL)
    config = load_study(path)
    assert config.targets == ["fake:accurate", "fake:incomplete"]
    assert config.epochs == 2
    assert config.settings_for("fake:accurate").max_output_tokens == 300
    assert config.settings_for("fake:incomplete").max_output_tokens == 1024
    assert config.provider_concurrency == {"fake": 3}
    assert [v.name for v in config.variants] == ["plain", "told_location"]
    assert config.study is not None and config.study.name == "mini" and config.study.tags == ["t1"]
    assert config.study.sha256 == sha256_file(path)


def test_validate_names_each_problem_on_its_own_line(tmp_path: Path) -> None:
    bad = MINIMAL.replace('spec = "fake:accurate"', 'spec = "fake:acurate"\ncolour = "red"')
    bad += '\n[judging]\njudges = ["fake:incomplete"]\n'
    path = write(tmp_path, bad)
    done = medeval("validate", "--study", str(path), cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "targets[0].colour: unknown key" in lines[0]
    path = write(tmp_path, bad.replace('colour = "red"\n', ""))
    done = medeval("validate", "--study", str(path), cwd=tmp_path)
    lines = done.stderr.strip().splitlines()
    assert any("targets[0].spec: unknown fake model 'acurate'" in line for line in lines), lines
    path = write(tmp_path, MINIMAL + '\n[judging]\njudges = ["fake:incomplete"]\n')
    done = medeval("validate", "--study", str(path), cwd=tmp_path)
    assert done.returncode == 2
    assert "same model as target 'fake:incomplete'" in done.stderr
    done = medeval("validate", "--study", str(EXAMPLE), cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_missing_files_and_unknown_scenario_ids_are_reported(tmp_path: Path) -> None:
    text = MINIMAL.replace('system_prompt_text = ""', 'system_prompt = "absent.txt"')
    text = text.replace("[scenarios]", '[scenarios]\nids = ["no_such_scenario"]')
    _, problems = study_problems(write(tmp_path, text))
    assert any("variants[0].system_prompt: absent.txt is not a file" in p for p in problems), problems
    text = MINIMAL.replace("[scenarios]", '[scenarios]\nids = ["no_such_scenario"]')
    _, problems = study_problems(write(tmp_path, text))
    assert any("no scenario 'no_such_scenario'" in p for p in problems), problems
    with pytest.raises(UserError):
        load_study(write(tmp_path, "name = 'x'\n[[targets]]\nspec = 'fake:accurate'\n"))


def test_model_problem_knows_providers_profiles_and_retired_models() -> None:
    assert model_problem("fake:asks_zip") is None
    assert model_problem("rules") is None
    assert model_problem("openai:gpt-5") is None
    assert "unknown provider" in (model_problem("nosuch:model") or "")


def test_the_example_study_runs_offline_with_variants_and_epochs(tmp_path: Path) -> None:
    study = tmp_path / "study"
    shutil.copytree(EXAMPLE.parent, study)
    done = medeval("run", "--study", str(study / "ship_replication.toml"), "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run_dir = only_run(tmp_path / "runs")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["study"]["name"] == "ship-replication"
    assert manifest["study"]["sha256"] == sha256_file(study / "ship_replication.toml")
    assert manifest["variants"] == ["no_system_prompt", "assistant_prompt"]
    trials = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    # 2 scripts x 4 targets x 2 variants x 2 epochs
    assert len(trials) == 32
    assert {t["variant"] for t in trials} == {"no_system_prompt", "assistant_prompt"}
    assert {t["epoch"] for t in trials} == {1, 2}
    assert len({t["trial_key"] for t in trials}) == 32
    done = medeval("report", str(run_dir), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    markdown = (run_dir / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Prompt sensitivity" in markdown
    assert "| all targets | no_system_prompt | assistant_prompt |" in markdown


def test_pacing_per_model_comes_from_the_study_file_and_its_specs_are_checked(tmp_path: Path) -> None:
    text = MINIMAL + '\n[tpm]\n"fake:accurate" = 5000\n[model_concurrency]\n"fake:incomplete" = 2\n'
    config = load_study(write(tmp_path, text))
    assert config.tpm == {"fake:accurate": 5000}
    assert config.model_concurrency == {"fake:incomplete": 2}
    _, problems = study_problems(write(tmp_path, MINIMAL + '\n[tpm]\n"fake:acurate" = 5000\n'))
    assert any("tpm.'fake:acurate': unknown fake model 'acurate'" in p for p in problems), problems
    _, problems = study_problems(write(tmp_path, MINIMAL + '\n[tpm]\n"fake:accurate" = 0\n'))
    assert any("tpm.fake:accurate" in p for p in problems), problems


def test_command_line_options_override_the_study_and_the_manifest_records_it(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL)
    args = ["run", "--study", str(path), "--seed", "7", "--epochs", "1", "--out", "elsewhere", "--quiet"]
    done = medeval(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "--epochs 1 overrides the study file's 2" in done.stderr
    assert not (tmp_path / "runs").exists()
    run_dir = only_run(tmp_path / "elsewhere")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["config"]["seed"] == 7 and manifest["config"]["epochs"] == 1
    assert manifest["study"]["overrides"] == {"seed": 7, "epochs": 1, "out": "elsewhere"}
    trials = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    assert {t["epoch"] for t in trials} == {1}


def test_options_the_study_file_decides_are_refused_in_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, MINIMAL)
    done = medeval("run", "--study", str(path), "--temperature", "0.5", "--judges", "3", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()[-1:]
    assert line.startswith("error: --judges, --temperature: the study file") or line.startswith(
        "error: --temperature, --judges: the study file"
    )
    assert "sets them; edit the study file" in line
    assert not (tmp_path / "runs").exists()


def test_run_study_in_python_takes_a_string_out_and_records_the_override(tmp_path: Path) -> None:
    from medeval import api

    result = api.run_study(write(tmp_path, MINIMAL), out=str(tmp_path / "py_runs"), epochs=1)
    run_dir = result.store.directory
    assert run_dir.parent == tmp_path / "py_runs"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["study"]["overrides"] == {"out": str(tmp_path / "py_runs"), "epochs": 1}
    with pytest.raises(UserError, match="study override epochs"):
        api.run_study(write(tmp_path, MINIMAL), epochs="many")


def test_validate_study_warns_about_models_that_retire_within_30_days(tmp_path: Path) -> None:
    from datetime import date

    from medeval.study import read_study
    from medeval.study.lifecycle import retiring_soon

    text = MINIMAL.replace('spec = "fake:incomplete"', 'spec = "openai:gpt-5"')
    study, problems = read_study(write(tmp_path, text))
    assert study is not None, problems
    (line,) = retiring_soon(study, today=date(2026, 11, 26))
    assert line.startswith("openai:gpt-5 retires on 2026-12-11, in 15 days: a run after that date is refused")
    assert "plan the study on openai:gpt-6.1-sol" in line
    assert retiring_soon(study, today=date(2026, 10, 1)) == []  # 71 days: no warning yet


def test_the_readme_and_example_study_name_no_retired_or_retiring_model() -> None:
    import re
    from datetime import date, timedelta

    from medeval.adapters.catalog import find_model

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    batch = readme.split("### Batch judging")[1].split("```sh")[1].split("```")[0]
    specs = re.findall(
        r"(?:openai|anthropic|google|xai):[\w.\-]+", batch + EXAMPLE.read_text(encoding="utf-8")
    )
    assert "openai:gpt-5.1" in specs
    soon = date.today() + timedelta(days=30)
    for spec in specs:
        provider, model = spec.split(":", 1)
        entry = find_model(provider, model)
        assert entry is None or entry.retires_on is None or entry.retires_on > soon, spec
