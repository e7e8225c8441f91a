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
        already = f", {dollars(spent)} already spent" if spent else ""
        raise ConfigError(
            f"estimated cost {dollars(spent + estimate)} ({len(plans)} trials at typical token counts"
            f"{already}) exceeds --max-cost {dollars(config.max_cost)}; "
            "raise --max-cost or run fewer scenarios, targets or epochs"
        )


def dollars(amount: float) -> str:
    """Cents where they suffice; more digits for the sub-cent budgets of small test runs."""
    return f"${amount:.2f}" if amount >= 1 or amount == 0 else f"${amount:.4f}"
