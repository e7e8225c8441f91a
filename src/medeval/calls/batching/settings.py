"""How judge requests are batched: recorded in the manifest with the rest of the configuration."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class BatchSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    enabled: bool = Field(default=False, description="--batch: judge roles through batch APIs")
    max_items: int = Field(default=5000, ge=1, description="A batch is sent once it holds this many requests")
    idle_seconds: float = Field(
        default=5.0, ge=0, description="...or once no new request has come for this long"
    )
    poll_seconds: float = Field(default=30.0, gt=0, description="Seconds between status reads")
