"""The HTTP client the OpenAI and Anthropic SDKs are given: each SDK's own aiohttp transport (its
`[aiohttp]` option) where aiohttp is installed (it comes with xai-sdk), else its default httpx2
one. Same requests and SDK defaults (timeouts, connection limits, redirects); aiohttp's compiled
HTTP parser spends a fraction of the CPU per call that httpx2's pure-Python stack (httpcore2, h11,
anyio) does (docs/performance.md)."""

from __future__ import annotations

from types import ModuleType
from urllib.parse import urlsplit

import httpx2

from medeval.adapters.tls import shared_tls_context


def sdk_http_client(sdk: ModuleType, base_url: str) -> httpx2.AsyncClient:
    """`sdk.DefaultAioHttpClient`, else `sdk.DefaultAsyncHttpxClient`, with the process's one TLS
    context. aiohttp refuses credentials in the URL beside an SDK's auth header, so a base URL with
    userinfo keeps httpx2."""
    if "@" not in urlsplit(base_url).netloc:
        try:
            client: httpx2.AsyncClient = sdk.DefaultAioHttpClient(verify=shared_tls_context())
            return client
        except RuntimeError:  # aiohttp missing
            pass
    fallback: httpx2.AsyncClient = sdk.DefaultAsyncHttpxClient(verify=shared_tls_context())
    return fallback


def connection_failure(error: BaseException) -> BaseException | None:
    """The aiohttp transport reports any failed connection (refused, reset, closed) as a connect
    timeout; the cause it chains says which it was. None for a real timeout."""
    cause = error.__cause__
    while cause is not None:
        if any(k.__name__ == "ClientConnectionError" for k in type(cause).__mro__):  # aiohttp's
            return None if isinstance(cause, TimeoutError) else cause
        cause = cause.__cause__
    return None
