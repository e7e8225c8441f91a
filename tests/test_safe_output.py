"""Outputs are safe to open: a chatbot answer that starts `=HYPERLINK(...)` is neutralised in every
CSV the tool writes (the OWASP rule), and report.md, rendered by markdown-it-py with raw HTML on,
holds no tag that came from a provider (answers, errors, served-model names)."""

from __future__ import annotations

import csv
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from medeval.adapters.base import ChatRequest, ChatResponse, ModelAPI, ProviderError
from medeval.calls.cache import CacheMode
from medeval.engine.config import RunConfig
from medeval.fakes.provider import FakeTarget
from medeval.records.safe_output import FORMULA_STARTS, csv_cell, csv_values, md_code, md_text
from tests.conftest import SCENARIOS
from tests.engine_support import settle
from tests.review_support import cli

FORMULA = '=HYPERLINK("http://x","y")'
HOSTILE = (
    f'{FORMULA} <img src=x onerror="alert(1)"> ![pixel](http://evil.example/p.png) '
    "<script>alert(2)</script> [click](javascript:alert(3)) "
)


class HostileTarget(FakeTarget):
    """The accurate fake's answers, prefixed with formula and markup, from a served model whose name
    is markup too."""

    async def generate(self, request: ChatRequest) -> ChatResponse:
        response = await super().generate(request)
        # Markup inside the sentences too, so the report's quotes of wrong claims carry it.
        text = HOSTILE + response.text.replace(" Part ", ' <b onclick="alert(6)">Part</b> ')
        return response.model_copy(update={"text": text, "served_model": '<img src=x onerror="alert(4)">'})


class FailingTarget(ModelAPI):
    provider = "fake"

    async def generate(self, request: ChatRequest) -> ChatResponse:
        raise ProviderError('=cmd|"/c calc"!A1 <img src=y onerror="alert(5)">', retryable=False, status=400)


def hostile_run(out: Path, seed: int) -> Path:
    from medeval.engine.orchestrator import build_gateway, execute

    config = RunConfig(
        scenarios=[SCENARIOS / "ship_medicare_only.json"],
        targets=["fake:accurate", "fake:refusal"],
        judges=["rules"],
        out=out,
        seed=seed,
        cache=CacheMode.OFF,
    )
    adapters: dict[str, ModelAPI] = {
        "fake:accurate": HostileTarget("outdated"),
        "fake:refusal": FailingTarget("refusal"),
    }
    import asyncio

    result = asyncio.run(execute(config, build_gateway(config, adapters=adapters, sleep=settle)))
    return result.store.directory


def formula_cells(path: Path) -> list[str]:
    with path.open(encoding="utf-8", newline="") as handle:
        cells = [c for row in csv.reader(handle) for c in row]
    return [c for c in cells if c.startswith(FORMULA_STARTS) and csv_cell(c) != c]


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def test_every_csv_is_neutralised_and_report_md_renders_inertly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first = hostile_run(tmp_path / "runs", seed=1)
    second = hostile_run(tmp_path / "runs2", seed=2)
    assert cli(monkeypatch, capsys, "report", str(first), "--out", str(tmp_path / "report"))[0] == 0
    assert cli(monkeypatch, capsys, "review", "export", str(first), "--sample", "1.0",
               "--out", str(tmp_path / "review"))[0] == 0  # fmt: skip
    assert cli(monkeypatch, capsys, "export", str(first), "--format", "csv",
               "--out", str(tmp_path / "tables"))[0] == 0  # fmt: skip
    assert cli(monkeypatch, capsys, "compare", str(first), str(second),
               "--out", str(tmp_path / "compare"))[0] == 0  # fmt: skip

    written = sorted(tmp_path.glob("*/**/*.csv"))
    names = {p.name for p in written}
    assert {"trials.csv", "unscored.csv", "claims.csv", "compare.csv", "ship_table.csv"} <= names
    assert any(p.parent.name == "review" for p in written)
    for path in written:
        assert formula_cells(path) == [], path
    # The answer's own cell is there, neutralised, in the coder's spreadsheet and the claims table.
    for path in [p for p in written if p.name == "claims.csv" or p.parent.name == "review"]:
        text = path.read_text(encoding="utf-8")
        assert "'" + FORMULA.replace('"', '""') in text, path
    assert "=cmd" in (tmp_path / "report" / "unscored.csv").read_text(encoding="utf-8")  # mid-cell: inert

    markdown = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    # The provider's texts are in the report, as text: an answer's wrong claim, a served model, an error.
    assert "alert(6)" in markdown and "alert(4)" in markdown and "alert(5)" in markdown
    for renderer in (MarkdownIt(), MarkdownIt("commonmark").enable("table")):
        html = renderer.render(markdown)
        parser = Tags()
        parser.feed(html)
        tags = {tag for tag, _ in parser.tags}
        assert not tags & {"script", "iframe", "svg", "object", "style"}
        for tag, attrs in parser.tags:
            assert not any(name.startswith("on") for name in attrs), (tag, attrs)
            if tag == "img":  # only the report's own charts
                assert (attrs.get("src") or "").startswith("charts/"), attrs
            if tag == "a":
                assert not (attrs.get("href") or "").startswith(("http", "javascript")), attrs


def test_the_csv_rule_and_the_markdown_escape() -> None:
    assert csv_values([FORMULA, "+1", "-3.5", "-2+3", "@x", "\tx", "\rx", "ok", -1, 2.5, None]) == [
        "'" + FORMULA,
        "+1",
        "-3.5",
        "'-2+3",
        "'@x",
        "'\tx",
        "'\rx",
        "ok",
        -1,
        2.5,
        None,
    ]
    rendered = MarkdownIt().render(md_text("**a** <b>x</b> `c` [l](http://e) ![i](http://e/i.png) _e_"))
    assert rendered == ("<p>**a** &lt;b&gt;x&lt;/b&gt; `c` [l](http://e) ![i](http://e/i.png) _e_</p>\n")
    assert MarkdownIt().render("> " + md_text("# not\n\n<img src=x>")) == (
        "<blockquote>\n<p># not  &lt;img src=x&gt;</p>\n</blockquote>\n"
    )
    assert MarkdownIt().render(md_text("- 1. &amp; scenario_001")) == "<p>- 1. &amp;amp; scenario_001</p>\n"
    assert md_code("run-1") == "`run-1`" and md_code("a`b") == "a\\`b"
