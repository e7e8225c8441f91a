"""Tables and findings: the computed report (headline, SHIP table, question table, findings, sensitivity,
people's codes) as row objects every renderer shares. Imports loading, stats, review and calibration."""
