"""The one contract every model provider implements.

A `ChatRequest` says what to ask; a `ChatResponse` says what came back and, as importantly for
auditability, what was actually sent (sampling settings after capability filtering) and which model
actually served the call.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from medeval.schemas.records import Cited


class _Contract(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Message(_Contract):
    role: Literal["user", "assistant"]
    content: str


ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]
REASONING_EFFORTS: tuple[str, ...] = ("none", "minimal", "low", "medium", "high", "xhigh")


class Sampling(_Contract):
    """Requested sampling settings; None means "do not send"."""

    temperature: float | None = None
    top_p: float | None = None
    max_output_tokens: int | None = None
    #: Sent only to model families whose catalog entry accepts it; otherwise recorded as dropped.
    reasoning_effort: ReasoningEffort | None = None

    @model_serializer(mode="wrap")
    def _omit_unset_effort(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Left out when unset, so requests (and the cache keys hashed from them) made before the
        # field existed keep their exact form.
        data: dict[str, Any] = handler(self)
        if data.get("reasoning_effort") is None:
            data.pop("reasoning_effort", None)
        return data


class OutputSchema(_Contract):
    """A JSON schema the response must follow (judge roles)."""

    name: str
    json_schema: dict[str, Any]


class ChatRequest(_Contract):
    system: str
    messages: list[Message] = Field(min_length=1)
    sampling: Sampling = Field(default_factory=Sampling)
    seed: int | None = None
    output_schema: OutputSchema | None = None
    #: Routing hints (role, scenario, turn) for logs and offline fakes; never sent to a provider.
    metadata: dict[str, str] = Field(default_factory=dict)
    #: Where the stable prefix ends: this many characters of the first message's content repeat,
    #: after the system prompt, in every call of its kind (a judge's answer key). Adapters of
    #: providers with explicit prompt caching mark a cache breakpoint there (Anthropic); None: no
    #: breakpoint at all, 0: the system prompt only.
    stable_prefix: int | None = Field(default=None, ge=0)
    #: Turn on the provider's own web search tool for this call (a search-enabled target only;
    #: `--web-search`). The harness itself never fetches a page.
    web_search: bool = False

    @model_serializer(mode="wrap")
    def _omit_unset_prefix(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Left out when unset, so requests (and the cache keys hashed from them) made before the
        # fields existed keep their exact form.
        data: dict[str, Any] = handler(self)
        if data.get("stable_prefix") is None:
            data.pop("stable_prefix", None)
        if not data.get("web_search"):
            data.pop("web_search", None)
        return data

    def split_first_message(self) -> tuple[str, str]:
        """The first message's content cut where the stable prefix ends ("" before it if unset)."""
        content = self.messages[0].content
        cut = min(self.stable_prefix or 0, len(content))
        return content[:cut], content[cut:]


class Usage(_Contract):
    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    #: Input tokens read from the provider's prompt cache: part of `input_tokens`, priced lower.
    cached_tokens: int | None = None
    #: Input tokens written to the prompt cache (Anthropic reports them; priced higher): part of
    #: `input_tokens` too. Left out of the record when unreported.
    cache_write_tokens: int | None = None

    @model_serializer(mode="wrap")
    def _omit_unset_write(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("cache_write_tokens") is None:
            data.pop("cache_write_tokens", None)
        return data


class RateLimits(_Contract):
    """What the provider's rate-limit headers said when the call came back (OpenAI, Anthropic).
    Resets are in seconds from then."""

    requests_limit: int | None = None
    requests_remaining: int | None = None
    requests_reset_s: float | None = None
    tokens_limit: int | None = None
    tokens_remaining: int | None = None
    tokens_reset_s: float | None = None


class ChatResponse(_Contract, Cited):
    text: str
    requested_model: str
    served_model: str | None = None
    fingerprint: str | None = None
    response_id: str | None = None
    request_id: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_ms: float = 0.0
    finish_reason: str | None = None
    sampling_sent: dict[str, Any] = Field(default_factory=dict)
    sampling_dropped: dict[str, Any] = Field(default_factory=dict)
    raw: dict[str, Any] = Field(default_factory=dict)
    #: For the limiter, and recorded under the call's `pacing`. Left out of dumps, so the cached
    #: response never replays an old reading of the provider's budget.
    rate_limits: RateLimits | None = Field(default=None, exclude=True)
    # `citations` (Cited): the sources a search-enabled call's answer cites, read from `raw`.


class ProviderError(Exception):
    """A failed provider call. `retryable` tells the one retry policy whether to try again."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | str | None = None,
        retry_after: float | None = None,
        request_id: str | None = None,
        rate_limits: RateLimits | None = None,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.request_id = request_id
        self.rate_limits = rate_limits


class ModelAPI(ABC):
    """Base class of every provider adapter. One instance serves one `provider:model` spec."""

    provider: ClassVar[str]
    #: Environment variables any one of which supplies the key; empty when no key is needed.
    key_variables: ClassVar[tuple[str, ...]] = ()
    #: Whether another process builds the same adapter from the spec and the environment alone,
    #: so its calls may be made in a call worker (adapters/workers).
    worker_safe: ClassVar[bool] = False
    #: Whether the provider has a search tool this adapter sends on `ChatRequest.web_search` (and
    #: reads the citations of). A target asked to search on an adapter without one is refused
    #: before any call.
    web_search: ClassVar[bool] = False

    def __init__(self, model: str) -> None:
        self.model = model

    @property
    def spec(self) -> str:
        return f"{self.provider}:{self.model}"

    @abstractmethod
    async def generate(self, request: ChatRequest) -> ChatResponse:
        """Make one call. Raise ProviderError on failure; never retry here."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release network resources."""

    def settings(self) -> dict[str, Any]:
        """Non-secret configuration worth recording in the manifest (base URL, API version...)."""
        return {}


def served_differs(requested: str, served: str | None) -> bool:
    """True when the provider served another model than the one asked for.

    A dated snapshot of the requested alias (gpt-4.1 -> gpt-4.1-2025-04-14) is the same model;
    a redirect to a successor is not. Unknown (None) is not counted as a difference."""
    if not served:
        return False
    requested, served = requested.lower(), served.lower().removeprefix("models/")
    return served != requested and not served.startswith(requested + "-")
