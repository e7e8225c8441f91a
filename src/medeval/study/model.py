"""The study file's shape. Every field has a command-line equivalent (named in its description),
so a study file is a saved `medeval run` command, never a second way of configuring things."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, model_validator

from medeval.adapters.base import ReasoningEffort
from medeval.calls.batching.settings import BatchSettings
from medeval.engine.config import PersonaDetail
from medeval.schemas._base import Identifier


class _Study(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PromptChoice(_Study):
    """A system prompt from a file (relative to the study file) or written inline."""

    system_prompt: str | None = Field(default=None, description="File; --system-prompt FILE")
    system_prompt_text: str | None = Field(default=None, description="Inline text instead of a file")

    @model_validator(mode="after")
    def _one_source(self) -> PromptChoice:
        if self.system_prompt is not None and self.system_prompt_text is not None:
            raise ValueError("give system_prompt (a file) or system_prompt_text, not both")
        return self


class TargetDefaults(PromptChoice):
    max_output_tokens: int | None = Field(default=None, ge=1, description="--max-output-tokens N")
    temperature: float | None = Field(default=None, description="--temperature / --target-temperature")
    reasoning_effort: ReasoningEffort | None = Field(default=None, description="--reasoning-effort")


class StudyTarget(TargetDefaults):
    spec: str = Field(min_length=3, description="--target provider:model")
    web_search: bool = Field(default=False, description="--web-search TARGET: the provider's own search tool")
    concurrency: int | None = Field(
        default=None, ge=1, description="--provider-concurrency PROVIDER=N for this target's provider"
    )


class StudyScenarios(_Study):
    bundled: bool = Field(default=False, description="The scenarios shipped with medeval")
    season: str = Field(default="2026", description="With bundled: the plan year of the bundled keys")
    paths: list[str] = Field(default_factory=list, description="--scenario, relative to the study file")
    ids: list[str] = Field(default_factory=list, description="--scenario-id")
    tags: list[str] = Field(default_factory=list, description="--scenario-tag")


class StudyJudging(_Study):
    judges: list[str] = Field(default_factory=lambda: ["rules"], description="--judge, repeatable")
    count: int = Field(default=2, ge=2, description="--judges N")
    extractor: str | None = Field(default=None, description="--extractor")
    adjudicator: str | None = Field(default=None, description="--adjudicator")
    questioner: str | None = Field(default=None, description="--questioner")


class StudyVariant(PromptChoice):
    name: Identifier
    persona_detail: PersonaDetail = "script"
    paraphrase: bool = False
    tone: str | None = None
    reading_level: str | None = None


class StudyFile(_Study):
    name: Identifier = Field(description="--study-name")
    description: str = ""
    tags: list[str] = Field(default_factory=list, description="--study-tag")
    seed: int = Field(default=42, description="--seed")
    epochs: int = Field(default=1, ge=1, description="--epochs")
    out: str = Field(default="runs", description="--out, relative to the working directory")
    max_cost: float | None = Field(default=None, ge=0, description="--max-cost")
    max_concurrency: int = Field(default=32, ge=1, description="--max-concurrency")
    persona_replies: int = Field(default=2, ge=0, description="--persona-replies")
    model_concurrency: dict[str, PositiveInt] = Field(
        default_factory=dict, description='--model-concurrency; {"provider:model" = N}'
    )
    tpm: dict[str, PositiveInt] = Field(default_factory=dict, description='--tpm; {"provider:model" = N}')
    scenarios: StudyScenarios
    judging: StudyJudging = Field(default_factory=StudyJudging)
    defaults: TargetDefaults = Field(default_factory=TargetDefaults, description="For every target")
    targets: list[StudyTarget] = Field(min_length=1)
    variants: list[StudyVariant] = Field(default_factory=list, description="--variant, repeatable")
    batch: BatchSettings = Field(
        default_factory=BatchSettings, description="--batch, --batch-size, --batch-idle, --batch-poll"
    )
