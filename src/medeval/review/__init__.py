"""Human coding of a run: export the groups a person should code, import their codes into the
run's append-only reviews.jsonl, and decide which code counts (precedence.py).
A reader: imports records, schemas, scenarios and errors; never the engine."""
