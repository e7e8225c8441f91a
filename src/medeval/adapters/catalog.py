"""The capability and lifecycle table (`data/models.json`): which sampling knobs each model family
accepts, how it does structured output, what the specification's model names resolve to, and
when each known model retires. Data, not code, so a date change is a one-line edit."""

from __future__ import annotations

import warnings
from datetime import date
from functools import cache
from importlib.resources import files
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from medeval.adapters.base import ChatRequest, ModelAPI
from medeval.adapters.registry import parse_spec
from medeval.errors import ConfigError


class ModelDeprecationWarning(UserWarning):
    """A deprecated model that still works; a UserWarning so Python shows it by default."""


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProviderInfo(_Data):
    sdk: str
    key_variables: tuple[str, ...]
    key_optional: bool = False
    endpoint_variable: str
    default_endpoint: str | None


class Family(_Data):
    provider: str
    family: str
    match: tuple[str, ...]
    temperature: bool
    top_p: bool
    seed: bool
    structured_output: Literal["json_schema", "output_config", "response_json_schema", "grpc_json_schema"]
    api: Literal["chat_completions", "responses", "messages", "generate_content", "grpc_chat"]
    max_tokens_field: str
    reasoning_effort: bool = False
    note: str = ""

    def accepts(self, knob: str) -> bool:
        return bool(getattr(self, knob))


class ModelEntry(_Data):
    name: str
    provider: str
    api_id: str
    aliases: tuple[str, ...] = ()
    deprecated_on: date | None = None
    retires_on: date | None = None
    #: Wording for a date the sources only give approximately; `retires_on` is then its latest day.
    date_text: str | None = None
    successors: tuple[str, ...] = ()
    note: str = ""

    def names(self) -> set[str]:
        return {self.name.lower(), self.api_id.lower(), *(a.lower() for a in self.aliases)}

    def status(self, today: date) -> Literal["active", "deprecated", "retired"]:
        if self.retires_on is not None and today >= self.retires_on:
            return "retired"
        if self.retires_on is not None or self.deprecated_on is not None:
            return "deprecated"
        return "active"

    def retirement_text(self) -> str:
        return self.date_text or f"on {self.retires_on}"


class Catalog(_Data):
    as_of: date
    sources: str
    providers: dict[str, ProviderInfo]
    families: tuple[Family, ...]
    models: tuple[ModelEntry, ...] = Field(default=())


@cache
def catalog() -> Catalog:
    text = files("medeval.data").joinpath("models.json").read_text(encoding="utf-8")
    return Catalog.model_validate_json(text)


def provider_info(provider: str) -> ProviderInfo:
    return catalog().providers[provider]


def find_model(provider: str, model: str) -> ModelEntry | None:
    wanted = model.lower()
    for entry in catalog().models:
        if entry.provider == provider and wanted in entry.names():
            return entry
    return None


def family_for(provider: str, model: str) -> Family:
    """The family whose longest `match` prefix fits the model id (the resolved API id)."""
    model_id = wire_model_id(provider, model).lower()
    best: tuple[int, Family] | None = None
    for family in catalog().families:
        if family.provider != provider:
            continue
        for prefix in family.match:
            if model_id.startswith(prefix.lower()) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), family)
    if best is None:
        raise ConfigError(f"no capability family for {provider}:{model} in models.json; add one")
    return best[1]


def wire_model_id(provider: str, model: str) -> str:
    """The id to send: a specification name (gpt-4.1, claude-3.5-sonnet...) maps to its API id;
    anything else, including a dated snapshot, is sent as given."""
    entry = find_model(provider, model)
    if entry is not None and model.lower() == entry.name.lower():
        return entry.api_id
    return model


def canonical_model_id(spec: str) -> tuple[str, str]:
    """(provider, canonical id) of a spec, aliases and snapshots folded together, so that
    `anthropic:claude-3.5-sonnet` and `anthropic:claude-3-5-sonnet-20241022` are one model."""
    provider, model = parse_spec(spec)
    entry = find_model(provider, model)
    return provider, (entry.api_id if entry is not None else model).lower()


def check_lifecycle(provider: str, model: str, today: date | None = None) -> ModelEntry | None:
    """Refuse a retired model (ConfigError naming the date and successor) and warn about a
    deprecated one. Called when an adapter is created, before any call."""
    entry = find_model(provider, model)
    if entry is None:
        return None
    today = today or date.today()
    status = entry.status(today)
    successors = " or ".join(entry.successors) or "a current model"
    if status == "retired":
        raise ConfigError(
            f"{provider}:{model} ({entry.api_id}) was retired {entry.retirement_text()}; "
            f"use {provider}:{successors.replace(' or ', f' or {provider}:')} instead"
        )
    if status == "deprecated":
        warnings.warn(
            f"{provider}:{model} is deprecated and stops working {entry.retirement_text()}; "
            f"plan to move to {successors}",
            ModelDeprecationWarning,
            stacklevel=2,
        )
    return entry


def filter_sampling(request: ChatRequest, family: Family) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split the requested sampling settings into what will be sent and what is dropped (with
    the reason). max_output_tokens is always sent; the adapter supplies a default if needed."""
    sent: dict[str, Any] = {}
    dropped: dict[str, Any] = {}
    requested: dict[str, Any] = {
        "temperature": request.sampling.temperature,
        "top_p": request.sampling.top_p,
        "seed": request.seed,
    }
    for knob, value in requested.items():
        if value is None:
            continue
        if family.accepts(knob):
            sent[knob] = value
        else:
            dropped[knob] = {
                "value": value,
                "reason": f"{family.provider} family {family.family!r} does not accept {knob}: {family.note}",
            }
    effort = request.sampling.reasoning_effort
    if effort is not None:
        if family.reasoning_effort:
            sent["reasoning_effort"] = effort
        else:
            dropped["reasoning_effort"] = {
                "value": effort,
                "reason": f"{family.provider} family {family.family!r} takes no reasoning effort setting",
            }
    if request.sampling.max_output_tokens is not None:
        sent["max_output_tokens"] = request.sampling.max_output_tokens
    return sent, dropped


class CatalogModel(ModelAPI):
    """An adapter whose model the catalog describes: the lifecycle is checked (a retired model is
    refused before any call), and the API id and capability family are resolved once. Built from
    the spec and the environment alone, so a call worker builds the same one."""

    worker_safe = True

    def __init__(self, model: str, *, timeout: float, today: date | None = None) -> None:
        super().__init__(model)
        check_lifecycle(self.provider, model, today)
        self.info = provider_info(self.provider)
        self.wire_model = wire_model_id(self.provider, model)
        self.family = family_for(self.provider, model)
        self.timeout = timeout
