"""Vendor families of model specs, for the self-preference flag: a judge may favour answers from
its own maker's models (Panickssery et al., "LLM evaluators recognize and favor their own
generations", NeurIPS 2024). The family is the provider for a first-party provider, else read from
the model's name (an OpenAI-compatible endpoint serving Llama is Meta's). The rules coder, fake
models and names nobody recognises have none: they are never flagged."""

from __future__ import annotations

from collections.abc import Iterable

#: Providers whose models are all their own.
FIRST_PARTY = {"openai": "openai", "anthropic": "anthropic", "google": "google", "xai": "xai"}
#: Name prefixes of models served elsewhere (OpenAI-compatible endpoints, routers), lower case.
NAME_PREFIXES = (
    ("gpt", "openai"),
    ("chatgpt", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("claude", "anthropic"),
    ("gemini", "google"),
    ("gemma", "google"),
    ("grok", "xai"),
    ("llama", "meta"),
    ("meta-llama", "meta"),
    ("mistral", "mistral"),
    ("mixtral", "mistral"),
    ("qwen", "alibaba"),
    ("deepseek", "deepseek"),
    ("phi-", "microsoft"),
)


def vendor_family(spec: str) -> str | None:
    provider, sep, model = spec.partition(":")
    if not sep:
        return None  # "rules": the offline coder
    if provider in FIRST_PARTY:
        return FIRST_PARTY[provider]
    for part in reversed(model.lower().split("/")):
        for prefix, family in NAME_PREFIXES:
            if part.startswith(prefix):
                return family
    return None


def same_family(targets: Iterable[str], judges: Iterable[str]) -> list[tuple[str, str, str]]:
    """(judge, target, family) for every judge sharing a vendor family with a target."""
    judge_list = list(dict.fromkeys(judges))
    out = []
    for target in dict.fromkeys(targets):
        family = vendor_family(target)
        if family is None:
            continue
        out += [(judge, target, family) for judge in judge_list if vendor_family(judge) == family]
    return out
