"""What the command line (or `api.run_study`) may change in a study file's run, and the record of
it: an override is applied through RunConfig's own validation (so `out="dir"` becomes a Path, a
typo is refused) and listed in the manifest under `study.overrides`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from medeval.engine.config import RunConfig, StudyRef
from medeval.errors import UserError

#: Options of `medeval run` that override a study file's value: parameter name -> RunConfig field.
OVERRIDES = {
    "seed": "seed",
    "epochs": "epochs",
    "out_dir": "out",
    "max_cost": "max_cost",
    "max_concurrency": "max_concurrency",
    "persona_replies": "persona_replies",
}
#: This machine's and account's settings, not the study's content: they apply beside the file
#: (pacing limits add to the file's), and the manifest records them in the config as always.
MACHINE = frozenset(
    {
        "study",
        "quiet",
        "no_cache",
        "refresh",
        "cache_dir",
        "call_workers",
        "provider_concurrency",
        "model_concurrency",
        "tpm",
        "batch",
        "batch_size",
        "batch_idle",
        "batch_poll",
    }
)


def _plain(value: Any) -> Any:
    return str(value) if isinstance(value, Path) else value


def with_overrides(config: RunConfig, overrides: dict[str, Any]) -> RunConfig:
    """The study's config with these RunConfig fields changed, each recorded in study.overrides."""
    if not overrides:
        return config
    try:
        updated = RunConfig.model_validate({**dict(config), **overrides})
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UserError(
            f"study override {where}: {first['msg']}; pass one of the run's settings "
            f"({', '.join(sorted(RunConfig.model_fields))})"
        ) from None
    study = config.study or StudyRef(name="study")
    recorded = {**study.overrides, **{name: _plain(value) for name, value in overrides.items()}}
    return updated.model_copy(update={"study": study.model_copy(update={"overrides": recorded})})


def refuse_conflicts(study: Path, given: list[tuple[str, str]]) -> None:
    """`given`: (parameter, flag) of each option the command line set. One line naming every option
    the study file decides and the command line may not override."""
    refused = [flag for name, flag in given if name not in OVERRIDES and name not in MACHINE]
    if refused:
        them = "it" if len(refused) == 1 else "them"
        raise UserError(
            f"{', '.join(refused)}: the study file {study} sets {them}; edit the study file, or drop "
            f"{'the option' if len(refused) == 1 else 'those options'} (the command line may override "
            "only --seed, --epochs, --out, --max-cost, --max-concurrency and --persona-replies)"
        )
