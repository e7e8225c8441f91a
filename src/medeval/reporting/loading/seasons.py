"""Which season's keys each trial was judged with: a scenario's plan year is the year of its
`effective_date` as the run's manifest recorded it (the 2026 keys are dated 2026-01-01, the 2027 keys
2027-01-01), so runs on two seasons are told apart without reading the key files again.

`season_table` adds `scenario_seasons(run_dir, scenario_id, season)` to a corpus; a report joins it
to keep two seasons apart (the headline, the season-over-season table)."""

from __future__ import annotations

from pathlib import Path

from medeval.reporting.loading.run import Corpus, RunSnapshot, ScenarioRef

TABLE = "scenario_seasons"


def season_of(ref: ScenarioRef) -> int | None:
    """The plan year a scenario asks about, from its recorded effective date (None if not recorded)."""
    text = (ref.effective_date or "")[:4]
    return int(text) if text.isdigit() else None


def season_table(corpus: Corpus) -> list[int]:
    """Create (once) the table of each run's scenarios and their seasons; the seasons present, sorted."""
    rows = [
        (str(snapshot.directory), ref.scenario_id, season_of(ref))
        for snapshot in corpus.snapshots
        for ref in snapshot.scenarios
    ]
    corpus.con.execute(
        f"CREATE OR REPLACE TABLE {TABLE} (run_dir VARCHAR, scenario_id VARCHAR, season INTEGER)"
    )
    if rows:
        corpus.con.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?)", rows)
    return sorted({season for _, _, season in rows if season is not None})


def season_join(alias: str = "tg") -> str:
    """The join that gives each trial group of `trial_groups {alias}` its season (NULL if unknown)."""
    return f"LEFT JOIN {TABLE} ss ON ss.run_dir = {alias}.run_dir AND ss.scenario_id = {alias}.scenario_id"


def keys_used(snapshots: list[RunSnapshot], season: int) -> str:
    """Which keys a season's runs used: folders and versions ("v2027 folder, version 2027.1.0")."""
    where: dict[str, set[str]] = {}
    for snapshot in snapshots:
        for ref in snapshot.scenarios:
            if season_of(ref) == season:
                folder = Path(ref.path).parent.name if ref.path else "unrecorded folder"
                where.setdefault(folder, set()).add(ref.version or "no version")
    return "; ".join(f"{name} folder, version {', '.join(sorted(v))}" for name, v in sorted(where.items()))
