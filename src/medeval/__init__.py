"""medeval: mystery-shopper evaluations of AI chatbots on Medicare questions.

For research use only: medeval evaluates AI-generated information and does not provide medical,
legal, or insurance advice.
"""

# One place for the version: pyproject.toml reads it from here (a constant, not importlib.metadata,
# which costs a tenth of a second at every start).
__version__ = "0.1.0"
