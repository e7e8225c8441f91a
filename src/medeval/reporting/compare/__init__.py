"""Comparing two runs (drift, or model against model): paired per item and pooled with clusters.
Imports loading, stats, tables and the terminal renderer."""
