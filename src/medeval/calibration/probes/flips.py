"""Flip rates: how often a judge's category for an answer changes under a change that should not
change it (docs/statistics.md, "Judge bias probes").

Each probe compares two arms of the same reference answer. A *flip* is a different category in the
two arms; needs_review counts as a category (a judge that sends one arm to review and decides the
other has flipped). A pair with an arm the judges could not score (not_scored) is left out and
counted. Each flip rate has a Wilson 95% interval over the answers compared (each reference answer
is one unit), overall and by the people's category of the answer. A probe is over the threshold
when its interval's lower bound exceeds FLIP_THRESHOLD: the judge flips credibly more often than
that, not merely on a handful of answers.

Self-preference compares, on the original answers, how often the judge places an answer above the
people's category (more favourable) when the answer came from the judge's own vendor family and
when it came from another; the difference has a Newcombe interval, over the threshold when its
lower bound exceeds SELF_PREFERENCE_THRESHOLD.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel
from statsmodels.stats.proportion import confint_proportions_2indep

from medeval.calibration.measures import Interval, wilson
from medeval.calibration.probes.family import vendor_family
from medeval.review.categories import STUDY_CATEGORIES

#: Probe -> its two arms (a, b): the flip rate compares the judges' category in a and in b.
ARMS: dict[str, tuple[str, str]] = {
    "repeat": ("original", "reseeded"),
    "order": ("original", "shuffled"),
    "length": ("original", "padded"),
    "format": ("prose", "markdown"),
    "position": ("early", "late"),
}
PROBES = tuple(ARMS)
WHAT_CHANGES = {
    "repeat": "nothing: the same answer judged again with other seeds (the judges' own noise)",
    "order": "the key's facts, checklist items and the claims in a seeded other order",
    "length": "neutral, content-free sentences added (at least doubling the answer)",
    "format": "the same sentences as plain prose vs markdown (headings, bullets, a table)",
    "position": "a known wrong statement first vs last in a long (padded) answer",
}
#: A probe whose flip rate is credibly above this (its 95% lower bound) names its judge in every
#: report that uses it.
FLIP_THRESHOLD = 0.05
#: Same-family minus other-family favourable share credibly above this names the judge.
SELF_PREFERENCE_THRESHOLD = 0.05
#: How favourable a category is, to tell a flip's direction.
FAVOUR = {"incorrect": 0, "not_substantive": 1, "substantive_incomplete": 2, "accurate_complete": 3}
UNJUDGED = frozenset({"not_scored", "incomplete_data", "not_applicable"})


class AnswerArms(BaseModel):
    """One reference answer and the judges' category in each arm it was judged in."""

    id: str
    scenario_id: str
    question_group: str
    human: str
    target: str | None = None
    arms: dict[str, str]


class ProbeRate(BaseModel):
    probe: str
    arms: tuple[str, str]
    compared: int
    flips: int
    rate: Interval
    #: Flips where arm b's category is more (less) favourable than arm a's; the rest involve review.
    toward_b_better: int
    toward_b_worse: int
    left_out: int  # pairs with an arm the judges could not score
    absent: int  # answers the probe had nothing for (position: no wrong statement for the group)
    per_category: dict[str, Interval]  # by the people's category of the answer
    threshold: float = FLIP_THRESHOLD
    #: Position probe: the share of each arm called Incorrect.
    caught: dict[str, Interval] = {}

    @property
    def exceeded(self) -> bool:
        return self.rate.low is not None and self.rate.low > self.threshold


class SelfPreference(BaseModel):
    family: str | None
    note: str
    same: Interval | None = None  # share judged more favourably than people: same-family answers
    other: Interval | None = None  # the same share on other families' answers
    difference: float | None = None
    low: float | None = None
    high: float | None = None
    threshold: float = SELF_PREFERENCE_THRESHOLD

    @property
    def exceeded(self) -> bool:
        return self.low is not None and self.low > self.threshold


class JudgeProbes(BaseModel):
    judge: str
    panel: list[str]
    extractor: str
    family: str | None
    probes: list[ProbeRate]
    self_preference: SelfPreference
    answers: list[AnswerArms]

    def over(self) -> list[ProbeRate]:
        return [p for p in self.probes if p.exceeded]

    def named(self) -> bool:
        return bool(self.over()) or self.self_preference.exceeded


class ProbeReport(BaseModel):
    """What `medeval calibrate --probes` writes to probes.json and `medeval report --probes` reads."""

    format: Literal["medeval-probes/1"] = "medeval-probes/1"
    created_at: str
    medeval_version: str
    reference: str
    reference_sha256: str
    answers: int
    seed: int
    flip_threshold: float = FLIP_THRESHOLD
    self_preference_threshold: float = SELF_PREFERENCE_THRESHOLD
    judges: list[JudgeProbes]

    def judge(self, spec: str) -> JudgeProbes | None:
        return next((j for j in self.judges if j.judge == spec), None)


def _direction(a: str, b: str) -> int:
    if a in FAVOUR and b in FAVOUR:
        return (FAVOUR[b] > FAVOUR[a]) - (FAVOUR[b] < FAVOUR[a])
    return 0


def probe_rate(probe: str, answers: Sequence[AnswerArms]) -> ProbeRate:
    a_arm, b_arm = ARMS[probe]
    present = [x for x in answers if a_arm in x.arms and b_arm in x.arms]
    compared = [x for x in present if x.arms[a_arm] not in UNJUDGED and x.arms[b_arm] not in UNJUDGED]
    flipped = [x for x in compared if x.arms[a_arm] != x.arms[b_arm]]
    directions = [_direction(x.arms[a_arm], x.arms[b_arm]) for x in flipped]
    per_category = {
        c: wilson(sum(x.human == c for x in flipped), sum(x.human == c for x in compared))
        for c in STUDY_CATEGORIES
    }
    caught: dict[str, Interval] = {}
    if probe == "position":
        caught = {
            arm: wilson(sum(x.arms[arm] == "incorrect" for x in compared), len(compared))
            for arm in ARMS[probe]
        }
    return ProbeRate(
        probe=probe,
        arms=(a_arm, b_arm),
        compared=len(compared),
        flips=len(flipped),
        rate=wilson(len(flipped), len(compared)),
        toward_b_better=directions.count(1),
        toward_b_worse=directions.count(-1),
        left_out=len(present) - len(compared),
        absent=len(answers) - len(present),
        per_category=per_category,
        caught=caught,
    )


def self_preference(judge: str, answers: Sequence[AnswerArms], rules_coder: bool) -> SelfPreference:
    """Same-family vs other-family leniency of one judge on the original answers."""
    family = vendor_family(judge)
    if rules_coder:
        return SelfPreference(
            family=None, note="the rules coder has no vendor family: self-preference does not apply"
        )
    if family is None:
        return SelfPreference(
            family=None, note=f"{judge} has no known vendor family: self-preference not measured"
        )
    decided = [
        x
        for x in answers
        if x.target and x.arms.get("original") in FAVOUR and vendor_family(x.target) is not None
    ]
    if not any(x.target for x in answers):
        return SelfPreference(
            family=family,
            note="the reference set names no answer's source model (its optional `target` field), so "
            "same-family and other-family judging cannot be compared on it",
        )
    same = [x for x in decided if vendor_family(x.target or "") == family]
    other = [x for x in decided if vendor_family(x.target or "") != family]
    if not same or not other:
        return SelfPreference(
            family=family,
            note=f"the reference set has {len(same)} decided answer(s) from {family} models and "
            f"{len(other)} from other families: both are needed to compare",
        )

    def favoured(xs: list[AnswerArms]) -> int:
        return sum(FAVOUR[x.arms["original"]] > FAVOUR[x.human] for x in xs)

    s, o = favoured(same), favoured(other)
    low, high = confint_proportions_2indep(s, len(same), o, len(other), method="newcomb")
    return SelfPreference(
        family=family,
        note=f"judged more favourably than people: {s} of {len(same)} {family} answers vs {o} of "
        f"{len(other)} from other families",
        same=wilson(s, len(same)),
        other=wilson(o, len(other)),
        difference=s / len(same) - o / len(other),
        low=float(low),
        high=float(high),
    )
