"""`medeval calibrate --probes`: re-judge a reference set under controlled perturbations
(calibration/perturb.py) and report each judge's flip rate per probe and category.

A flip is an answer whose two versions got different categories. The flip rate carries a Wilson
95% interval; a judge is flagged for a probe when the interval's lower bound is above
FLAG_ABOVE (5%): it flips more often than an unbiased judge plausibly would
(docs/methodology.md, "Judge bias probes").
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

from pydantic import BaseModel

from medeval.calibration.measures import Interval, wilson
from medeval.calibration.perturb import (
    PROBES,
    as_markdown,
    as_prose,
    padded,
    shuffled,
    with_statement,
    wrong_statement,
)
from medeval.calibration.reference import ReferenceAnswer, ReferenceSet
from medeval.calls.gateway import CallSink, Gateway
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator import NOT_A_MODEL, build_gateway
from medeval.engine.rescore import judge_answer
from medeval.review.categories import STUDY_CATEGORIES
from medeval.schemas import Scenario

FLAG_ABOVE = 0.05

#: Judges one answer to one group: (scenario, group, answer, question) -> the group's category.
Judge = Callable[[Scenario, str, str, str], Awaitable[str]]


class ProbeResult(BaseModel):
    judge: str
    probe: str
    answers: int
    flips: int
    rate: Interval
    #: Flip rate by the person's category of the answer, Incorrect first.
    by_category: dict[str, Interval]
    flagged: bool


def _versions(
    probe: str, answer: ReferenceAnswer, scenario: Scenario, seed: int
) -> tuple[tuple[Scenario, str], tuple[Scenario, str]] | None:
    text = answer.answer
    if probe == "order":
        return (scenario, text), (shuffled(scenario, seed), text)
    if probe == "length":
        return (scenario, text), (scenario, padded(text))
    if probe == "format":
        return (scenario, as_prose(text)), (scenario, as_markdown(text))
    statement = wrong_statement(scenario)
    if statement is None:
        return None
    return (scenario, with_statement(text, statement, early=True)), (
        scenario,
        with_statement(text, statement, early=False),
    )


async def probe_judge(
    reference: ReferenceSet, judge: Judge, name: str, *, seed: int = 42, concurrency: int = 16
) -> list[ProbeResult]:
    """Every probe on every answer of the set, through `judge`; identical versions judged once."""
    slots = asyncio.Semaphore(concurrency)
    seen: dict[tuple[str, str, int, str], asyncio.Task[str]] = {}

    def judged(answer: ReferenceAnswer, scenario: Scenario, text: str) -> asyncio.Task[str]:
        key = (answer.id, scenario.scenario_id, id(scenario), text)
        if key not in seen:

            async def run() -> str:
                async with slots:
                    return await judge(scenario, answer.question_group, text, answer.question)

            seen[key] = asyncio.ensure_future(run())
        return seen[key]

    pending: dict[str, list[tuple[str, asyncio.Task[str], asyncio.Task[str]]]] = {p: [] for p in PROBES}
    for index, answer in enumerate(reference.answers):
        scenario = reference.scenarios[answer.scenario_id].scenario
        for probe in PROBES:
            versions = _versions(probe, answer, scenario, seed + index)
            if versions is not None:
                (sa, ta), (sb, tb) = versions
                pending[probe].append((answer.category, judged(answer, sa, ta), judged(answer, sb, tb)))
    out = []
    for probe in PROBES:
        pairs = [(human, await a, await b) for human, a, b in pending[probe]]
        flips = sum(x != y for _, x, y in pairs)
        rate = wilson(flips, len(pairs))
        out.append(
            ProbeResult(
                judge=name,
                probe=probe,
                answers=len(pairs),
                flips=flips,
                rate=rate,
                by_category={
                    c: wilson(sum(x != y for h, x, y in pairs if h == c), sum(h == c for h, _, _ in pairs))
                    for c in STUDY_CATEGORIES
                },
                flagged=rate.low is not None and rate.low > FLAG_ABOVE,
            )
        )
    return out


def panel_judge(config: RunConfig, gateway: Gateway) -> Judge:
    counter = iter(range(1, 10**9))

    async def judge(scenario: Scenario, group: str, answer: str, question: str) -> str:
        record = await judge_answer(
            scenario, group, answer, config, gateway, item_id=f"probe-{next(counter):06d}", question=question
        )
        return next(g for g in record.groups if g.question_group == group).ship_category.value

    return judge


def sample(reference: ReferenceSet, answers: int | None, seed: int) -> ReferenceSet:
    """A seeded random subset of the set's answers (all of them when `answers` is None)."""
    if answers is None or answers >= len(reference.answers):
        return reference
    chosen = random.Random(seed).sample(range(len(reference.answers)), answers)
    return reference.model_copy(update={"answers": [reference.answers[i] for i in sorted(chosen)]})


def run_probes(reference: ReferenceSet, config: RunConfig, sink: CallSink | None = None) -> list[ProbeResult]:
    """The probes for the configured judge panel (named by its judges), through the gateway."""
    gateway = build_gateway(config, sink)
    for spec in {config.judge_spec(i) for i in range(config.judge_count)} | {config.extractor_spec()}:
        if spec not in NOT_A_MODEL:
            gateway.adapter(spec)
    name = ", ".join(dict.fromkeys(config.judge_spec(i) for i in range(config.judge_count)))

    async def go() -> list[ProbeResult]:
        try:
            return await probe_judge(
                reference,
                panel_judge(config, gateway),
                name,
                seed=config.seed,
                concurrency=config.max_concurrency,
            )
        finally:
            await gateway.aclose()

    return asyncio.run(go())
