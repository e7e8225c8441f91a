"""What `medeval ingest` records about a conversation collected outside the harness: where it came
from (provenance) and how its turns were matched to the scenario's script. Stored on each ingested
trial (`TrialRecord.ingest`) and, for the run as a whole, in the manifest's `ingest` entry."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from medeval.schemas._base import Strict

#: How the conversation reached the collector.
Channel = Literal["app", "web", "phone transcript", "other"]
CHANNELS: tuple[str, ...] = ("app", "web", "phone transcript", "other")
#: The target spec's provider for every ingested run: `ingested:<product>`.
INGESTED = "ingested"


class Attachment(Strict):
    """A screenshot, recording or other file the collector named, by hash (never copied)."""

    path: str
    kind: Literal["screenshot", "audio", "other"]
    sha256: str
    bytes: int


class Provenance(Strict):
    """Who collected the conversation, when, from what, and how."""

    product: str = Field(min_length=1, description="The product as the person met it")
    product_version: str | None = Field(default=None, description="Version or model the product showed")
    collected_by: str | None = None
    collected_at: str | None = Field(default=None, description="Date (or date and time) of collection")
    channel: Channel = "web"
    #: The responder is a human counselor (a transcribed call), not a chatbot: the report sets the
    #: set beside the study's published counselor rows as "counselors, coded by these judges".
    counselor: bool = False
    attachments: list[Attachment] = Field(default_factory=list)


class TurnMatch(Strict):
    """A user turn matched to a scripted turn: by its id, or by its text (with the similarity)."""

    turn_id: str
    by: Literal["id", "text"]
    score: float = Field(ge=0, le=1, description="1 for an id or an exact text match")
    asked: str = Field(description="The question as the person asked it, verbatim")
    asked_at: str | None = Field(default=None, description="The question's timestamp, as the file gave it")
    answered_at: str | None = Field(default=None, description="The first answer's timestamp")


class ExtraTurn(Strict):
    """A turn that matched no scripted question, kept verbatim."""

    turn_id: str
    role: Literal["user", "assistant"]
    text: str
    at: str | None = Field(default=None, description="The turn's timestamp, as the file gave it")
    #: The scripted turn whose question group codes this exchange (a follow-up after a scripted
    #: question, as the harness codes a persona reply); None when it is not coded.
    coded_with: str | None = None


class IngestSource(Strict):
    """One ingested conversation: its source, provenance and how its turns were matched."""

    conversation_id: str
    file: str
    file_sha256: str
    format: Literal["csv", "jsonl", "markdown"]
    line: int = Field(description="Where the conversation starts in the file")
    provenance: Provenance
    matched: list[TurnMatch] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list, description="Scripted turns never asked")
    unanswered: list[str] = Field(default_factory=list, description="Asked, with no answer recorded")
    extra: list[ExtraTurn] = Field(default_factory=list)
