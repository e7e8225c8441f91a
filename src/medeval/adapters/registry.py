"""Resolve `provider:model` specs to adapters. Providers register lazily: an SDK is imported only
when a spec names its provider, so an offline run never imports a network SDK."""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable

from medeval.adapters.base import ModelAPI
from medeval.errors import ConfigError

AdapterFactory = Callable[[str], ModelAPI]

#: provider name -> "module:factory". The factory takes the model part of the spec.
_PROVIDERS: dict[str, str] = {
    "fake": "medeval.fakes.provider:create",
    "openai": "medeval.adapters.openai_api:create",
    "openai-compatible": "medeval.adapters.openai_api:create_compatible",
    "anthropic": "medeval.adapters.anthropic_api:create",
    "google": "medeval.adapters.google_api:create",
    "xai": "medeval.adapters.xai_api:create",
}


def register_provider(name: str, target: str) -> None:
    """Register a provider as "module:factory"; the module is imported on first use."""
    _PROVIDERS[name] = target


def providers() -> list[str]:
    return sorted(_PROVIDERS)


#: Judge names that are not provider:model specs (the offline rules judge).
PLAIN_JUDGES = ("rules",)


def suggestion(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """' (did you mean 'rules'?)' for a near miss, else ''."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def parse_spec(spec: str) -> tuple[str, str]:
    provider, sep, model = spec.partition(":")
    if not sep or not provider or not model:
        raise ConfigError(
            f"model spec {spec!r} is not of the form provider:model{suggestion(spec, PLAIN_JUDGES)} "
            f"(providers: {', '.join(providers())}; example: fake:accurate)"
        )
    if provider not in _PROVIDERS:
        raise ConfigError(
            f"unknown provider {provider!r} in {spec!r}{suggestion(provider, providers())}; "
            f"known providers: {', '.join(providers())}"
        )
    return provider, model


def create_adapter(spec: str) -> ModelAPI:
    provider, model = parse_spec(spec)
    module_name, _, factory_name = _PROVIDERS[provider].partition(":")
    factory: AdapterFactory = getattr(importlib.import_module(module_name), factory_name)
    return factory(model)
