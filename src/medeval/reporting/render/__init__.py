"""Renderers: the computed report as Markdown, HTML, PNG charts and terminal tables, and answers as safe
Markdown. Imports tables, stats and loading; computes nothing new."""
