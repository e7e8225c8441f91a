"""Loopback model servers for tests, benchmarks and offline demos: real SDKs talk to them over
HTTP on 127.0.0.1, so provider code is exercised end to end with no network.
Test support at the top: may import any layer; nothing in medeval imports it."""
