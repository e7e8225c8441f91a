"""Records: the run directory on disk (append-only hash-chained JSONL, the manifest, audit and verify),
content hashing and secret redaction. The bottom layer: imports only errors, schemas and resources."""
