"""Reading the sources a provider's own search tool cites out of its reply, as the provider gave
them: URL, title, and where it says so, the span of the answer each supports. One reader per
provider's wire format, on the reply's JSON, so they are tested without a network or an SDK.

Offsets are into the answer text the adapter returns (the concatenation of the reply's text parts),
so a span can be shown against the stored answer. Readers never follow a link."""

from __future__ import annotations

from typing import Any

from medeval.schemas.records import Citation

#: What each provider's search tool is called in a request (recorded with the call's settings).
OPENAI_TOOL: dict[str, Any] = {"type": "web_search"}
ANTHROPIC_TOOL: dict[str, Any] = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}


def _span(start: Any, end: Any, offset: int) -> tuple[int | None, int | None]:
    if isinstance(start, int) and isinstance(end, int) and 0 <= start <= end:
        return start + offset, end + offset
    return None, None


def openai_citations(payload: dict[str, Any]) -> list[Citation]:
    """The Responses API: `url_citation` annotations on each `output_text` part, indexed within the
    part; the answer is every message item's output_text parts joined (as openai_replies reads it)."""
    found: list[Citation] = []
    offset = 0
    for item in payload.get("output") or []:
        if item.get("type") != "message":
            continue
        for part in item.get("content") or []:
            if part.get("type") != "output_text" or part.get("text") is None:
                continue
            for note in part.get("annotations") or []:
                if note.get("type") == "url_citation" and note.get("url"):
                    start, end = _span(note.get("start_index"), note.get("end_index"), offset)
                    found.append(
                        Citation(url=str(note["url"]), title=note.get("title"), start=start, end=end)
                    )
            offset += len(part["text"])
    return found


def anthropic_citations(payload: dict[str, Any]) -> list[Citation]:
    """The Messages API: each text block may carry `web_search_result_location` citations; the span
    is the block's own place in the joined text."""
    found: list[Citation] = []
    offset = 0
    for block in payload.get("content") or []:
        if block.get("type") != "text":
            continue
        text = str(block.get("text") or "")
        for cite in block.get("citations") or []:
            if cite.get("type") == "web_search_result_location" and cite.get("url"):
                found.append(
                    Citation(
                        url=str(cite["url"]),
                        title=cite.get("title"),
                        start=offset,
                        end=offset + len(text),
                        cited_text=cite.get("cited_text"),
                    )
                )
        offset += len(text)
    return found


def gemini_citations(payload: dict[str, Any], text: str) -> list[Citation]:
    """Grounding with Google Search: `groundingMetadata.groundingChunks[].web` are the sources;
    `groundingSupports[]` tie a segment of the answer to some of them. Segment offsets count UTF-8
    bytes, so a span is placed by the segment's own text where given, else converted from bytes.
    A source no support points to is still listed, without a span."""
    candidates = payload.get("candidates") or []
    metadata = (candidates[0].get("groundingMetadata") if candidates else None) or {}
    chunks = [chunk.get("web") or {} for chunk in metadata.get("groundingChunks") or []]
    encoded = text.encode("utf-8")
    found: list[Citation] = []
    supported: set[int] = set()
    for support in metadata.get("groundingSupports") or []:
        segment = support.get("segment") or {}
        start, end = _segment_span(segment, text, encoded)
        for index in support.get("groundingChunkIndices") or []:
            if isinstance(index, int) and 0 <= index < len(chunks) and chunks[index].get("uri"):
                supported.add(index)
                web = chunks[index]
                found.append(Citation(url=str(web["uri"]), title=web.get("title"), start=start, end=end))
    for index, web in enumerate(chunks):
        if index not in supported and web.get("uri"):
            found.append(Citation(url=str(web["uri"]), title=web.get("title")))
    return found


def _segment_span(segment: dict[str, Any], text: str, encoded: bytes) -> tuple[int | None, int | None]:
    quoted = segment.get("text")
    if isinstance(quoted, str) and quoted:
        at = text.find(quoted)
        if at >= 0:
            return at, at + len(quoted)
    start, end = segment.get("startIndex", 0), segment.get("endIndex")
    if isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(encoded):
        return len(encoded[:start].decode("utf-8", "ignore")), len(encoded[:end].decode("utf-8", "ignore"))
    return None, None


def xai_citations(urls: list[str], inline: list[dict[str, Any]]) -> list[Citation]:
    """xAI's search tool: the response's list of cited URLs, and where it sends them, inline
    citations with their place in the answer (`start_index`/`end_index`, `web_citation.url`)."""
    found: list[Citation] = []
    placed: set[str] = set()
    for cite in inline:
        url = (cite.get("webCitation") or cite.get("web_citation") or {}).get("url")
        if url:
            # protobuf's JSON form leaves a zero out: a citation from the first character has no start.
            end = cite.get("endIndex", cite.get("end_index"))
            start = cite.get("startIndex", cite.get("start_index", 0 if end is not None else None))
            s, e = _span(_int(start), _int(end), 0)
            found.append(Citation(url=str(url), start=s, end=e))
            placed.add(str(url))
    found += [Citation(url=url) for url in urls if url and url not in placed]
    return found


def _int(value: Any) -> int | None:
    # protobuf's JSON form writes 64-bit integers as strings.
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None
