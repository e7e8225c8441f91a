"""Vendor families of model specs, for the self-preference flag: an LLM judge tends to favour
answers written by models of its own family (Panickssery et al., NeurIPS 2024, "LLM evaluators
recognize and favor their own generations"), so a report names every judge that shares a family
with a target it judged (docs/methodology.md, "Judge bias probes")."""

from __future__ import annotations

#: Model-name prefixes of each family, for providers that serve other vendors' models.
FAMILY_PREFIXES = {
    "openai": ("gpt", "o1", "o3", "o4", "chatgpt", "openai/"),
    "anthropic": ("claude", "anthropic/"),
    "google": ("gemini", "gemma", "google/"),
    "xai": ("grok", "x-ai/", "xai/"),
    "meta": ("llama", "meta-llama/"),
    "mistral": ("mistral", "mixtral", "mistralai/"),
    "deepseek": ("deepseek",),
}
#: Not models: offline fakes and the rules coder have no family.
NO_FAMILY = ("fake", "rules", "reference")


def family(spec: str) -> str | None:
    """The vendor family of `provider:model`, from the model's name where it says, else the provider."""
    provider, _, model = spec.partition(":")
    if provider in NO_FAMILY or not model:
        return None
    name = model.lower()
    for vendor, prefixes in FAMILY_PREFIXES.items():
        if name.startswith(prefixes):
            return vendor
    return provider


def same_family(targets: list[str], judges: list[str]) -> list[tuple[str, str]]:
    """(target, judge) pairs of one vendor family, each once, in the targets' order."""
    out: list[tuple[str, str]] = []
    for target in targets:
        mine = family(target.split(" ")[0])
        if mine is None:
            continue
        out.extend((target, judge) for judge in dict.fromkeys(judges) if family(judge) == mine)
    return out
