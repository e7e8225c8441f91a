"""Grounding a model extractor's claims in the answer: where a quote stands, whether it is a real
passage, whether the restatement is about it, and which checkable sentences no claim covered.

The harness, not the model, decides all of this, so an extractor that omits, softens or invents a
statement cannot hide it from the verifiers."""

from __future__ import annotations

import re

from medeval.agents import rules
from medeval.schemas import Claim, Span, normalise_space

# A quote shorter than this must be the whole answer ("Yes."): one or two words can be found in
# almost any answer and prove nothing about where a claim comes from.
MIN_QUOTE_WORDS = 3
UNRELATED = "text_unrelated_to_quote"
UNCOVERED = "uncovered_sentence"

_WORDS = re.compile(r"\w+")
_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?|[^\W\d_]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "may",
        "me",
        "might",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "she",
        "should",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "too",
        "up",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yes",
        "also",
        "just",
        "about",
        "only",
        "more",
        "most",
        "other",
        "some",
        "such",
        "any",
        "all",
        "each",
        "very",
    ]
)
# What makes a sentence worth judging on its own: a figure, a date or deadline, a rule, a negation.
_FIGURE = re.compile(r"\d|\b(?:percent|half|twice|double|free)\b", re.I)
_DATE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d|"
    r"\b(?:january|february|march|april|june|july|august|september|october|november|december)\b|"
    r"\b(?:days?|weeks?|months?|years?|annual(?:ly)?|birthday|deadline|period)\b",
    re.I,
)
_DEADLINE = re.compile(r"\b(?:before|after|within|until|by the end|no later than|late|penalt\w*)\b", re.I)
_RULE = re.compile(
    r"\b(?:must|required?|requires|have to|has to|need to|needs to|only|cannot|can|eligible|"
    r"eligibility|qualif\w*|covers?|covered|coverage|pays?|paid|costs?|allowed|allows?|entitled|"
    r"guarantee[sd]?|automatic(?:ally)?|always|penalty|premium|deductible)\b",
    re.I,
)
_NEGATION = re.compile(r"\b(?:not|no|never|none|neither|nor|without|nothing)\b|n't\b", re.I)


def _whole_words(text: str, start: int, end: int) -> bool:
    """The passage neither starts nor ends inside a word or a number ("$20" is not in "$202")."""
    if start > 0 and text[start].isalnum() and text[start - 1].isalnum():
        return False
    return not (end < len(text) and text[end - 1].isalnum() and text[end].isalnum())


def locate_quote(text: str, quote: str, start: int = 0) -> tuple[int, int] | None:
    """The span of `quote` in `text`: its exact occurrence (from `start`, then from the top) before
    any match ignoring case and runs of whitespace; never a match that cuts a word or figure."""
    quote = quote.strip()
    if not quote:
        return None
    origins = (start, 0) if start else (0,)
    for origin in origins:
        index = text.find(quote, origin)
        while index >= 0:
            if _whole_words(text, index, index + len(quote)):
                return index, index + len(quote)
            index = text.find(quote, index + 1)
    pattern = re.compile(r"\s+".join(re.escape(part) for part in quote.split()), re.I)
    for origin in origins:
        for match in pattern.finditer(text, origin):
            if _whole_words(text, match.start(), match.end()):
                return match.start(), match.end()
    return None


def is_passage(text: str, spans: list[Span]) -> bool:
    """At least MIN_QUOTE_WORDS words, or, when shorter, the whole answer or one whole sentence of
    it ("Generally, no." answering a yes-or-no question)."""
    passage = " ".join(text[s.start : s.end] for s in spans)
    if len(_WORDS.findall(passage)) >= MIN_QUOTE_WORDS:
        return True
    if normalise_space(passage).casefold() == normalise_space(text).casefold():
        return True
    if len(spans) != 1:
        return False
    start, end = _trimmed(text, spans[0])
    return (start, end) in set(rules.split_sentences(text))


def _trimmed(text: str, span: Span) -> tuple[int, int]:
    passage = text[span.start : span.end]
    start = span.start + len(passage) - len(passage.lstrip())
    return start, start + len(passage.strip())


def content_words(text: str) -> set[str]:
    words = set()
    for token in _TOKEN.findall(text.casefold()):
        if token[0].isdigit():
            words.add(token.replace(",", ""))
        elif len(token) > 2 and token not in _STOP:
            words.add(token[:-1] if token.endswith("s") and len(token) > 3 else token)
    return words


def unrelated(claim_text: str, passage: str) -> bool:
    """The restatement shares no content word (or figure) with the passage it claims to rest on."""
    return not content_words(claim_text) & content_words(passage)


def checkable(sentence: str) -> bool:
    return any(p.search(sentence) for p in (_FIGURE, _DATE, _DEADLINE, _RULE, _NEGATION))


def _covered(start: int, end: int, spans: list[Span], text: str) -> bool:
    """A sentence is covered when some claim quotes part of it and every figure in it is quoted."""
    inside = [s for s in spans if s.start < end and s.end > start]
    if not inside:
        return False
    for figure in re.finditer(r"\d[\d,]*(?:\.\d+)?", text[start:end]):
        a, b = start + figure.start(), start + figure.end()
        if not any(s.start <= a and b <= s.end for s in inside):
            return False
    return True


def uncovered_sentences(text: str, claims: list[Claim], turn_id: str) -> list[Claim]:
    """Checkable sentences no claim covers, as claims of their own, judged verbatim."""
    spans = [s for c in claims for s in c.quote_spans]
    out: list[Claim] = []
    for start, end in rules.split_sentences(text):
        sentence = text[start:end]
        if checkable(sentence) and not _covered(start, end, spans, text):
            out.append(
                Claim(
                    claim_id=f"{turn_id}.u{len(out) + 1}",
                    turn_id=turn_id,
                    text=sentence,
                    type="factual",
                    confidence="medium",
                    verifiable=True,
                    quote_spans=[Span(start=start, end=end)],
                    origin=UNCOVERED,
                )
            )
    return out
