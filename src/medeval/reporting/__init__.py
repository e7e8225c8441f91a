"""Reports: load runs (loading/), compute intervals (stats/), tables and findings (tables/), render them
(render/), compare runs (compare/). A reader: imports records, schemas, scenarios, review and calibration."""

#: Transcripts included in report.html by default; every trial is always in trials.csv.
DEFAULT_HTML_TRIALS = 2000
