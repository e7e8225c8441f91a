"""The computed report: what the Markdown, HTML and chart writers render."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from medeval.reporting.loading.run import RunSnapshot
from medeval.reporting.stats.consistency import Consistency
from medeval.reporting.tables.contacts import ContactSummary
from medeval.reporting.tables.corrected import Corrected
from medeval.reporting.tables.findings import Findings
from medeval.reporting.tables.headline import Headline
from medeval.reporting.tables.pending import PendingRow
from medeval.reporting.tables.people import HumanReview
from medeval.reporting.tables.provenance import ProvenanceRow
from medeval.reporting.tables.run_tables import ScenarioRow, ShipRow, TargetRow
from medeval.reporting.tables.seasons import SeasonComparison
from medeval.reporting.tables.sensitivity import Sensitivity


class ReportData(BaseModel):
    snapshots: list[RunSnapshot]
    trials: int
    skipped_lines: int
    seed: int
    targets: list[TargetRow]
    scenarios: list[ScenarioRow]
    ship: list[ShipRow]
    distributions: dict[str, dict[str, list[int]]]
    findings: Findings
    #: Category rates per variant and paired differences; None without two variants.
    sensitivity: Sensitivity | None = None
    #: `medeval verify` errors of the runs reported on (empty when every run is intact).
    integrity: list[str] = []
    human: HumanReview
    #: The targets beside the counselors over the study's question groups (reporting/headline.py).
    headline: Headline | None = None
    #: The headline's rates corrected for judge error from people's audit codes.
    corrected: Corrected | None = None
    #: Per target, across epochs (empty with one epoch).
    consistency: list[Consistency] = []
    #: Contacts and links in the answers (None when no trial carries the check).
    contacts: ContactSummary | None = None
    #: Checklist items resting on a key value not published yet (empty for a season fully known).
    pending: list[PendingRow] = []
    #: Runs judged with different seasons' keys, side by side per target (empty with one season).
    seasons: list[SeasonComparison] = []
    #: Conversations collected outside the harness (`medeval ingest`), one row each.
    provenance: list[ProvenanceRow] = []


class ReportPaths(BaseModel):
    directory: Path
    markdown: Path
    html: Path
    trials_csv: Path
    per_scenario_csv: Path
    ship_csv: Path
    charts: list[Path]
    #: The integrity problems the report warns about (see ReportData.integrity).
    integrity: list[str] = []
