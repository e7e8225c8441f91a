"""What a run costs: a dated price table (data/prices.json), the cost of each call, running totals
per role and target, and the estimate `--max-cost` checks before a run starts."""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from collections.abc import Iterable
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from medeval.adapters.base import Usage
from medeval.adapters.registry import parse_spec
from medeval.errors import ConfigError, UserError
from medeval.records.user_files import PRICES_MAX_BYTES, read_user_text

#: Budgeting guesses for one call when nothing has been measured yet: a multi-turn history or a
#: judge prompt with its answer key in, a paragraph or a JSON verdict list out.
TYPICAL_INPUT_TOKENS = 2000
TYPICAL_OUTPUT_TOKENS = 500
#: The stable prefix of a typical judge call (system prompt, answer key, checklist): a little under
#: the 93% of a verifier request that benchmarks/prefix_share.py measures on the demo.
TYPICAL_STABLE_SHARE = 0.9
NOT_A_MODEL = frozenset({"rules"})
PRICES_ENV = "MEDEVAL_PRICES"


#: What a price entry rests on. "published": the provider's own price page; "secondary": a dated
#: report of that page, used only where no provider page was found; "sourced": any other stated
#: source (your own tables, the offline fake); "placeholder": a budgeting figure, not a price.
PriceStatus = Literal["published", "secondary", "sourced", "placeholder"]
#: A model id with a dated snapshot suffix (gpt-4.1-2025-04-14), priced as its alias.
DATED_SNAPSHOT = re.compile(r"-\d{4}-?\d{2}-?\d{2}$")


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input: float
    output: float
    status: PriceStatus
    #: Where the price comes from (the page's URL for "published" and "secondary").
    source: str | None = None
    #: When the source says it was read or published (YYYY-MM-DD), never the day it was copied.
    as_of: str | None = None
    #: For a provider page that carries no date: the dated report of it that gives `as_of`.
    dated_by: str | None = None
    #: What the source says beyond the figures (a promotion's end, a conflict between sources).
    note: str | None = None
    #: Batch API prices, where the provider's differ from the adapter's `batch_discount`.
    batch_input: float | None = None
    batch_output: float | None = None
    #: Input read from the provider's prompt cache; None: the provider's default ratio (below).
    cached_input: float | None = None
    #: Input written to the prompt cache (Anthropic); None: the provider's default ratio.
    cache_write: float | None = None

    def batched(self, discount: float) -> tuple[float, float]:
        """(input, output) per unit through the batch API: the table's batch prices, else the
        direct prices less the provider's discount."""
        keep = 1.0 - discount
        return (
            self.batch_input if self.batch_input is not None else self.input * keep,
            self.batch_output if self.batch_output is not None else self.output * keep,
        )


class CacheRatio(BaseModel):
    """Prompt-cache prices as fractions of a model's input price, for models without their own."""

    model_config = ConfigDict(extra="forbid")

    read: float
    write: float = 1.0
    source: str


#: Each provider's published cache discount (docs/performance.md, "Prompt caching", gives the pages).
#: A provider not listed (openai-compatible servers, fake) is charged full input price.
DEFAULT_CACHE_RATIOS: dict[str, CacheRatio] = {
    "anthropic": CacheRatio(
        read=0.1, write=1.25, source="Anthropic prompt caching pricing: reads 0.1x, 5-minute writes 1.25x"
    ),
    "openai": CacheRatio(read=0.1, source="OpenAI pricing, 2026-11: cached input 0.1x on current models"),
    "google": CacheRatio(read=0.1, source="Google context caching overview: implicit hits 90% off"),
    "xai": CacheRatio(read=0.25, source="xAI pricing: cached prompt tokens 0.25x (e.g. $0.50 vs $2)"),
}


class PriceTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    as_of: str
    currency: str
    unit: str
    note: str = ""
    models: dict[str, Price]
    #: Known models deliberately without a price (none published where the sources were read): why.
    unpriced: dict[str, str] = Field(default_factory=dict)
    #: Per-provider defaults for a model whose entry names no cache prices.
    cache_ratios: dict[str, CacheRatio] = Field(default_factory=lambda: dict(DEFAULT_CACHE_RATIOS))

    def price(self, spec: str) -> Price | None:
        """Exact spec, then the alias of a dated snapshot (gpt-4.1-2025-04-14), then `provider:*`.
        Only a date suffix makes an alias: gpt-5-mini is not gpt-5, and is never priced as it."""
        if spec in self.models:
            return self.models[spec]
        provider, model = parse_spec(spec)
        alias = DATED_SNAPSHOT.sub("", model)
        if f"{provider}:{alias}" in self.unpriced or f"{provider}:{model}" in self.unpriced:
            return None
        if alias != model and f"{provider}:{alias}" in self.models:
            return self.models[f"{provider}:{alias}"]
        return self.models.get(f"{provider}:*")

    def cache_prices(self, spec: str, price: Price) -> tuple[float, float]:
        """$ per million tokens read from and written to the prompt cache for `spec`."""
        ratio = self.cache_ratios.get(parse_spec(spec)[0])
        read = (
            price.cached_input
            if price.cached_input is not None
            else price.input * (ratio.read if ratio else 1)
        )
        write = (
            price.cache_write
            if price.cache_write is not None
            else price.input * (ratio.write if ratio else 1)
        )
        return read, write

    def cost(self, spec: str, usage: Usage, *, batch_discount: float | None = None) -> float | None:
        """`batch_discount`: set when the call went through the provider's batch API."""
        price = self.price(spec)
        if price is None:
            return None
        per_in, per_out = (
            price.batched(batch_discount) if batch_discount is not None else (price.input, price.output)
        )
        tokens_in, tokens_out = usage.input_tokens or 0, usage.output_tokens or 0
        # `input_tokens` counts all input; the cached and written parts are priced as such, and a
        # batch discount applies to them too (Anthropic's discounts stack).
        read, written = usage.cached_tokens or 0, usage.cache_write_tokens or 0
        fresh = max(tokens_in - read - written, 0)
        read_price, write_price = self.cache_prices(spec, price)
        keep = 1.0 - batch_discount if batch_discount is not None else 1.0
        dollars = fresh * per_in + (read * read_price + written * write_price) * keep + tokens_out * per_out
        return round(dollars / 1_000_000, 8)


def load_prices(path: Path | None = None) -> PriceTable:
    """The bundled table, or your own (negotiated prices, new models) via $MEDEVAL_PRICES."""
    path = path or (Path(os.environ[PRICES_ENV]) if os.environ.get(PRICES_ENV) else None)
    if path is None:
        bundled = files("medeval.data").joinpath("prices.json").read_text(encoding="utf-8")
        return PriceTable.model_validate_json(bundled)
    fix = f"fix the file, or unset {PRICES_ENV} to use the bundled price table"
    try:
        text = read_user_text(path, limit=PRICES_MAX_BYTES, what="price table", fix=fix)
    except UserError as error:
        raise ConfigError(f"{PRICES_ENV}={error}") from None
    try:
        return PriceTable.model_validate(json.loads(text))
    except RecursionError:
        raise ConfigError(f"{PRICES_ENV}={path}: nested too deeply to be a price table; {fix}") from None
    except json.JSONDecodeError as error:
        raise ConfigError(
            f"{PRICES_ENV}={path}: line {error.lineno} column {error.colno}: not JSON ({error.msg}); {fix}"
        ) from None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "top level"
        raise ConfigError(
            f"{PRICES_ENV}={path}: not a price table ({where}: {first['msg']}; "
            f"see src/medeval/data/prices.json for the shape); {fix}"
        ) from None


class CostMeter:
    """Running totals, fed by the gateway with every call that reached a provider."""

    def __init__(self, prices: PriceTable) -> None:
        self.prices = prices
        self.total = 0.0
        self.by_role: dict[str, float] = defaultdict(float)
        self.by_target: dict[str, float] = defaultdict(float)
        self.by_model: dict[str, float] = defaultdict(float)
        self.unpriced: set[str] = set()
        #: Estimated dollars of requests waiting in provider batches: not charged until their results
        #: come, yet committed. `--max-cost` counts them, or a run whose trials give up their slots
        #: while their judges wait would launch every trial before the first batch is charged.
        self.pending = 0.0
        self._holds = 0

    def hold(
        self, spec: str, input_tokens: int, output_tokens: int, *, batch_discount: float | None = None
    ) -> float:
        """Count a call of `spec` this size as pending; returns the amount to `release` later."""
        usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens)
        amount = self.prices.cost(spec, usage, batch_discount=batch_discount) or 0.0
        self.pending += amount
        self._holds += 1
        return amount

    def release(self, amount: float) -> None:
        # Floating sums do not cancel exactly: with nothing held, nothing is pending.
        self._holds -= 1
        self.pending = max(0.0, self.pending - amount) if self._holds > 0 else 0.0

    def charge(
        self, spec: str, usage: Usage, role: str, target: str | None, *, batch_discount: float | None = None
    ) -> float | None:
        cost = self.prices.cost(spec, usage, batch_discount=batch_discount)
        if cost is None:
            self.unpriced.add(spec)
            return None
        self.total += cost
        self.by_role[role] += cost
        self.by_model[spec] += cost
        if target:
            self.by_target[target] += cost
        return cost

    def report(self) -> dict[str, object]:
        return {
            "currency": self.prices.currency,
            "prices_as_of": self.prices.as_of,
            "total_usd": round(self.total, 6),
            "by_role": {k: round(v, 6) for k, v in sorted(self.by_role.items())},
            "by_target": {k: round(v, 6) for k, v in sorted(self.by_target.items())},
            "by_model": {k: round(v, 6) for k, v in sorted(self.by_model.items())},
            "unpriced_models": sorted(self.unpriced),
        }


def estimate_cost(
    calls: dict[str, int],
    prices: PriceTable,
    *,
    batch_discounts: dict[str, float] | None = None,
    prefixes: dict[str, tuple[int, int]] | None = None,
) -> tuple[float, list[str]]:
    """Dollars for `calls` (spec -> number of calls) at typical token counts, and unpriced specs.
    `batch_discounts` (spec -> discount): these calls go through the spec's batch API. `prefixes`
    (spec -> calls that write, calls that read a stable prefix) prices those calls' typical stable
    share at the provider's cache-write and cache-read prices."""
    total, unpriced = 0.0, []
    typical = Usage(input_tokens=TYPICAL_INPUT_TOKENS, output_tokens=TYPICAL_OUTPUT_TOKENS)
    stable = round(TYPICAL_INPUT_TOKENS * TYPICAL_STABLE_SHARE)
    for spec, count in sorted(calls.items()):
        if spec in NOT_A_MODEL or count == 0:
            continue
        discount = (batch_discounts or {}).get(spec)
        cost = prices.cost(spec, typical, batch_discount=discount)
        if cost is None:
            unpriced.append(spec)
            continue
        total += cost * count
        writes, reads = (prefixes or {}).get(spec, (0, 0))
        if writes or reads:
            writing = typical.model_copy(update={"cache_write_tokens": stable})
            reading = typical.model_copy(update={"cached_tokens": stable})
            written = prices.cost(spec, writing, batch_discount=discount) or 0.0
            read = prices.cost(spec, reading, batch_discount=discount) or 0.0
            total += writes * (written - cost) + reads * (read - cost)
    return total, unpriced


#: Token totals summed into summary.json (name there -> field of a call's usage).
TOKEN_FIELDS = {
    "input": "input_tokens",
    "cached_input": "cached_tokens",
    "cache_write": "cache_write_tokens",
    "output": "output_tokens",
}


class CostTotals:
    """Totals per role, target and model, summed one call record at a time (cache hits cost
    nothing): the run writer keeps one as it writes, so a session's summary never re-reads its
    calls file."""

    def __init__(self) -> None:
        self.by_role: dict[str, float] = defaultdict(float)
        self.by_target: dict[str, float] = defaultdict(float)
        self.by_model: dict[str, float] = defaultdict(float)
        self.unpriced: set[str] = set()
        self.total = 0.0
        self.tokens = dict.fromkeys(TOKEN_FIELDS, 0)

    def add(self, call: dict[str, Any]) -> None:
        if "response" not in call:
            return
        if call.get("cache") != "hit":  # a response-cache hit sent nothing to a provider
            usage = call.get("usage") or {}
            for name, field in TOKEN_FIELDS.items():
                self.tokens[name] += int(usage.get(field) or 0)
        cost = call.get("cost_usd")
        if cost is None:
            self.unpriced.add(str(call.get("spec")))
            return
        self.total += cost
        self.by_role[str(call.get("role"))] += cost
        self.by_model[str(call.get("spec"))] += cost
        if call.get("target"):
            self.by_target[str(call["target"])] += cost

    def totals(self) -> dict[str, Any]:
        return {
            "total_usd": round(self.total, 6),
            "by_role": {k: round(v, 6) for k, v in sorted(self.by_role.items())},
            "by_target": {k: round(v, 6) for k, v in sorted(self.by_target.items())},
            "by_model": {k: round(v, 6) for k, v in sorted(self.by_model.items())},
            "unpriced_models": sorted(self.unpriced),
            "tokens": dict(self.tokens),
        }


def cost_totals(calls: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Totals per role, target and model from call records (cache hits cost nothing)."""
    totals = CostTotals()
    for call in calls:
        totals.add(call)
    return totals.totals()


def prompt_cache_text(tokens: dict[str, int]) -> str | None:
    """'12,400 of 30,000 input tokens read from prompt caches (2,100 written)', or None when no
    call read or wrote a prompt cache."""
    read, written = tokens.get("cached_input", 0), tokens.get("cache_write", 0)
    if not read and not written:
        return None
    text = f"{read:,} of {tokens.get('input', 0):,} input tokens read from prompt caches"
    return text + (f" ({written:,} written)" if written else "")
