#: Transcripts included in report.html by default; every trial is always in trials.csv.
DEFAULT_HTML_TRIALS = 2000
