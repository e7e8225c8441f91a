"""One TLS context per process for every provider's HTTP client."""

from __future__ import annotations

import functools
import ssl

import httpx2


@functools.cache
def shared_tls_context() -> ssl.SSLContext:
    """httpx2's default verifying context, built once per process (a context is safe to share):
    building one reads the system's CA bundle, about 0.1 s of CPU for every model of every run."""
    return httpx2.create_ssl_context()
