"""The offline contacts and links check: phone numbers, URLs and named official resources in answers
and citations, classified against the dated, sourced registry in data/. Imports schemas and records."""
