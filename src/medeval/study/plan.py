"""`medeval plan --study FILE`: what a study can show before it spends (reporting/stats/power.py).

Over the headline's answers (the question groups of the SHIP study's two scripts that the study
scored, as reporting/tables/headline.py counts them): per target, the trials and the answers per
group, the design effect, the smallest A&C difference detectable against the counselors and
between two targets at 80% power (two-sided alpha 0.05), the human codes a kappa interval of
+/-0.10 and a corrected-rate interval of +/-5 points need, and the cost at typical token counts.
"""

from __future__ import annotations

import math
from pathlib import Path

from pydantic import BaseModel

from medeval.calls.cost import estimate_cost, load_prices
from medeval.engine.budget import dollars, expected_calls
from medeval.engine.config import RunConfig
from medeval.engine.orchestrator.prepare import load_scenarios, plan_trials
from medeval.reporting.loading.baseline import SHIP_CATEGORIES, load_baseline
from medeval.reporting.stats.power import (
    GROUP_ICC,
    REPEAT_ICC,
    Design,
    corrected_codes,
    detectable_between,
    detectable_vs_published,
    kappa_codes,
)
from medeval.reporting.tables.headline import HEADLINE_CATEGORIES, STUDY_SCRIPTS

#: What the code-count figures assume (docs/statistics.md, "Planning a study").
ASSUMED_KAPPA = 0.8
ASSUMED_JUDGE_ERROR = 0.15


class Plan(BaseModel):
    study: str
    targets: list[str]
    trials: int
    trials_per_target: int
    answers_per_group: int  # per target: epochs x variants
    design: Design
    counselor_rate: float
    counselor_n: int
    detectable_vs_counselors: float
    detectable_between_targets: float
    kappa_codes: int
    corrected_codes: int | None
    cost: float
    unpriced: list[str]

    def lines(self) -> list[str]:
        d = self.design
        cost = dollars(self.cost) + (f" (no price for {', '.join(self.unpriced)})" if self.unpriced else "")
        corrected = (
            f"{self.corrected_codes} per target"
            if self.corrected_codes is not None
            else "not reachable: too few answers per target; add epochs, variants or scenarios"
        )
        return [
            f"{self.study}: {self.trials} trials ({len(self.targets)} targets x {self.trials_per_target} "
            "trials each)",
            f"per target: {d.answers} headline answers = {d.scripts} script(s) x {d.groups_per_script:g} "
            f"groups x {self.answers_per_group} answers per group (epochs x variants)",
            f"clustering: design effect {d.deff:.2f} (repeats of a group correlated {d.repeat_icc:g}, groups "
            f"of a script {d.group_icc:g}), so {d.effective:.0f} effective answers per target",
            f"detectable A&C difference vs counselors ({100 * self.counselor_rate:.1f}% of "
            f"{self.counselor_n:,}): {_points(self.detectable_vs_counselors)} "
            "(80% power, two-sided alpha 0.05)",
            f"detectable A&C difference between two targets: {_points(self.detectable_between_targets)} "
            "(80% power, two-sided alpha 0.05)",
            f"human codes for a kappa interval of ±0.10 (kappa {ASSUMED_KAPPA:g}, the counselors' "
            f"category shares): {self.kappa_codes}",
            f"human audit codes for a corrected-rate interval of ±5 points (judges wrong on "
            f"{100 * ASSUMED_JUDGE_ERROR:.0f}% of groups): {corrected}",
            f"cost at typical token counts: {cost}",
        ]


def _points(delta: float) -> str:
    if math.isinf(delta):
        return "none: too few effective answers for any difference a rate can make; more scenarios help most"
    return f"±{100 * delta:.1f} points"


def make_plan(
    config: RunConfig, name: str, *, repeat_icc: float = REPEAT_ICC, group_icc: float = GROUP_ICC
) -> Plan:
    scenarios = load_scenarios(config.scenarios, config.scenario_ids, config.scenario_tags)
    plans = plan_trials(config, scenarios)
    baseline = load_baseline()
    study_groups = {row.question_group for row in baseline}
    per_script: list[int] = []
    for loaded in scenarios:
        scenario = loaded.scenario
        if scenario.script not in STUDY_SCRIPTS:
            continue
        scored = [
            g for g, turns in scenario.groups().items() if g in study_groups and any(t.scored for t in turns)
        ]
        if scored:
            per_script.append(len(scored))
    repeats = config.epochs * len(config.variant_levels())
    design = Design(
        scripts=len(per_script),
        groups_per_script=sum(per_script) / len(per_script) if per_script else 0,
        repeats=repeats,
        repeat_icc=repeat_icc,
        group_icc=group_icc,
    )
    combined = [row for row in baseline if row.mode == "combined"]
    counselor_n = sum(row.n for row in combined)
    counts = {c: sum(row.counts[c] for row in combined) for c in SHIP_CATEGORIES}
    rate = counts["accurate_complete"] / counselor_n
    decided = sum(counts[c] for c in HEADLINE_CATEGORIES)
    direct, batched = expected_calls(config, plans)
    cost, unpriced = estimate_cost({**direct, **batched}, load_prices())
    return Plan(
        study=name,
        targets=list(config.targets),
        trials=len(plans),
        trials_per_target=len(plans) // len(config.targets),
        answers_per_group=repeats,
        design=design,
        counselor_rate=rate,
        counselor_n=counselor_n,
        detectable_vs_counselors=detectable_vs_published(design, rate, counselor_n),
        detectable_between_targets=detectable_between(design, rate),
        kappa_codes=kappa_codes([counts[c] / decided for c in HEADLINE_CATEGORIES], ASSUMED_KAPPA),
        corrected_codes=corrected_codes(design.answers, ASSUMED_JUDGE_ERROR),
        cost=cost,
        unpriced=unpriced,
    )


def plan_study(path: Path, **assumptions: float) -> Plan:
    from medeval.study.load import load_study

    return make_plan(load_study(path), path.name, **assumptions)
