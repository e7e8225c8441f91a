"""Sizes: a runaway answer or extractor is judged up to documented limits, with a record of what was
cut, and the report's claim highlighter stays linear in the size of an answer."""

from __future__ import annotations

import random
from itertools import pairwise
from pathlib import Path

from markupsafe import Markup

from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI
from medeval.adapters.registry import register_provider
from medeval.engine.config import RunConfig
from medeval.engine.limits_judging import MAX_CLAIMS_PER_TURN, MAX_JUDGED_ANSWER_CHARS
from medeval.engine.orchestrator import run
from medeval.reporting.render.html import VERDICT_RANK, highlight, safe_text
from tests.engine_support import SCENARIO_001

SENTENCE = "Medicare Part B covers outpatient care and doctor visits for you. "
HUGE = SENTENCE * (3 * MAX_JUDGED_ANSWER_CHARS // len(SENTENCE))


class _Verbose(ModelAPI):
    provider = "verbose"

    async def generate(self, request: ChatRequest) -> ChatResponse:
        return ChatResponse(text=HUGE, requested_model=self.model, served_model=self.model)


def _verbose(model: str) -> ModelAPI:
    return _Verbose(model)


def test_a_huge_answer_is_judged_up_to_the_limits_and_the_cut_is_recorded(tmp_path: Path) -> None:
    register_provider("verbose", f"{__name__}:_verbose")
    config = RunConfig(scenarios=[SCENARIO_001], targets=["verbose:talker"], out=tmp_path / "runs")
    (record,) = run(config).records
    answer = next(t for t in record.conversation if t.role == "assistant")
    assert answer.text == HUGE  # the transcript keeps every character
    assert len(record.claims) == MAX_CLAIMS_PER_TURN
    assert all(span.end <= MAX_JUDGED_ANSWER_CHARS for c in record.claims for span in c.quote_spans)
    reasons = {u.item: u.reason for u in record.unscored}
    assert reasons["turn Q1: answer length"] == (
        f"the answer has {len(HUGE):,} characters; the judges saw the first {MAX_JUDGED_ANSWER_CHARS:,} "
        "(MAX_JUDGED_ANSWER_CHARS)"
    )
    assert (
        f"the first {MAX_CLAIMS_PER_TURN} were judged (MAX_CLAIMS_PER_TURN)" in reasons["turn Q1: extraction"]
    )
    assert record.status != "scored"  # a partly judged answer never passes as fully scored


def naive_highlight(text: str, claims: list[tuple[str, str, list[tuple[int, int]]]]) -> str:
    """The previous, quadratic highlighter: every piece scans every claim. The reference."""
    cuts = {0, len(text)}
    for _, _, spans in claims:
        for start, end in spans:
            if 0 <= start < end <= len(text):
                cuts.update((start, end))
    out = []
    for start, end in pairwise(sorted(cuts)):
        covering = [(d, v) for d, v, spans in claims if any(s <= start and end <= e for s, e in spans)]
        piece = str(safe_text(text[start:end]))
        if covering:
            verdict = max((v for _, v in covering), key=lambda v: VERDICT_RANK.get(v, 0))
            ids = " ".join(d for d, _ in covering)
            out.append(
                f'<mark class="v-{verdict.lower()}" data-claims="{ids}" title="{verdict}">{piece}</mark>'
            )
        else:
            out.append(piece)
    return "".join(out)


def test_the_sweep_highlighter_equals_the_reference_on_random_overlaps() -> None:
    rng = random.Random(13)
    verdicts = [*VERDICT_RANK, "PENDING"]

    def span(size: int) -> tuple[int, int]:
        a, b = sorted((rng.randint(0, size), rng.randint(0, size)))
        return a, b

    for _ in range(400):
        text = "".join(rng.choice("ab <é’&\n") for _ in range(rng.randint(0, 60)))
        claims = [
            (f"c{i}", rng.choice(verdicts), [span(len(text)) for _ in range(rng.randint(0, 3))])
            for i in range(rng.randint(0, 8))
        ]
        assert str(highlight(text, claims)) == naive_highlight(text, claims)


def test_spans_outside_the_text_are_ignored() -> None:
    assert str(highlight("abc", [("c0", "SUPPORTED", [(-1, 2), (1, 9)])])) == "abc"


def test_a_five_megabyte_answer_with_twenty_thousand_claims_is_highlighted_whole() -> None:
    text = "x" * 5_000_000
    step = len(text) // 20_000
    claims = [(f"c{i}", "SUPPORTED", [(i * step, i * step + step // 2)]) for i in range(20_000)]
    marked = highlight(text, claims)
    assert isinstance(marked, Markup)
    assert str(marked).count("<mark ") == 20_000
    assert len(str(marked)) > len(text)
