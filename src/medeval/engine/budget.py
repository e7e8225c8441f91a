"""--max-cost before a run: how many calls the planned trials make at most, and what they would
cost at typical token counts. (The ceiling while running is checked by the orchestrator.)"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Container

from medeval.calls.cost import PRICES_ENV, PriceTable, estimate_cost
from medeval.calls.gateway import Gateway
from medeval.engine.config import RunConfig
from medeval.engine.types import TrialPlan
from medeval.errors import ConfigError


def prefix_reuse(config: RunConfig, plans: list[TrialPlan]) -> dict[str, tuple[int, int]]:
    """Judge calls per spec that write their stable prefix (system prompt, answer key, checklist)
    to a provider's prompt cache, and those that read it: the first call per scenario, group and
    judge writes, every later one reads (agents/boundary.prefixed_message)."""
    seen: set[tuple[str, str, str]] = set()
    reuse: dict[str, list[int]] = {}
    for plan in plans:
        for turn in plan.scenario.scripted_turns:
            if not turn.scored:
                continue
            group = turn.question_group or plan.scenario.scenario_id
            for index in range(config.judge_count):
                spec = config.judge_spec(index)
                key = (plan.scenario.scenario_id, group, spec)
                counts = reuse.setdefault(spec, [0, 0])
                counts[key in seen] += 1
                seen.add(key)
    return {spec: (writes, reads) for spec, (writes, reads) in reuse.items()}


def expected_calls(
    config: RunConfig, plans: list[TrialPlan], batched: Container[str] = ()
) -> tuple[dict[str, int], dict[str, int]]:
    """Model calls the plans will make at most (every conditional turn asked, no retries): those
    made directly, and the judge calls that go through the batch API of a spec in `batched`."""
    direct: Counter[str] = Counter()
    batch: Counter[str] = Counter()
    for plan in plans:
        turns = plan.scenario.scripted_turns
        scored = sum(t.scored for t in turns)
        direct[plan.target] += len(turns) + (1 if plan.scenario.opening_statement else 0)
        for spec in [config.extractor_spec(), *(config.judge_spec(i) for i in range(config.judge_count))]:
            (batch if spec in batched else direct)[spec] += scored
        if config.questioner and plan.scenario.variation_knobs.paraphrase:
            direct[config.questioner] += 1
    return dict(direct), dict(batch)


def check_budget(
    config: RunConfig,
    plans: list[TrialPlan],
    spent: float,
    prices: PriceTable,
    batch_discounts: dict[str, float] | None = None,
) -> None:
    """--max-cost: refuse to start a run whose estimate is over budget (before any file is written).
    `batch_discounts`: the judge specs whose calls go through a batch API, with their discounts."""
    if config.max_cost is None:
        return
    discounts = batch_discounts or {}
    direct, batched = expected_calls(config, plans, discounts)
    # Judge calls after the first per scenario, group and judge read the key from a prompt cache.
    reuse = prefix_reuse(config, plans)
    estimate, unpriced = estimate_cost(
        direct, prices, prefixes={s: n for s, n in reuse.items() if s not in discounts}
    )
    batch_estimate, batch_unpriced = estimate_cost(
        batched,
        prices,
        batch_discounts=discounts,
        prefixes={s: n for s, n in reuse.items() if s in discounts},
    )
    estimate += batch_estimate
    unpriced += batch_unpriced
    if unpriced:
        raise ConfigError(unpriced_line(unpriced[0], prices))
    if spent + estimate > config.max_cost:
        already = f", {dollars(spent)} already spent" if spent else ""
        raise ConfigError(
            f"estimated cost {dollars(spent + estimate)} ({len(plans)} trials at typical token counts, "
            "judges reading the answer key from prompt caches after its first call"
            f"{already}) exceeds --max-cost {dollars(config.max_cost)}; "
            "raise --max-cost or run fewer scenarios, targets or epochs"
        )


def unpriced_line(spec: str, prices: PriceTable) -> str:
    """--max-cost with a model the price table has no price for: which, why, and how to give one."""
    why = prices.unpriced.get(spec)
    table = f"${PRICES_ENV}" if os.environ.get(PRICES_ENV) else f"data/prices.json (as of {prices.as_of})"
    return (
        f"--max-cost needs a price for {spec}, which is unpriced in {table}"
        + (f" ({why})" if why else "")
        + f'; to supply one, copy src/medeval/data/prices.json, add "{spec}": {{"input": USD_PER_M, '
        '"output": USD_PER_M, "status": "published", "source": "PRICE_PAGE_URL", "as_of": "YYYY-MM-DD"} '
        f"under models, and set {PRICES_ENV}=that file; or drop --max-cost"
    )


def dollars(amount: float) -> str:
    """Cents where they suffice; more digits for the sub-cent budgets of small test runs."""
    return f"${amount:.2f}" if amount >= 1 or amount == 0 else f"${amount:.4f}"


def batch_routes(config: RunConfig, gateway: Gateway) -> dict[str, str] | None:
    """With --batch: how each judge model's calls go, "batch" or "direct" (no batch API)."""
    if not config.batch.enabled:
        return None
    return {
        spec: "batch" if gateway.batch_api(spec) is not None else "direct (no batch API)"
        for spec in config.judge_role_specs()
    }


def batch_discounts(config: RunConfig, gateway: Gateway) -> dict[str, float]:
    """The judge specs whose calls go through a batch API, with the provider's discount."""
    apis = {spec: gateway.batch_api(spec) for spec in config.judge_role_specs()}
    return {spec: api.batch_discount for spec, api in apis.items() if api is not None}
