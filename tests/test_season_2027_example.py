"""The specification's example scenario (scenario_001) in the 2027 season: its pending figures, its
diff against the 2026 key, and every bundled fake profile answering it as the demo runs it."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import run
from medeval.scenarios.lint import lint_paths
from medeval.scenarios.load import expand_paths, load_scenario, season_dir
from medeval.schemas import ShipCategory

from .conftest import REPO, medeval

PROFILES = REPO / "src" / "medeval" / "data" / "fake_profiles"
EXAMPLE = season_dir("2027") / "scenario_001.json"
DEMO = {
    "fake:accurate": ShipCategory.ACCURATE_COMPLETE,
    "fake:incomplete": ShipCategory.SUBSTANTIVE_INCOMPLETE,
    "fake:outdated": ShipCategory.INCORRECT,
    "fake:invented": ShipCategory.INCORRECT,
    "fake:refusal": ShipCategory.NOT_SUBSTANTIVE,
}


def test_the_2027_example_asks_about_2027_with_its_unpublished_figures_pending() -> None:
    scenario = load_scenario(EXAMPLE)
    assert scenario.asked_year == 2027
    assert scenario.version != load_scenario(season_dir() / EXAMPLE.name).version
    facts = {f.fact_id: f for f in scenario.canonical_facts}
    for fact_id, due in (("F3", date(2026, 11, 15)), ("F4", date(2026, 4, 30))):
        quantity = facts[fact_id].patterns.quantities[0]  # type: ignore[union-attr]
        by_year = {d.year: d for d in quantity.by_year}
        assert by_year[2027].pending is not None and by_year[2027].pending.expected == due
        assert by_year[2027].values == [] and by_year[2026].values  # 2026's figure kept, labelled 2026
    # No 2027 figure is keyed: neither the medium-confidence $9,850 nor the unverified $14,750.
    text = EXAMPLE.read_text(encoding="utf-8")
    assert "9,?850" not in text and "14,?750" not in text and '"9850"' not in text
    findings = lint_paths([EXAMPLE], today=date(2026, 11, 26))
    assert findings and all("was due by" in f.message or "pending" in f.message for f in findings)


def test_keys_diff_between_the_two_seasons_of_the_example(tmp_path: Path) -> None:
    done = medeval("keys", "diff", "scenario_001@2026", "scenario_001@2027", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "scenario_001@2026 -> scenario_001@2027:"
    premium = next(line for line in lines if line.startswith("- F3:"))
    assert "pending (2026-11-15)" in premium and "scenario_001" in premium
    assert any(line.startswith("- F4:") and "pending (2026-04-30)" in line for line in lines)
    assert "disallowed claim added: NETWORK_SEP_2027" in done.stdout


def test_every_bundled_fake_profile_answers_every_2027_turn() -> None:
    for profile in sorted(PROFILES.glob("*.json")):
        data = json.loads(profile.read_text(encoding="utf-8"))
        own = (
            data
            if "responses_from" not in data
            else json.loads((PROFILES / f"{data['responses_from']}.json").read_text(encoding="utf-8"))
        )
        for path in expand_paths([season_dir("2027")]):
            scenario = load_scenario(path)
            answers = own["responses"].get(scenario.scenario_id, {})
            wanted = [t.turn_id for t in scenario.scripted_turns]
            wanted += ["opening"] if scenario.opening_statement else []
            missing = [turn for turn in wanted if not answers.get(turn)]
            assert not missing, f"{profile.stem} {scenario.scenario_id}: {missing}"


def test_the_demo_profiles_land_in_their_categories_on_the_2027_example(tmp_path: Path) -> None:
    result = run(RunConfig(scenarios=[EXAMPLE], targets=list(DEMO), out=tmp_path))
    got = {r.target.spec: r.groups[0].ship_category for r in result.records}
    assert got == DEMO
    # The accurate answer's "$202.90 a month in 2026" is right about 2026, not a stale 2027 figure.
    accurate = next(r for r in result.records if r.target.spec == "fake:accurate")
    assert not [c for c in accurate.final_claims if c.label.value == "CONTRADICTED"]
