"""`medeval calibrate`: run a judge panel over a human-coded reference set, with no target call.

Each reference answer is judged as the answer to its question group, exactly as a run judges a
target's answer, and the judges' group category is set beside the person's. The judges see only
the answer key; the person's category and rationale never reach them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import BaseModel

from medeval.calibration.reference import ReferenceAnswer, ReferenceSet
from medeval.calibration.validity import Pair, Validity, validity
from medeval.calls.gateway import CallSink, Gateway
from medeval.engine.config import RunConfig
from medeval.engine.panel import checked_gateway, judge_specs
from medeval.engine.rescore import judge_answer

REFERENCE_TARGET = "reference"
CALIBRATION_RUN = "calibrate"


class JudgedAnswer(BaseModel):
    id: str
    scenario_id: str
    question_group: str
    style: str | None
    human: str
    judges: str
    reason: str | None
    rationale: str


class Calibration(BaseModel):
    reference: Path
    reference_sha256: str
    judges: list[str]
    extractor: str
    answers: list[JudgedAnswer]
    validity: Validity


async def _judge_one(
    answer: ReferenceAnswer, index: int, reference: ReferenceSet, config: RunConfig, gateway: Gateway
) -> JudgedAnswer:
    record = await judge_answer(
        reference.scenarios[answer.scenario_id].scenario,
        answer.question_group,
        answer.answer,
        config,
        gateway,
        item_id=f"{CALIBRATION_RUN}-{index:05d}",
        question=answer.question,
    )
    group = next(g for g in record.groups if g.question_group == answer.question_group)
    return JudgedAnswer(
        id=answer.id,
        scenario_id=answer.scenario_id,
        question_group=answer.question_group,
        style=answer.style,
        human=answer.category,
        judges=group.ship_category.value,
        reason=group.reason,
        rationale=answer.rationale,
    )


async def _judge_all(reference: ReferenceSet, config: RunConfig, gateway: Gateway) -> list[JudgedAnswer]:
    slots = asyncio.Semaphore(config.max_concurrency)

    async def one(index: int, answer: ReferenceAnswer) -> JudgedAnswer:
        async with slots:
            return await _judge_one(answer, index, reference, config, gateway)

    try:
        return list(await asyncio.gather(*(one(i, a) for i, a in enumerate(reference.answers, start=1))))
    finally:
        await gateway.aclose()


def calibration_config(
    reference: ReferenceSet,
    judges: list[str],
    *,
    judge_count: int = 2,
    extractor: str | None = None,
    adjudicator: str | None = None,
    seed: int = 42,
) -> RunConfig:
    """A run configuration for judging only: no target, and nothing written beyond the calibration."""
    return RunConfig(
        scenarios=[reference.path],
        targets=[REFERENCE_TARGET],
        judges=judges,
        judge_count=judge_count,
        extractor=extractor,
        adjudicator=adjudicator,
        seed=seed,
    )


def calibrate(
    reference: ReferenceSet,
    config: RunConfig,
    *,
    sink: CallSink | None = None,
) -> Calibration:
    gateway = checked_gateway(config, [*judge_specs(config), config.extractor_spec()], sink)
    answers = asyncio.run(_judge_all(reference, config, gateway))
    pairs = [Pair(item_id=a.id, human=a.human, judges=a.judges) for a in answers]
    return Calibration(
        reference=reference.path,
        reference_sha256=reference.sha256,
        judges=judge_specs(config),
        extractor=config.extractor_spec(),
        answers=answers,
        validity=validity(pairs),
    )
