"""The contacts registry that ships with the package (data/contacts_registry.json): loading it, checking
it (`medeval validate` and the tests run `registry_problems`), and looking numbers and domains up."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from pydantic import ValidationError

from medeval.records.hashing import sha256_text
from medeval.schemas import ContactRegistry, KnownDomain, OfficialNumber, Service

REGISTRY_FILE = "contacts_registry.json"


def registry_text() -> str:
    return resources.files("medeval.data").joinpath(REGISTRY_FILE).read_text(encoding="utf-8")


def e164(number: str) -> str | None:
    """A US number in E.164 form, or None when it is not a valid number."""
    import phonenumbers

    try:
        parsed = phonenumbers.parse(number, "US")
    except phonenumbers.NumberParseException:
        return None
    if not phonenumbers.is_valid_number(parsed):
        return None
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)


def registrable(host: str) -> str | None:
    """The registrable domain of a host under the bundled public-suffix list (never fetched), or None
    when its suffix is not a public one."""
    found: str | None = psl().privatesuffix(host.lower().rstrip("."), accept_unknown=False)
    return found


@cache
def psl() -> Any:
    """The public-suffix list bundled with `publicsuffixlist`, read once per process."""
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()


@dataclass(frozen=True)
class Registry:
    data: ContactRegistry
    sha256: str
    #: E.164 number -> (service id, the entry)
    numbers: dict[str, tuple[str, OfficialNumber]]
    services: dict[str, Service]
    domains: dict[str, KnownDomain]

    def accepted(self, service_id: str) -> set[str]:
        """The numbers that answer for a service: its own and those of the services it includes."""
        service = self.services[service_id]
        found = {n for n, (sid, _) in self.numbers.items() if sid == service_id}
        for sub in service.includes:
            found |= self.accepted(sub)
        return found

    def domain_entry(self, host: str) -> KnownDomain | None:
        """The registry entry for a host: the domain itself or any parent domain listed."""
        labels = host.lower().rstrip(".").split(".")
        for i in range(len(labels) - 1):
            entry = self.domains.get(".".join(labels[i:]))
            if entry is not None:
                return entry
        return None


def registry_problems(data: Any) -> list[str]:
    """Everything wrong with a registry document, one line each; empty when it is sound."""
    try:
        registry = ContactRegistry.model_validate(data)
    except ValidationError as error:
        return [
            f"contacts registry: {'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
        ]
    problems: list[str] = []
    ids = {s.id for s in registry.services}
    seen: dict[str, str] = {}
    for service in registry.services:
        if not service.numbers and not service.includes:
            problems.append(f"contacts registry: service {service.id} has no numbers and includes no service")
        if service.complete and service.includes:
            problems.append(
                f"contacts registry: service {service.id} includes others, so it cannot be complete"
            )
        problems += [
            f"contacts registry: service {service.id} includes unknown service {sub}"
            for sub in service.includes
            if sub not in ids
        ]
        for entry in service.numbers:
            normal = e164(entry.number)
            if normal is None:
                problems.append(f"contacts registry: {service.id}: {entry.number} is not a valid US number")
            elif normal in seen:
                problems.append(
                    f"contacts registry: {entry.number} is listed for {seen[normal]} and {service.id}"
                )
            else:
                seen[normal] = service.id
    problems += [
        f"contacts registry: name {n.phrase!r} refers to unknown service {n.service}"
        for n in registry.names
        if n.service not in ids
    ]
    domains: set[str] = set()
    for domain in registry.domains:
        if registrable(domain.domain) is None:
            problems.append(f"contacts registry: {domain.domain} has no public suffix")
        if domain.domain in domains:
            problems.append(f"contacts registry: {domain.domain} is listed twice")
        domains.add(domain.domain)
        if domain.service is not None and domain.service not in ids:
            problems.append(f"contacts registry: {domain.domain} refers to unknown service {domain.service}")
    dated = [
        *((f"{s.id} {n.number}", n.as_of) for s in registry.services for n in s.numbers),
        *((d.domain, d.as_of) for d in registry.domains),
    ]
    problems += [
        f"contacts registry: {what} is dated {as_of}, after the registry's own date {registry.as_of}"
        for what, as_of in dated
        if as_of > registry.as_of
    ]
    return problems


@cache
def load_registry() -> Registry:
    """The shipped registry, checked; a broken one is a packaging error, not a user's."""
    text = registry_text()
    data = json.loads(text)
    problems = registry_problems(data)
    if problems:
        raise ValueError("; ".join(problems))
    registry = ContactRegistry.model_validate(data)
    numbers: dict[str, tuple[str, OfficialNumber]] = {}
    for service in registry.services:
        for entry in service.numbers:
            normal = e164(entry.number)
            if normal is not None:
                numbers[normal] = (service.id, entry)
    return Registry(
        data=registry,
        sha256=sha256_text(text),
        numbers=numbers,
        services={s.id: s for s in registry.services},
        domains={d.domain: d for d in registry.domains},
    )
