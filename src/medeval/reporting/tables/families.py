"""Vendor families of model specs, for the self-preference flag: an LLM judge tends to favour
answers written by models of its own family (Panickssery et al., NeurIPS 2024, "LLM evaluators
recognize and favor their own generations"), so a report's headline sentence names every judge that
shares a family with a target it judged, and its judge-validity section says the same
(reporting/tables/bias.py). One definition of a family serves both and the probes:
calibration/probes/family.py."""

from __future__ import annotations

from medeval.calibration.probes.family import vendor_family


def family(spec: str) -> str | None:
    """The vendor family of `provider:model` (None for the rules coder, fakes and unknown names)."""
    return vendor_family(spec)


def same_family(targets: list[str], judges: list[str]) -> list[tuple[str, str]]:
    """(target, judge) pairs of one vendor family, each once, in the targets' order."""
    out: list[tuple[str, str]] = []
    for target in targets:
        mine = family(target.split(" ")[0])
        if mine is None:
            continue
        out.extend((target, judge) for judge in dict.fromkeys(judges) if family(judge) == mine)
    return out
