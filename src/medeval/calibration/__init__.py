"""Judge validity against people: reference sets, agreement statistics and their rendering. A reader:
imports records, schemas, scenarios and review; the calibration run that calls judges is
engine/calibrate.py."""
