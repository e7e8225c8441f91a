"""Contacts and links: the registry that ships with the package, and what the offline check found in a
trial's answers (phone numbers, URLs and named official resources, each with its class)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field, field_validator

from medeval.schemas._base import Span, Strict

ContactKind = Literal["phone", "url", "resource"]
#: official_correct: an official service's number or domain, or a named official resource.
#: official_wrong_number: an official service named beside a number that is not its own.
#: non_official: a known plan or broker domain, or a look-alike of an official one.
#: unverifiable: a contact the registry cannot check (a plan's member services, a local office).
#: unknown: anything else.
ContactClass = Literal["official_correct", "official_wrong_number", "non_official", "unverifiable", "unknown"]
SourceKind = Literal["primary", "secondary"]


class Sourced(Strict):
    """Every registry entry says where it comes from and when it was read."""

    source: str = Field(min_length=10, description="Who says so, and the words that say it")
    url: str = Field(min_length=8)
    source_kind: SourceKind
    as_of: dt.date = Field(description="The date the source was read for this entry")
    published: str | None = Field(default=None, description="The source's own date, where it gives one")


class OfficialNumber(Sourced):
    number: str = Field(description="As the source prints it, e.g. 1-800-633-4227")
    label: Literal["voice", "TTY"] = "voice"


class Service(Strict):
    id: str = Field(pattern=r"^[a-z0-9_]+$")
    name: str
    owner: str
    numbers: list[OfficialNumber] = Field(default_factory=list)
    #: Services whose numbers also answer for this one (the SHIP program: each state's SHIP).
    includes: list[str] = Field(default_factory=list)
    #: Whether the registry holds every number of the service: then any other number given for it is
    #: wrong. The SHIP program in general is not complete (only some states' SHIPs are listed).
    complete: bool = True


class ServiceName(Strict):
    phrase: str = Field(min_length=2)
    service: str
    #: Whether naming it counts as citing an official resource (recorded as a `resource` finding);
    #: the bare word "Medicare" is a topic, not a resource.
    resource: bool = False


class KnownDomain(Sourced):
    domain: str = Field(pattern=r"^[a-z0-9.-]+$")
    kind: Literal["official", "plan", "broker"]
    owner: str
    service: str | None = None


class ContactRegistry(Strict):
    registry: str
    as_of: dt.date
    note: str = ""
    services: list[Service]
    names: list[ServiceName]
    domains: list[KnownDomain]
    #: Words near a number that make it plan-specific or local: listed as unverifiable here.
    plan_cues: list[str]
    local_cues: list[str]
    #: Words after a service name that make it something else ("Medicare Advantage", "Social Security
    #: benefits"): the name then names no service.
    not_a_service_after: list[str]

    @field_validator("services")
    @classmethod
    def _unique(cls, services: list[Service]) -> list[Service]:
        ids = [s.id for s in services]
        if len(ids) != len(set(ids)):
            raise ValueError("service ids must be unique")
        return services


class ContactFinding(Strict):
    turn_id: str
    origin: Literal["answer", "citation"] = "answer"
    kind: ContactKind
    text: str = Field(description="As written in the answer or citation")
    span: Span | None = Field(default=None, description="Into the answer text; None for a citation")
    normalized: str = Field(description="E.164 for a number, the host for a URL, the service id for a name")
    contact_class: ContactClass
    #: A wrong number for an official service, or a look-alike of an official domain.
    safety: bool = False
    service: str | None = Field(default=None, description="The registry service named or matched")
    expected: list[str] = Field(default_factory=list, description="The registry's numbers for the service")
    reason: str
    passage: str = Field(description="The sentence it stands in (or the citation's title)")


class ContactCheck(Strict):
    """The offline contacts check of one trial: deterministic, from the answer text and citations."""

    registry_as_of: str
    registry_sha256: str
    findings: list[ContactFinding] = Field(default_factory=list)

    @property
    def unsafe(self) -> int:
        return sum(1 for f in self.findings if f.safety)
