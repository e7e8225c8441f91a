"""The run configuration: everything that decides what a run does, recorded whole in the manifest."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from medeval.cache import CacheMode

DEFAULT_JUDGE = "rules"


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
    max_concurrency: int = Field(default=8, ge=1, description="Trials, and calls, in flight at once")
    provider_concurrency: dict[str, int] = Field(
        default_factory=dict, description="Ceiling on calls in flight per provider (adaptive below it)"
    )
    cache: CacheMode = CacheMode.USE
    cache_dir: Path | None = Field(
        default=None, description="Defaults to $MEDEVAL_CACHE_DIR or ~/.cache/medeval"
    )
    max_cost: float | None = Field(default=None, ge=0, description="Budget in USD for this run")
    temperature: float | None = 0.0
    max_output_tokens: int | None = 1024
    judge_max_attempts: int = Field(default=3, ge=1)

    def extractor_spec(self) -> str:
        return self.extractor or self.judges[0]

    def judge_spec(self, index: int) -> str:
        """Judges cycle through the given specs: `--judge a --judge b --judges 4` gives a, b, a, b."""
        return self.judges[index % len(self.judges)]
