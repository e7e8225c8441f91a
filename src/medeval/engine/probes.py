"""`medeval calibrate --probes`: re-judge a reference set under controlled perturbations, one judge
at a time, and count how often each judge's category flips (calibration/probes/flips.py).

Each distinct judge given is probed as a panel of `judge_count` copies of itself (the rules coder
always, first); no target is called. Every arm of an answer is judged with the same derived seeds
as its original (the seeds follow the scenario, group and run seed, not the text), except the
repeat probe's, which is judged with another run seed, so its flip rate is the judges' own noise.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass

from medeval import __version__
from medeval.agents.extractor import RULES
from medeval.calibration.probes.family import vendor_family
from medeval.calibration.probes.flips import (
    ARMS,
    PROBES,
    AnswerArms,
    JudgeProbes,
    ProbeReport,
    probe_rate,
    self_preference,
)
from medeval.calibration.probes.keyorder import shuffled_key, wrong_statement
from medeval.calibration.probes.perturb import as_markdown, as_prose, padded, with_statement
from medeval.calibration.reference import ReferenceAnswer, ReferenceSet
from medeval.calls.gateway import CallSink, Gateway
from medeval.engine.calibrate import calibration_config
from medeval.engine.config import RunConfig
from medeval.engine.panel import checked_gateway, judge_specs
from medeval.engine.rescore import judge_answer
from medeval.records.hashing import derive_seed
from medeval.records.storage import utc_now
from medeval.schemas import Scenario


@dataclass(frozen=True)
class Arm:
    """One version of one reference answer to judge."""

    answer: ReferenceAnswer
    arm: str
    text: str
    scenario: Scenario
    claim_order: int | None = None
    reseed: bool = False


def arms_of(answer: ReferenceAnswer, scenario: Scenario, seed: int, probes: tuple[str, ...]) -> list[Arm]:
    """Every arm the chosen probes need for one answer (an arm two probes share is judged once)."""
    wanted = {arm for p in probes for arm in ARMS[p]}
    own = derive_seed(seed, "probe", answer.id)
    long = padded(answer.answer, own)
    out: list[Arm] = []
    if "original" in wanted:
        out.append(Arm(answer, "original", answer.answer, scenario))
    if "reseeded" in wanted:
        out.append(Arm(answer, "reseeded", answer.answer, scenario, reseed=True))
    if "shuffled" in wanted:
        out.append(Arm(answer, "shuffled", answer.answer, shuffled_key(scenario, own), claim_order=own))
    if "padded" in wanted:
        out.append(Arm(answer, "padded", long, scenario))
    if "prose" in wanted:
        out.append(Arm(answer, "prose", as_prose(answer.answer), scenario))
    if "markdown" in wanted:
        out.append(Arm(answer, "markdown", as_markdown(answer.answer), scenario))
    wrong = wrong_statement(scenario, answer.question_group) if "early" in wanted else None
    if wrong is not None:
        out.append(Arm(answer, "early", with_statement(long, wrong.statement, "early"), scenario))
        out.append(Arm(answer, "late", with_statement(long, wrong.statement, "late"), scenario))
    return out


async def _judge_arms(arms: list[Arm], config: RunConfig, gateway: Gateway) -> list[str]:
    slots = asyncio.Semaphore(config.max_concurrency)
    reseeded = config.model_copy(update={"seed": derive_seed(config.seed, "probe-repeat")})

    async def one(index: int, arm: Arm) -> str:
        async with slots:
            record = await judge_answer(
                arm.scenario,
                arm.answer.question_group,
                arm.text,
                reseeded if arm.reseed else config,
                gateway,
                item_id=f"probe-{index:05d}",
                question=arm.answer.question,
                claim_order=arm.claim_order,
            )
        group = next(g for g in record.groups if g.question_group == arm.answer.question_group)
        return group.ship_category.value

    try:
        return list(await asyncio.gather(*(one(i, a) for i, a in enumerate(arms, start=1))))
    finally:
        await gateway.aclose()


def probe_judge(
    reference: ReferenceSet,
    config: RunConfig,
    probes: tuple[str, ...],
    sink: CallSink | None = None,
) -> JudgeProbes:
    """Every chosen probe for one judge panel (`config`), over the whole reference set."""
    gateway = checked_gateway(config, [*judge_specs(config), config.extractor_spec()], sink)
    arms = [
        arm
        for answer in reference.answers
        for arm in arms_of(answer, reference.scenarios[answer.scenario_id].scenario, config.seed, probes)
    ]
    categories = asyncio.run(_judge_arms(arms, config, gateway))
    by_answer: dict[str, dict[str, str]] = {}
    for arm, category in zip(arms, categories, strict=True):
        by_answer.setdefault(arm.answer.id, {})[arm.arm] = category
    answers = [
        AnswerArms(
            id=a.id,
            scenario_id=a.scenario_id,
            question_group=a.question_group,
            human=a.category,
            target=a.target,
            arms=by_answer.get(a.id, {}),
        )
        for a in reference.answers
    ]
    judge = config.judge_spec(0)
    return JudgeProbes(
        judge=judge,
        panel=judge_specs(config),
        extractor=config.extractor_spec(),
        family=vendor_family(judge),
        probes=[probe_rate(p, answers) for p in PROBES if p in probes],
        self_preference=self_preference(judge, answers, rules_coder=judge == RULES),
        answers=answers,
    )


def sample(reference: ReferenceSet, answers: int | None, seed: int) -> ReferenceSet:
    """A seeded random subset of the set's answers (all of them when `answers` is None): the probes
    judge each answer up to eight times, so a model judge's first look can be a smaller one."""
    if answers is None or answers >= len(reference.answers):
        return reference
    chosen = random.Random(seed).sample(range(len(reference.answers)), answers)
    return reference.model_copy(update={"answers": [reference.answers[i] for i in sorted(chosen)]})


def probe_judges(
    reference: ReferenceSet,
    judges: list[str],
    *,
    judge_count: int = 2,
    extractor: str | None = None,
    adjudicator: str | None = None,
    seed: int = 42,
    probes: tuple[str, ...] = PROBES,
    answers: int | None = None,
    sink: CallSink | None = None,
    progress: Callable[[str], None] | None = None,
) -> ProbeReport:
    """The rules coder and each distinct judge given, each probed as its own panel (on a seeded
    sample of `answers` answers when given)."""
    reference = sample(reference, answers, seed)
    results = []
    for spec in dict.fromkeys([RULES, *judges]):
        if progress is not None:
            progress(spec)
        config = calibration_config(
            reference,
            [spec],
            judge_count=judge_count,
            # The rules coder reads the answer itself; a model judge extracts with itself unless told.
            extractor=RULES if spec == RULES else extractor,
            adjudicator=adjudicator,
            seed=seed,
        )
        results.append(probe_judge(reference, config, probes, sink))
    return ProbeReport(
        created_at=utc_now(),
        medeval_version=__version__,
        reference=reference.path.name,
        reference_sha256=reference.sha256,
        answers=len(reference.answers),
        seed=seed,
        judges=results,
    )
