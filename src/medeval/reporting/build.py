"""`medeval report`: read the runs, compute every table once, and write CSV, charts, Markdown and HTML."""

from __future__ import annotations

from pathlib import Path

from medeval.errors import UserError
from medeval.records.integrity import run_problems
from medeval.reporting import DEFAULT_HTML_TRIALS
from medeval.reporting.loading.run import Corpus
from medeval.reporting.render import charts
from medeval.reporting.render.corrected import CORRECTED_CSV
from medeval.reporting.render.html import write_html
from medeval.reporting.render.markdown import REVIEW_CSV, UNSCORED_CSV, write_markdown
from medeval.reporting.render.paper import write_paper_tables
from medeval.reporting.render.people import (
    OVERRIDE_HEADER,
    OVERRIDES_CSV,
    SPLIT_HEADER,
    SPLITS_CSV,
    override_rows,
    split_rows,
)
from medeval.reporting.stats.consistency import consistency
from medeval.reporting.tables.bias import judge_bias, probe_files
from medeval.reporting.tables.contacts import CONTACTS_CSV, CONTACTS_SQL, contact_summary
from medeval.reporting.tables.corrected import corrected, csv_rows
from medeval.reporting.tables.findings import REVIEW_SQL, UNSCORED_SQL, gather
from medeval.reporting.tables.headline import headline
from medeval.reporting.tables.model import ReportData, ReportPaths
from medeval.reporting.tables.pending import pending_rows
from medeval.reporting.tables.people import HumanReview, apply_reviews, ship_csv_row
from medeval.reporting.tables.provenance import provenance_rows
from medeval.reporting.tables.run_tables import (
    copy_csv,
    distributions,
    scenario_rows,
    ship_rows,
    target_rows,
    write_csv,
    write_trials_csv,
)
from medeval.reporting.tables.seasons import SEASONS_CSV, season_over_season
from medeval.reporting.tables.sensitivity import prompt_sensitivity

REPORT_DIR = "report"


def integrity_problems(run_dirs: list[Path]) -> list[str]:
    """`medeval verify`'s errors for each run, so a damaged run's figures never pass unremarked."""
    return [f"{run_dir.name}: {problem}" for run_dir in run_dirs for problem in run_problems(run_dir)]


def collect(corpus: Corpus, human: HumanReview) -> ReportData:
    # The first run's seed seeds every bootstrap, so a report of the same run never changes.
    seed = next((s.seed for s in corpus.snapshots if s.seed is not None), 0)
    top = headline(corpus)
    return ReportData(
        snapshots=corpus.snapshots,
        trials=corpus.trial_count(),
        skipped_lines=corpus.skipped_lines,
        seed=seed,
        targets=target_rows(corpus, seed),
        scenarios=scenario_rows(corpus, seed),
        ship=ship_rows(corpus),
        distributions=distributions(corpus),
        findings=gather(corpus, seed),
        sensitivity=prompt_sensitivity(corpus, seed),
        integrity=integrity_problems([s.directory for s in corpus.snapshots]),
        human=human,
        headline=top,
        corrected=corrected(corpus, top),
        consistency=consistency(corpus),
        contacts=contact_summary(corpus),
        pending=pending_rows(corpus),
        provenance=provenance_rows(corpus.snapshots),
        seasons=season_over_season(corpus),
    )


def default_out(run_dirs: list[Path]) -> Path:
    return run_dirs[0] / REPORT_DIR


def build_report(
    run_dirs: list[Path],
    out: Path | None = None,
    html_trials: int = DEFAULT_HTML_TRIALS,
    probes: list[Path] | None = None,
) -> ReportPaths:
    """`probes`: probes.json files of `medeval calibrate --probes` (a run directory's own is read too)."""
    probed = probe_files(run_dirs, probes or [])  # a bad file stops here, before anything is written
    corpus = Corpus(run_dirs)
    try:
        if corpus.trial_count() == 0:
            raise UserError(f"{run_dirs[0]}: the run has no readable trials yet; nothing to report")
        directory = out or default_out(run_dirs)
        try:
            (directory / "charts").mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UserError(
                f"{directory}: cannot create the report directory ({error.strerror}); pass --out"
            ) from error
        # People's codes first: every table below then counts the final categories.
        human = apply_reviews(corpus)
        human.judge_bias = judge_bias(corpus.snapshots, probed)
        data = collect(corpus, human)
        paths = ReportPaths(
            directory=directory,
            markdown=directory / "report.md",
            html=directory / "report.html",
            trials_csv=directory / "trials.csv",
            per_scenario_csv=directory / "per_scenario.csv",
            ship_csv=directory / "ship_table.csv",
            charts=[
                directory / "charts" / charts.SHIP_CHART,
                directory / "charts" / charts.DISTRIBUTION_CHART,
            ],
        )
        write_trials_csv(corpus, paths.trials_csv)
        # Every row of the lists report.md caps.
        copy_csv(corpus, UNSCORED_SQL, directory / UNSCORED_CSV)
        copy_csv(corpus, REVIEW_SQL, directory / REVIEW_CSV)
        copy_csv(corpus, CONTACTS_SQL, directory / CONTACTS_CSV)
        for name, header, rows in (
            (OVERRIDES_CSV, OVERRIDE_HEADER, override_rows(data.human)),
            (SPLITS_CSV, SPLIT_HEADER, split_rows(data.human)),
        ):
            write_csv(directory / name, [dict(zip(header, row, strict=True)) for row in rows], header)
        write_csv(paths.per_scenario_csv, [row.csv_row() for row in data.scenarios])
        if data.seasons:
            write_csv(directory / SEASONS_CSV, [row for c in data.seasons for row in c.csv_rows()])
        write_csv(paths.ship_csv, [ship_csv_row(row, data.human) for row in data.ship])
        write_paper_tables(directory, data.headline, data.corrected, data.ship)
        if data.corrected is not None and data.corrected.codes:
            write_csv(directory / CORRECTED_CSV, csv_rows(data.corrected))
        charts.ship_chart(data.ship, paths.charts[0])
        charts.distribution_chart(corpus, paths.charts[1])
        write_markdown(data, paths)
        write_html(data, corpus, paths, html_trials)
        return paths.model_copy(update={"integrity": data.integrity})
    finally:
        corpus.close()
