"""The run configuration: everything that decides what a run does, recorded whole in the manifest."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from medeval.adapters.base import ReasoningEffort
from medeval.calls.batching.settings import BatchSettings
from medeval.calls.cache import CacheMode
from medeval.engine.defaults import DEFAULT_JUDGE as DEFAULT_JUDGE
from medeval.records.hashing import sha256_text
from medeval.records.user_files import PROMPT_MAX_BYTES, read_user_text
from medeval.schemas._base import Identifier

DEFAULT_MAX_OUTPUT_TOKENS = 1024
#: How much of the persona the beneficiary tells up front (see `trial.persona_disclosure`).
PersonaDetail = Literal["script", "location", "full"]


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SystemPrompt(_Config):
    """A target's system prompt, kept whole so a resumed run sends the same text."""

    text: str
    path: str | None = Field(default=None, description="Where it was read from, for the record")
    sha256: str

    @classmethod
    def read(cls, path: Path) -> SystemPrompt:
        text = read_user_text(path, limit=PROMPT_MAX_BYTES, what="system prompt")
        return cls(text=text, path=str(path), sha256=sha256_text(text))

    @classmethod
    def of(cls, text: str) -> SystemPrompt:
        return cls(text=text, sha256=sha256_text(text))


class TargetSettings(_Config):
    """Per-target overrides; None inherits the run-wide value."""

    system_prompt: SystemPrompt | None = None
    max_output_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = None
    reasoning_effort: ReasoningEffort | None = None
    #: The provider's own web search tool on for this target (`--web-search TARGET`): opt-in,
    #: recorded, and flagged in every report so its answers are never pooled silently with
    #: model-only ones.
    web_search: bool = False


class EffectiveSettings(_Config):
    """What a target is asked with, after overrides: recorded in the manifest and every trial."""

    system_prompt: str = ""
    system_prompt_path: str | None = None
    system_prompt_sha256: str = Field(default_factory=lambda: sha256_text(""))
    max_output_tokens: int | None = None
    temperature: float | None = None
    reasoning_effort: ReasoningEffort | None = None
    web_search: bool = False

    def record(self) -> dict[str, Any]:
        """The recorded form: the prompt by path and hash (its text is in the manifest's config);
        `web_search` only when on, so the records of model-only targets keep their form."""
        exclude = {"system_prompt"} if self.web_search else {"system_prompt", "web_search"}
        return self.model_dump(mode="json", exclude=exclude)


class Variant(_Config):
    """One level of the variation matrix: each trial is asked under exactly one variant."""

    name: Identifier
    system_prompt: SystemPrompt | None = Field(
        default=None, description="Replaces every target's system prompt in this variant"
    )
    persona_detail: PersonaDetail = "script"
    paraphrase: bool = Field(default=False, description="Reworded by the questioner model")
    tone: str | None = Field(default=None, description="Through the questioner's paraphrase")
    reading_level: str | None = Field(default=None, description="Through the questioner's paraphrase")

    def rewords(self) -> bool:
        return self.paraphrase or self.tone is not None or self.reading_level is not None


class StudyRef(_Config):
    """The study a run belongs to, and the study file it came from (none on the command line)."""

    name: str
    tags: list[str] = Field(default_factory=list)
    path: str | None = None
    sha256: str | None = None
    #: Settings the command line (or api.run_study) changed from the file: field -> value used.
    overrides: dict[str, Any] = Field(default_factory=dict)


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scenarios: list[Path] = Field(min_length=1)
    targets: list[str] = Field(min_length=1)
    judges: list[str] = Field(default_factory=lambda: [DEFAULT_JUDGE])
    judge_count: int = Field(default=2, ge=2, description="Independent verifier instances per turn")
    extractor: str | None = Field(default=None, description="Defaults to the first judge")
    adjudicator: str | None = Field(
        default=None, description="Model that breaks ties; none sends ties to review"
    )
    questioner: str | None = Field(
        default=None, description="Model for paraphrase, when a scenario enables it"
    )
    seed: int = 42
    epochs: int = Field(default=1, ge=1)
    out: Path = Path("runs")
    max_concurrency: int = Field(
        default=32, ge=1, description="Calls in flight at once; twice as many trials are open"
    )
    call_workers: int = Field(
        default=0, ge=0, description="Processes that make the provider calls (0: this one)"
    )
    provider_concurrency: dict[str, int] = Field(
        default_factory=dict, description="Ceiling on calls in flight per provider, all its models"
    )
    model_concurrency: dict[str, int] = Field(
        default_factory=dict, description="Ceiling on calls in flight per provider:model (adaptive below it)"
    )
    tpm: dict[str, int] = Field(
        default_factory=dict, description="Tokens-per-minute budget per provider:model"
    )
    cache: CacheMode = CacheMode.USE
    cache_dir: Path | None = Field(
        default=None, description="Defaults to $MEDEVAL_CACHE_DIR or ~/.cache/medeval"
    )
    max_cost: float | None = Field(default=None, ge=0, description="Budget in USD for this run")
    temperature: float | None = 0.0
    max_output_tokens: int | None = DEFAULT_MAX_OUTPUT_TOKENS
    system_prompt: SystemPrompt | None = Field(default=None, description="Every target's, by default")
    reasoning_effort: ReasoningEffort | None = None
    target_settings: dict[str, TargetSettings] = Field(
        default_factory=dict, description="Per-target overrides, by target spec"
    )
    judge_max_attempts: int = Field(default=3, ge=1)
    variants: list[Variant] = Field(default_factory=list, description="Empty: one plain variant")
    scenario_ids: list[str] = Field(default_factory=list, description="Keep only these scenarios")
    scenario_tags: list[str] = Field(default_factory=list, description="Keep scenarios with any tag")
    persona_replies: int = Field(
        default=2, ge=0, description="At most this many persona replies per scripted turn"
    )
    study: StudyRef | None = None
    batch: BatchSettings = Field(
        default_factory=BatchSettings, description="Judge roles through provider batch APIs (--batch)"
    )

    def judge_role_specs(self) -> list[str]:
        """The models of the judge roles (extractor, verifiers, adjudicator), once each."""
        specs = [self.extractor_spec(), *self.judges, *([self.adjudicator] if self.adjudicator else [])]
        return [s for s in dict.fromkeys(specs) if s != DEFAULT_JUDGE]

    def extractor_spec(self) -> str:
        return self.extractor or self.judges[0]

    def judge_spec(self, index: int) -> str:
        """Judges cycle through the given specs: `--judge a --judge b --judges 4` gives a, b, a, b."""
        return self.judges[index % len(self.judges)]

    def variant_levels(self) -> list[Variant | None]:
        """The variants each trial is asked under; [None] when the run has none."""
        return list(self.variants) if self.variants else [None]

    def settings_for(self, target: str, variant: Variant | None = None) -> EffectiveSettings:
        own = self.target_settings.get(target, TargetSettings())
        prompt = (variant.system_prompt if variant else None) or own.system_prompt or self.system_prompt
        temperature = own.temperature if own.temperature is not None else self.temperature
        return EffectiveSettings(
            system_prompt=prompt.text if prompt else "",
            system_prompt_path=prompt.path if prompt else None,
            system_prompt_sha256=prompt.sha256 if prompt else sha256_text(""),
            max_output_tokens=own.max_output_tokens or self.max_output_tokens,
            temperature=temperature,
            reasoning_effort=own.reasoning_effort or self.reasoning_effort,
            web_search=own.web_search,
        )


class CorrelatedVerifiersWarning(UserWarning):
    """Every model verifier is one model with one setting: their errors are not independent."""


def warn_correlated_verifiers(config: RunConfig) -> None:
    """Warn once per run: copies of one model share its blind spots, so their majority is not
    independent confirmation. (Copies of the rules coder are reported as such, not warned about.)"""
    panel = {config.judge_spec(i) for i in range(config.judge_count)}
    if len(panel) == 1 and DEFAULT_JUDGE not in panel:
        (spec,) = panel
        warnings.warn(
            f"all {config.judge_count} verifiers are {spec} with one setting: their errors are "
            "correlated and their agreement overstates reliability; add a verifier from another "
            "provider (repeat --judge)",
            CorrelatedVerifiersWarning,
            stacklevel=2,
        )
