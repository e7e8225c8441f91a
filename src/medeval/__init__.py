"""medeval: mystery-shopper evaluations of AI chatbots on Medicare questions.

For research use only: medeval evaluates AI-generated information and does not provide medical,
legal, or insurance advice.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("medeval")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"
