"""The variation matrix: variants are a plan dimension with their own trial keys, and the report's
prompt-sensitivity section gives category rates per variant and paired differences."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from medeval.cli.settings import parse_variant, variants
from medeval.engine.config import RunConfig, SystemPrompt, Variant
from medeval.engine.orchestrator import plan_trials, run
from medeval.engine.trial import persona_disclosure
from medeval.engine.types import TrialPlan
from medeval.errors import ConfigError, UserError
from medeval.records.storage import read_jsonl
from medeval.reporting.build import build_report
from medeval.reporting.loading.run import Corpus
from medeval.reporting.tables.sensitivity import ALL_TARGETS, prompt_sensitivity

from .conftest import SCENARIOS

SCENARIO_001 = SCENARIOS / "scenario_001.json"
PLAIN = Variant(name="plain")
TOLD = Variant(name="told_location", persona_detail="location")


def zip_scenario(tmp_path: Path) -> Path:
    data = json.loads(SCENARIO_001.read_text())
    data["persona"].update({"city": "Columbus", "county": "Franklin", "zip": "43215"})
    path = tmp_path / "zip.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_trial_key_includes_its_variant_and_stays_as_before_without_one() -> None:
    config = RunConfig(scenarios=[SCENARIO_001], targets=["fake:accurate"], epochs=2, variants=[PLAIN, TOLD])
    from medeval.engine.orchestrator import load_scenarios

    plans = plan_trials(config, load_scenarios(config.scenarios))
    assert len(plans) == 4 and len({p.key(42) for p in plans}) == 4
    bare = plans[0]
    plain = TrialPlan(bare.scenario, bare.scenario_sha256, bare.target, bare.epoch)
    # The key a run made before variants existed: --resume of old runs still matches.
    from medeval.records.hashing import short_hash

    assert plain.key(42) == short_hash(["scenario_001", bare.scenario_sha256, "fake:accurate", 1, 42], 24)


def test_persona_detail_levels_tell_more_up_front() -> None:
    persona = {"city": "Columbus", "zip": "43215", "income": "$1,600 a month", "medications": ["Lipitor"]}
    assert persona_disclosure(persona, "script") is None
    told = persona_disclosure(persona, "location") or ""
    assert "43215" in told and "1,600" not in told
    full = persona_disclosure(persona, "full") or ""
    assert "1,600" in full and "Lipitor" in full


def test_variants_on_the_command_line() -> None:
    assert parse_variant("told:persona_detail=full,tone=worried") == Variant(
        name="told", persona_detail="full", tone="worried"
    )
    with pytest.raises(UserError, match="unknown key 'colour'"):
        parse_variant("x:colour=red")
    with pytest.raises(UserError, match="given twice"):
        variants(["a", "a"])


def test_a_rewording_variant_needs_a_questioner(tmp_path: Path) -> None:
    config = RunConfig(
        scenarios=[SCENARIO_001],
        targets=["fake:accurate"],
        out=tmp_path,
        variants=[Variant(name="w", tone="worried")],
    )
    with pytest.raises(ConfigError, match="pass --questioner"):
        run(config)


def test_tone_reaches_the_questioner_through_paraphrase(tmp_path: Path) -> None:
    config = RunConfig(
        scenarios=[SCENARIO_001],
        targets=["fake:accurate"],
        out=tmp_path,
        questioner="fake:judge",
        variants=[Variant(name="worried", tone="worried", reading_level="grade 6")],
    )
    result = run(config)
    calls = list(read_jsonl(result.store.directory / "calls.jsonl"))
    (paraphrase,) = [c for c in calls if c["role"] == "questioner"]
    content = paraphrase["request"]["messages"][0]["content"]
    assert "Tone: worried." in content and "Reading level: grade 6." in content
    (record,) = result.records
    assert record.variant == "worried"
    assert record.conversation[0].text.startswith("Quick question: ")


def test_report_has_a_prompt_sensitivity_section(tmp_path: Path) -> None:
    prompt = SystemPrompt.of("You are a helpful assistant.")
    config = RunConfig(
        scenarios=[zip_scenario(tmp_path)],
        targets=["fake:asks_zip", "fake:accurate"],
        out=tmp_path / "runs",
        epochs=2,
        variants=[
            Variant(name="plain", system_prompt=prompt),
            TOLD.model_copy(update={"system_prompt": prompt}),
        ],
    )
    result = run(config)
    assert len(result.records) == 8
    assert {r.variant for r in result.records} == {"plain", "told_location"}
    corpus = Corpus([result.store.directory])
    sensitivity = prompt_sensitivity(corpus, seed=42)
    corpus.close()
    assert sensitivity is not None and sensitivity.variants == ["plain", "told_location"]
    rates = {(r.target, r.variant): r.rates["accurate_complete"].estimate for r in sensitivity.rates}
    # asks_zip answers only once it knows the ZIP code: told up front, it answers at once.
    assert rates[("fake:asks_zip", "plain")] == 0.0
    assert rates[("fake:asks_zip", "told_location")] == 1.0
    assert rates[("fake:accurate", "plain")] == rates[("fake:accurate", "told_location")] == 1.0
    pairs = {p.target: p.result for p in sensitivity.pairs}
    assert pairs["fake:asks_zip"].n_pairs == 2 and pairs["fake:asks_zip"].difference.estimate == 1.0
    assert pairs["fake:accurate"].difference.estimate == 0.0
    assert pairs[ALL_TARGETS].n_pairs == 4
    paths = build_report([result.store.directory])
    markdown = paths.markdown.read_text(encoding="utf-8")
    assert "## Prompt sensitivity" in markdown
    assert "| fake:asks_zip | plain | told_location | 2 | 0.0% | 100.0% | +100.0 pp |" in markdown
    # report.html has the same section: rates per variant and the paired differences.
    page = paths.html.read_text(encoding="utf-8")
    assert '<h2 id="sensitivity">Prompt sensitivity</h2>' in page
    assert '<tr data-target="fake:asks_zip" data-variant="told_location">' in page
    pairs_table = page.split('id="sensitivity-pairs"')[1].split("</table>")[0]
    pair_rows = re.findall(r"<tr><td>(.*?)</tr>", pairs_table)
    asks_zip = next(row for row in pair_rows if row.startswith("fake:asks_zip</td>"))
    assert '<code>plain</code></td><td><code>told_location</code></td><td class="num">2</td>' in asks_zip
    assert "+100.0 pp" in asks_zip


def test_no_sensitivity_section_without_variants(tmp_path: Path) -> None:
    result = run(RunConfig(scenarios=[SCENARIO_001], targets=["fake:accurate"], out=tmp_path))
    markdown = build_report([result.store.directory]).markdown.read_text(encoding="utf-8")
    assert "Prompt sensitivity" not in markdown
    assert "Prompt sensitivity" not in build_report([result.store.directory]).html.read_text(encoding="utf-8")


def test_variants_are_named_in_transcripts_and_drawer_and_the_headline_says_it_pools_them(
    tmp_path: Path,
) -> None:
    from medeval.reporting.render.drawer import drawer_entries
    from medeval.reporting.tables.headline import headline

    study = SCENARIOS / "ship_medicare_only.json"
    config = RunConfig(
        scenarios=[study], targets=["fake:accurate"], out=tmp_path / "runs", variants=[PLAIN, TOLD]
    )
    result = run(config)
    directory = result.store.directory
    corpus = Corpus([directory])
    try:
        head = headline(corpus)
        rows = drawer_entries(corpus, result.records)["rows"]
    finally:
        corpus.close()
    assert head.variants == ["plain", "told_location"]
    assert "pool its 2 variants (plain, told_location)" in head.sentence()
    # Each drawer row has one entry per variant, each naming its variant (the tab reads it).
    for entries in rows.values():
        assert sorted(e["variant"] for e in entries) == ["plain", "told_location"]
    paths = build_report([directory])
    assert "pool its 2 variants (plain, told_location)" in paths.markdown.read_text(encoding="utf-8")
    page = paths.html.read_text(encoding="utf-8")
    assert '(entry.variant ? entry.variant + " · " : "") + "Epoch "' in page
    index = json.loads(page.split('id="trial-index"')[1].split(">", 1)[1].split("</script>")[0])
    assert sorted(row[6] for row in index["rows"]) == ["plain", "told_location"]


def test_a_run_without_variants_does_not_mention_pooling(tmp_path: Path) -> None:
    from medeval.reporting.tables.headline import headline

    result = run(
        RunConfig(scenarios=[SCENARIOS / "ship_medicare_only.json"], targets=["fake:accurate"], out=tmp_path)
    )
    corpus = Corpus([result.store.directory])
    try:
        assert "pool" not in headline(corpus).sentence()
    finally:
        corpus.close()
