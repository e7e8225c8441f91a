"""Loading runs for reports: manifests and results through duckdb, and the counselors' baseline.
Imports records, scenarios and schemas only."""
