"""--max-cost before a run: how many calls the planned trials make at most, and what they would
cost at typical token counts. (The ceiling while running is checked by the orchestrator.)"""

from __future__ import annotations

from collections import Counter

from medeval.config import RunConfig
from medeval.cost import PriceTable, estimate_cost
from medeval.errors import ConfigError
from medeval.trial import TrialPlan


def expected_calls(config: RunConfig, plans: list[TrialPlan]) -> dict[str, int]:
    """Model calls the plans will make at most (every conditional turn asked, no retries)."""
    calls: Counter[str] = Counter()
    for plan in plans:
        turns = plan.scenario.scripted_turns
        scored = sum(t.scored for t in turns)
        calls[plan.target] += len(turns) + (1 if plan.scenario.opening_statement else 0)
        calls[config.extractor_spec()] += scored
        for index in range(config.judge_count):
            calls[config.judge_spec(index)] += scored
        if config.questioner and plan.scenario.variation_knobs.paraphrase:
            calls[config.questioner] += 1
    return dict(calls)


def check_budget(config: RunConfig, plans: list[TrialPlan], spent: float, prices: PriceTable) -> None:
    """--max-cost: refuse to start a run whose estimate is over budget (before any file is written)."""
    if config.max_cost is None:
        return
    estimate, unpriced = estimate_cost(expected_calls(config, plans), prices)
    if unpriced:
        raise ConfigError(
            f"--max-cost needs a price for {unpriced[0]}, which data/prices.json lacks; "
            "add it to the table or drop --max-cost"
        )
    if spent + estimate > config.max_cost:
        raise ConfigError(
            f"estimated cost ${spent + estimate:.2f} ({len(plans)} trials at typical token counts"
            f"{f', ${spent:.2f} already spent' if spent else ''}) exceeds --max-cost ${config.max_cost:.2f}; "
            "raise --max-cost or run fewer scenarios, targets or epochs"
        )
