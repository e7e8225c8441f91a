"""Per-target settings and variants on the command line: `--max-output-tokens 4096` sets every
target's, `--max-output-tokens openai:gpt-5=16000` one target's (repeatable); `--variant
NAME:key=value,...` adds one level of the variation matrix."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from medeval.adapters.base import REASONING_EFFORTS, ReasoningEffort
from medeval.engine.config import SystemPrompt, TargetSettings, Variant
from medeval.errors import UserError

T = TypeVar("T")
PERSONA_DETAILS = ("script", "location", "full")


def split_target(option: str, value: str, targets: list[str]) -> tuple[str | None, str]:
    """("spec", value) for TARGET=VALUE naming one of the run's targets; (None, value) otherwise."""
    spec, sep, rest = value.rpartition("=")
    if not sep:
        return None, value
    if spec not in targets:
        raise UserError(
            f"{option} {value!r}: {spec!r} is not one of the run's targets ({', '.join(targets)}); "
            f"pass {option} VALUE for every target or {option} TARGET=VALUE for one"
        )
    return spec, rest


def per_target(
    option: str, values: list[str] | None, targets: list[str], parse: Callable[[str], T]
) -> tuple[T | None, dict[str, T]]:
    """The run-wide value (None when not given) and the per-target ones."""
    default: T | None = None
    own: dict[str, T] = {}
    for raw in values or []:
        spec, text = split_target(option, raw, targets)
        try:
            value = parse(text)
        except ValueError as error:
            raise UserError(f"{option} {raw!r}: {error}") from None
        if spec is None:
            default = value
        else:
            own[spec] = value
    return default, own


def positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise ValueError("not a whole number >= 1")
    return int(text)


def effort(text: str) -> ReasoningEffort:
    if text not in REASONING_EFFORTS:
        raise ValueError(f"not one of {', '.join(REASONING_EFFORTS)}")
    return cast(ReasoningEffort, text)


def number(text: str) -> float:
    return float(text)


def prompt_file(text: str) -> SystemPrompt:
    return SystemPrompt.read(Path(text))


def target_settings(
    targets: list[str],
    *,
    max_output_tokens: list[str] | None,
    system_prompt: list[str] | None,
    reasoning_effort: list[str] | None,
    target_temperature: list[str] | None,
    web_search: list[str] | None = None,
) -> tuple[dict[str, Any], dict[str, TargetSettings]]:
    """(run-wide settings for RunConfig, per-target overrides)."""
    searching = set(web_search or [])
    unknown = sorted(searching - set(targets))
    if unknown:
        raise UserError(
            f"--web-search {unknown[0]!r} is not one of the run's targets ({', '.join(targets)}); "
            "name a target given with --target (search is opt-in per target)"
        )
    tokens, own_tokens = per_target("--max-output-tokens", max_output_tokens, targets, positive_int)
    prompt, own_prompt = per_target("--system-prompt", system_prompt, targets, prompt_file)
    level, own_level = per_target("--reasoning-effort", reasoning_effort, targets, effort)
    _, own_temperature = per_target("--target-temperature", target_temperature, targets, number)
    overrides = {
        spec: TargetSettings(
            system_prompt=own_prompt.get(spec),
            max_output_tokens=own_tokens.get(spec),
            temperature=own_temperature.get(spec),
            reasoning_effort=own_level.get(spec),
            web_search=spec in searching,
        )
        for spec in targets
    }
    run_wide: dict[str, Any] = {"system_prompt": prompt, "reasoning_effort": level}
    if tokens is not None:
        run_wide["max_output_tokens"] = tokens
    return run_wide, {spec: s for spec, s in overrides.items() if s != TargetSettings()}


def parse_variant(value: str) -> Variant:
    """`NAME` or `NAME:system_prompt=FILE,persona_detail=location,tone=worried,...`."""
    name, _, rest = value.partition(":")
    fields: dict[str, Any] = {"name": name}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, text = item.partition("=")
        if not sep:
            raise UserError(f"--variant {value!r}: {item!r} is not KEY=VALUE")
        if key == "system_prompt":
            fields[key] = SystemPrompt.read(Path(text))
        elif key == "persona_detail":
            if text not in PERSONA_DETAILS:
                raise UserError(f"--variant {value!r}: persona_detail is one of {', '.join(PERSONA_DETAILS)}")
            fields[key] = text
        elif key == "paraphrase":
            fields[key] = text.lower() in ("1", "true", "yes")
        elif key in ("tone", "reading_level"):
            fields[key] = text
        else:
            raise UserError(
                f"--variant {value!r}: unknown key {key!r}; keys: system_prompt, persona_detail, "
                "paraphrase, tone, reading_level"
            )
    try:
        return Variant.model_validate(fields)
    except ValueError as error:
        raise UserError(f"--variant {value!r}: {str(error).splitlines()[-1].strip()}") from None


def variants(values: list[str] | None) -> list[Variant]:
    parsed = [parse_variant(v) for v in values or []]
    names = [v.name for v in parsed]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UserError(f"--variant {dupes[0]} is given twice; give each variant a distinct name")
    return parsed
