"""The bundled price table (data/prices.json): every price dated and sourced, a provider's page or a
dated report of it named by URL, and every catalog model still served either priced or listed as
unpriced with a reason. A price is never inferred from a neighbouring model's."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from urllib.parse import urlparse

import pytest

from medeval.adapters.base import Usage
from medeval.adapters.catalog import catalog
from medeval.calls import cost

TABLE = cost.load_prices()


def is_url(text: str | None) -> bool:
    parts = urlparse(text or "")
    return parts.scheme == "https" and "." in parts.netloc and " " not in (text or "")


@pytest.mark.parametrize("spec", sorted(TABLE.models))
def test_every_price_has_a_source_and_a_date_no_later_than_the_table(spec: str) -> None:
    price = TABLE.models[spec]
    assert price.source, spec
    assert price.as_of is not None, spec
    assert date.fromisoformat(price.as_of) <= date.fromisoformat(TABLE.as_of), spec
    assert price.status != "placeholder", f"{spec}: the bundled table ships no placeholder figures"
    if price.status in ("published", "secondary"):
        assert is_url(price.source), f"{spec}: a {price.status} price names its page by URL"
    if price.dated_by is not None:
        assert price.status == "published" and is_url(price.dated_by), spec


def test_every_served_catalog_model_is_priced_or_listed_as_unpriced_with_a_reason() -> None:
    table_day = date.fromisoformat(TABLE.as_of)
    served = [m for m in catalog().models if m.retires_on is None or m.retires_on > table_day]
    assert served, "the catalog lists models still served on the table's date"
    for model in served:
        spec = f"{model.provider}:{model.name}"
        assert (spec in TABLE.models) != (spec in TABLE.unpriced), spec
    for spec, why in TABLE.unpriced.items():
        assert "never guessed" in why and spec not in TABLE.models, spec
        assert TABLE.price(spec) is None and TABLE.price(f"{spec}-2026-01-01") is None, spec


def test_a_model_is_never_priced_as_a_neighbour_whose_name_it_extends() -> None:
    gpt5 = cost.Price(input=1.0, output=2.0, status="sourced", source="test")
    table = cost.PriceTable(as_of="2026-11-01", currency="USD", unit="x", models={"openai:gpt-5": gpt5})
    # gpt-5-mini is another model, not a snapshot of gpt-5; a dated snapshot is priced as its alias.
    assert table.price("openai:gpt-5-mini") is None and table.price("openai:gpt-5-mini-2025-08-07") is None
    assert table.price("openai:gpt-5-2025-08-07") is gpt5 and table.price("openai:gpt-5-20250807") is gpt5
    # In the bundled table, the retired gpt-4.1-nano is not priced as gpt-4.1.
    assert TABLE.price("openai:gpt-4.1") is not None and TABLE.price("openai:gpt-4.1-nano") is None


def test_the_table_cached_input_price_is_used_for_cache_reads() -> None:
    price = TABLE.models["openai:gpt-4.1"]
    assert price.cached_input is not None and price.cached_input != price.input * 0.1
    usage = Usage(input_tokens=1_000_000, cached_tokens=1_000_000, output_tokens=0)
    assert TABLE.cost("openai:gpt-4.1", usage) == pytest.approx(price.cached_input)


def test_a_user_table_without_the_new_fields_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    entry = {"input": 1.0, "output": 2.0, "status": "sourced", "source": "our contract"}
    table = {"as_of": "2026-11-01", "currency": "USD", "unit": "x", "models": {"openai:gpt-9": entry}}
    path.write_text(json.dumps(table), encoding="utf-8")
    loaded = cost.load_prices(path)
    assert loaded.price("openai:gpt-9") is not None and loaded.unpriced == {}


def test_the_performance_page_names_every_unpriced_model() -> None:
    page = (Path(__file__).parents[1] / "docs" / "performance.md").read_text(encoding="utf-8")
    section = page[page.index("- **The price table.**") : page.index("- **Cost records.**")]
    named = {spec for spec in TABLE.unpriced if f"`{spec}`" in section}
    assert named == set(TABLE.unpriced)
