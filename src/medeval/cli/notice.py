"""The research notice every command that evaluates prints: its own module, with no imports, so
the command line's help (which shows it) stays fast."""

RESEARCH_NOTICE = (
    "For research use only: medeval evaluates AI-generated information and does not provide "
    "medical, legal, or insurance advice."
)
