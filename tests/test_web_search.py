"""Search-enabled targets (issue 25): each adapter sends its provider's own search tool only when asked,
through the real SDK to a loopback server answering in that provider's documented shape, and stores
the returned citations verbatim; a run records them with the transcript and the report flags the
target. Nothing here fetches a page: the loopback servers "find" one fixed source."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from medeval.adapters.anthropic_api import AnthropicAdapter
from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI
from medeval.adapters.citations import gemini_citations, openai_citations
from medeval.adapters.google_api import GoogleAdapter
from medeval.adapters.openai_api import OpenAIAdapter
from medeval.adapters.xai_api import XAIAdapter
from medeval.scenarios.load import bundled_scenarios_dir
from medeval.testing.loopback import LoopbackServer
from medeval.testing.wire import SEARCH_SOURCE
from tests.conftest import in_process
from tests.servers.anthropic_server import ANTHROPIC
from tests.servers.gemini_server import GEMINI
from tests.servers.helpers import SECRET, chat
from tests.servers.xai_grpc import XAIServer

TODAY = date(2026, 11, 22)
URL = SEARCH_SOURCE[0]


def searching(request: ChatRequest) -> ChatRequest:
    return request.model_copy(update={"web_search": True})


def asked_then_not(subject: ModelAPI) -> tuple[ChatResponse, ChatResponse]:
    """One call with search on, one without, on one event loop (an SDK client lives on one)."""

    async def both() -> tuple[ChatResponse, ChatResponse]:
        try:
            return await subject.generate(searching(chat())), await subject.generate(chat())
        finally:
            await subject.aclose()

    return asyncio.run(both())


@pytest.fixture
def anthropic_server() -> Iterator[LoopbackServer]:
    with LoopbackServer(ANTHROPIC, api_key=SECRET) as running:
        yield running


@pytest.fixture
def gemini_server() -> Iterator[LoopbackServer]:
    with LoopbackServer(GEMINI, api_key=SECRET) as running:
        yield running


@pytest.fixture
def openai_server() -> Iterator[LoopbackServer]:
    with LoopbackServer(api_key=SECRET) as running:
        yield running


def test_openai_sends_the_hosted_search_tool_on_the_responses_api_and_reads_url_citations(
    openai_server: LoopbackServer,
) -> None:
    # gpt-4.1 is a Chat Completions family: a search-enabled call moves to the Responses API,
    # where OpenAI's web search tool lives.
    subject = OpenAIAdapter("gpt-4.1", api_key=SECRET, base_url=openai_server.base_url, today=TODAY)
    response, plain = asked_then_not(subject)
    asked, unasked = openai_server.requests
    assert asked.path.endswith("/responses") and asked.body["tools"] == [{"type": "web_search"}]
    assert unasked.path.endswith("/chat/completions") and "tools" not in unasked.body
    (citation,) = response.citations
    assert (citation.url, citation.title) == SEARCH_SOURCE
    assert (citation.start, citation.end) == (0, len(response.text))
    assert response.sampling_sent["web_search"] == "web_search"
    assert plain.citations == [] and "web_search" not in plain.sampling_sent
    # Without citations the recorded response keeps its old form.
    assert "citations" not in plain.model_dump() and "citations" in response.model_dump()


def test_anthropic_sends_the_web_search_tool_and_places_each_cited_block(
    anthropic_server: LoopbackServer,
) -> None:
    subject = AnthropicAdapter(
        "claude-sonnet-5-5", api_key=SECRET, base_url=anthropic_server.url, today=TODAY
    )
    response, _ = asked_then_not(subject)
    asked, unasked = anthropic_server.requests
    assert asked.body["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]
    assert "tools" not in unasked.body
    (citation,) = response.citations
    # The cited block is the second text block: its span starts after the first one.
    lead = "Here is what I found. "
    assert response.text.startswith(lead)
    assert (citation.start, citation.end) == (len(lead), len(response.text))
    assert citation.url == URL and citation.cited_text == "You can sign up for Medicare"


def test_gemini_sends_google_search_grounding_and_reads_supported_segments(
    gemini_server: LoopbackServer,
) -> None:
    subject = GoogleAdapter("gemini-3.8-flash", api_key=SECRET, base_url=gemini_server.url, today=TODAY)
    response, _ = asked_then_not(subject)
    asked, unasked = gemini_server.requests
    assert asked.body["tools"] == [{"googleSearch": {}}]
    assert "tools" not in unasked.body
    (citation,) = response.citations
    first = response.text.split(".")[0]
    assert (citation.url, citation.title) == SEARCH_SOURCE
    assert response.text[citation.start : citation.end] == first


def test_xai_sends_the_sdk_search_tool_and_reads_inline_and_listed_citations() -> None:
    with XAIServer(api_key=SECRET) as server:
        subject = XAIAdapter("grok-4.6", api_key=SECRET, api_host=server.host, today=TODAY)
        response, plain = asked_then_not(subject)
        asked, unasked = (call.request for call in server.calls)
    assert [tool.HasField("web_search") for tool in asked.tools] == [True]
    assert list(unasked.tools) == []
    inline, listed = response.citations
    assert (inline.url, inline.start, inline.end) == (URL, 0, len(response.text))
    assert (listed.url, listed.start) == ("https://www.ssa.gov/medicare/", None)
    assert plain.citations == []


def test_byte_offsets_of_a_gemini_segment_become_character_offsets() -> None:
    text = "Medicare’s Part B premium is $202.90. More text."
    head = "Medicare’s Part B premium is $202.90"
    payload = {
        "candidates": [
            {
                "groundingMetadata": {
                    "groundingChunks": [{"web": {"uri": "https://example.org", "title": "t"}}, {"web": {}}],
                    "groundingSupports": [
                        {
                            "segment": {"startIndex": 0, "endIndex": len(head.encode())},
                            "groundingChunkIndices": [0, 7],
                        }
                    ],
                }
            }
        ]
    }
    (citation,) = gemini_citations(payload, text)
    assert text[citation.start : citation.end] == head  # "’" is three bytes, one character


def test_openai_annotations_are_placed_across_parts() -> None:
    payload = {
        "output": [
            {"type": "web_search_call"},
            {
                "type": "message",
                "content": [
                    {"type": "output_text", "text": "abc", "annotations": []},
                    {
                        "type": "output_text",
                        "text": "defg",
                        "annotations": [
                            {"type": "url_citation", "url": "u", "start_index": 1, "end_index": 3}
                        ],
                    },
                ],
            },
        ]
    }
    (citation,) = openai_citations(payload)
    assert (citation.start, citation.end) == (4, 6)


SCENARIO = bundled_scenarios_dir() / "v1" / "ship_medicare_only.json"


def run(monkeypatch: pytest.MonkeyPatch, out: Path, *extra: str) -> int:
    targets = ["--target", "fake:accurate", "--target", "fake:outdated"]
    return in_process(
        monkeypatch, "run", "--scenario", str(SCENARIO), *targets, "--out", str(out), "--quiet", *extra
    )


def test_a_search_enabled_run_stores_citations_and_the_report_flags_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "runs"
    assert run(monkeypatch, out, "--web-search", "fake:accurate") == 0
    (directory,) = out.iterdir()
    records = [json.loads(line) for line in (directory / "results.jsonl").read_text().splitlines()]
    by_target = {r["target"]["spec"]: r for r in records if "target" in r}
    cited = [t for t in by_target["fake:accurate"]["conversation"] if t.get("citations")]
    assert cited and all(t["role"] == "assistant" for t in cited)
    assert cited[0]["citations"][0]["url"].startswith("https://www.medicare.gov/")
    assert by_target["fake:accurate"]["target"]["settings"]["web_search"] is True
    assert not any(t.get("citations") for t in by_target["fake:outdated"]["conversation"])
    assert "web_search" not in by_target["fake:outdated"]["target"]["settings"]
    assert in_process(monkeypatch, "report", str(directory)) == 0
    markdown = (directory / "report" / "report.md").read_text(encoding="utf-8")
    assert "| fake:accurate (web search) |" in markdown and "| fake:outdated |" in markdown
    assert (
        "Search-enabled (their provider's web search on; not model-only answers): fake:accurate." in markdown
    )
    page = (directory / "report" / "report.html").read_text(encoding="utf-8")
    assert "web search</span>" in page


def test_web_search_for_an_unknown_target_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "runs"
    assert run(monkeypatch, out, "--web-search", "fake:other") == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "--web-search 'fake:other' is not one of the run's targets" in line
    assert not out.exists() or list(out.iterdir()) == []


def test_a_provider_without_a_search_tool_is_refused_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_COMPATIBLE_BASE_URL", "http://127.0.0.1:9/v1")
    out = tmp_path / "runs"
    code = in_process(
        monkeypatch,
        "run",
        "--scenario",
        str(SCENARIO),
        "--target",
        "openai-compatible:llama3.1",
        "--web-search",
        "openai-compatible:llama3.1",
        "--out",
        str(out),
        "--quiet",
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "has no search tool medeval can send" in err
    assert not out.exists() or list(out.iterdir()) == []
