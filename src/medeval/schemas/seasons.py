"""Dated values in an answer key: a quantity's value per plan year (or validity window), each with
its source and date, and values not published yet (`pending`), which no answer is scored on."""

from __future__ import annotations

from datetime import date

from pydantic import Field, model_validator

from medeval.schemas._base import Strict


class Pending(Strict):
    """A value unknown as of the key's date: who will publish it and when it is expected."""

    expected: date = Field(description="When the publisher is expected to publish it")
    publisher: str = Field(min_length=1, description="Who publishes it, e.g. 'CMS (Part A/B fact sheet)'")
    note: str = Field(default="", description="What is known meanwhile (projections are not values)")

    def reason(self, what: str) -> str:
        return f"{what} is pending: {self.publisher} expected to publish it by {self.expected.isoformat()}"


class DatedValue(Strict):
    """One year's (or one window's) accepted values of a quantity, with where they come from; or
    `pending` when they are not published yet."""

    year: int | None = Field(default=None, ge=1965, le=2100, description="The plan year they hold for")
    valid_from: date | None = None
    valid_to: date | None = None
    values: list[str] = Field(default_factory=list, description="As Quantity.values")
    source: str = Field(default="", description="Document, publisher and section or page")
    source_date: date | None = Field(default=None, description="When the source was published or read")
    pending: Pending | None = None

    @model_validator(mode="after")
    def _shape(self) -> DatedValue:
        if self.year is None and self.valid_from is None:
            raise ValueError("a dated value needs a year or a valid_from date")
        if self.valid_from and self.valid_to and self.valid_to < self.valid_from:
            raise ValueError("valid_to is before valid_from")
        if self.pending is None and not self.values:
            raise ValueError("a dated value needs values, or pending when they are not published yet")
        if self.pending is not None and self.values:
            raise ValueError("a pending value has no values yet: give one or the other")
        if self.pending is None and not self.source:
            raise ValueError("a published value needs its source")
        return self

    def holds_in(self, year: int) -> bool:
        if self.year is not None:
            return self.year == year
        start = self.valid_from.year if self.valid_from else year
        end = self.valid_to.year if self.valid_to else year
        return start <= year <= end

    def label(self) -> str:
        if self.year is not None:
            return str(self.year)
        end = self.valid_to.isoformat() if self.valid_to else "on"
        return f"{self.valid_from.isoformat() if self.valid_from else '?'}..{end}"
