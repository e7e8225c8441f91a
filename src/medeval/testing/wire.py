"""What the loopback servers and their dialects share: the request as the fake saw it, scripted
faults, a dialect's reply, the provider-neutral prompt, and the default answers (a fixed Medicare
answer for a target, schema-valid JSON for a judge)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from medeval.adapters.base import ChatRequest, Message, OutputSchema

if TYPE_CHECKING:
    from medeval.testing.prompt_cache import PromptCache

SNAPSHOT = "2026-11-01"
TARGET_ANSWER = (
    "Medicare Part B covers doctor visits and outpatient care. "
    "You can sign up during your Initial Enrollment Period around your 65th birthday. "
    "If you have coverage from current employment you may be able to delay Part B without a penalty."
)
#: The page a loopback server's search tool "finds" when a request turns search on: every
#: provider's dialect cites it in its own shape (nothing is searched; no page is fetched).
SEARCH_SOURCE = ("https://www.medicare.gov/basics/get-started-with-medicare", "Get started with Medicare")
SECRET_HEADERS = frozenset({"authorization", "x-api-key", "x-goog-api-key", "api-key", "proxy-authorization"})
REDACTED = "<redacted>"


class ReceivedRequest(BaseModel):
    """One request as the fake saw it; secrets are redacted before it is stored."""

    model_config = ConfigDict(extra="forbid")

    index: int
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: Any = None
    #: Which header carried the expected key ("authorization", "x-api-key"...), when one did.
    key_header: str | None = None
    #: The body's bytes, for dialects that receive something other than one JSON document (a
    #: JSONL file upload); left out of dumps.
    raw: bytes | None = Field(default=None, exclude=True, repr=False)


class Fault(BaseModel):
    """A scripted failure. `delay` applies before any reply (a slow response)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["status", "malformed", "slow"] = "status"
    status: int = 500
    message: str = "injected fault"
    retry_after: str | None = None
    delay: float = 0.0
    #: Further reply headers (a provider's rate-limit state, say).
    headers: dict[str, str] = Field(default_factory=dict)

    @classmethod
    def rate_limited(cls, retry_after: str | None = "0") -> Fault:
        return cls(status=429, message="Rate limit reached; slow down", retry_after=retry_after)

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        return cls(status=status, message=f"injected {status}")

    @classmethod
    def unavailable(cls) -> Fault:
        return cls(status=503, message="The service is temporarily unavailable")

    @classmethod
    def overloaded(cls) -> Fault:
        return cls(status=529, message="Overloaded")

    @classmethod
    def error(cls, status: int, message: str) -> Fault:
        return cls(status=status, message=message)

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        """Answer normally, but only after `seconds` (longer than the client's timeout)."""
        return cls(kind="slow", status=200, delay=seconds)

    @classmethod
    def malformed(cls) -> Fault:
        return cls(kind="malformed", status=200, message="malformed body")


class Reply(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: int = 200
    body: Any = None
    text: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)


class Prompt(BaseModel):
    """What a dialect parsed out of a request, in provider-neutral form."""

    model_config = ConfigDict(extra="forbid")

    model: str
    system: str = ""
    messages: list[Message]
    json_schema: dict[str, Any] | None = None
    schema_name: str | None = None
    seed: int | None = None


Responder = Callable[[Prompt], Awaitable[str]]


class Server(Protocol):
    """What a dialect's handler uses of the loopback server (loopback.LoopbackServer), named here so
    the server and its dialects do not import each other."""

    responder: Responder
    fingerprint: str
    unknown_models: set[str]
    prompt_cache: PromptCache

    def served_model(self, requested: str) -> str: ...


Handler = Callable[[ReceivedRequest, Server], Awaitable[Reply]]


@dataclass(frozen=True)
class Dialect:
    """A provider wire format: how to answer a request and how that provider spells an error."""

    name: str
    handle: Handler
    error_body: Callable[[int, str], Any]
    #: Requests that carry their own credential instead of the key (path, query) -> True, such as
    #: the second leg of a resumable upload, whose session URL is the credential.
    keyless: Callable[[str, str], bool] | None = None


def judge_schema_name(schema: dict[str, Any] | None, given: str | None = None) -> str | None:
    """The harness's schema name, from the wire name or else from the schema's top-level fields
    (Anthropic and Gemini send a schema without a name)."""
    if given:
        return given
    props = set((schema or {}).get("properties", {}))
    for name, marker in (
        ("extraction", "claims"),
        ("verification", "verdicts"),
        ("adjudication", "decisions"),
        ("paraphrase", "turns"),
    ):
        if marker in props:
            return name
    return None


async def default_responder(prompt: Prompt) -> str:
    """Schema-valid judge JSON for structured requests (the offline FakeJudge's logic); a fixed
    Medicare answer otherwise."""
    if prompt.json_schema is None:
        return TARGET_ANSWER
    from medeval.fakes.provider import FakeJudge

    name = judge_schema_name(prompt.json_schema, prompt.schema_name) or "unknown"
    request = ChatRequest(
        system=prompt.system,
        messages=prompt.messages,
        seed=prompt.seed,
        output_schema=OutputSchema(name=name, json_schema=prompt.json_schema),
    )
    return (await FakeJudge("judge").generate(request)).text


def tokens(text: str) -> int:
    return max(1, len(text) // 4)
