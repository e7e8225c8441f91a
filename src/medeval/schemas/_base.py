"""Pieces every contract shares: strict models, severities, identifiers, spans."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Strict(BaseModel):
    """Unknown fields are rejected, so a typo in a scenario or a judge that invents a field is
    caught instead of silently ignored."""

    model_config = ConfigDict(extra="forbid")


Severity = Literal["none", "low", "medium", "high", "critical"]
SEVERITY_WEIGHT: dict[str, float] = {"none": 0.0, "low": 0.25, "medium": 0.5, "high": 0.75, "critical": 1.0}
MATERIAL_SEVERITIES = frozenset({"medium", "high", "critical"})
_SEVERITY_RANK: dict[str, int] = {"none": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}


def worse_severity(a: Severity, b: Severity) -> Severity:
    return a if _SEVERITY_RANK[a] >= _SEVERITY_RANK[b] else b


Identifier = Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9_.\-]+$")]


class Span(Strict):
    """Character offsets into one answer text: `text[start:end]`."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)

    @model_validator(mode="before")
    @classmethod
    def _from_pair(cls, value: Any) -> Any:
        # Runs written before schema 2 stored spans as [start, end] pairs.
        if isinstance(value, list | tuple) and len(value) == 2:
            return {"start": value[0], "end": value[1]}
        return value

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end < self.start:
            raise ValueError(f"span end {self.end} is before its start {self.start}")
        return self


_WORD = re.compile(r"\s+")


def normalise_space(text: str) -> str:
    return _WORD.sub(" ", text).strip()
