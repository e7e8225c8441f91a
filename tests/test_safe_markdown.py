"""A model's answer in the drawer: safe Markdown (everything escaped, no raw HTML, no live link) with
claims highlighted by verdict on the verbatim text's offsets."""

from __future__ import annotations

from medeval.reporting.render.safe_markdown import render


def test_raw_html_and_links_stay_text() -> None:
    html = str(render('<script>alert(1)</script> <img src=x onerror="y"> see https://evil.example/a', []))
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "onerror=&#34;y&#34;" in html
    assert "https://" not in html  # a zero-width space breaks the scheme


def test_headings_lists_paragraphs_and_bold() -> None:
    text = "## Costs\nThe **Part B** premium:\n\n- first item\n- second item\n1. one\n2. two\n\nEnd."
    html = str(render(text, []))
    assert html == (
        "<h5>Costs</h5><p>The <strong>Part B</strong> premium:</p><ul><li>first item</li>"
        "<li>second item</li></ul><ol><li>one</li><li>two</li></ol><p>End.</p>"
    )


def test_claims_are_highlighted_through_the_markup_worst_verdict_winning() -> None:
    text = "- **Medicare** covers it.\n- It costs $5."
    covers = text.index("Medicare")
    costs = text.index("It costs")
    html = str(
        render(
            text,
            [
                ("SUPPORTED", [(covers, text.index("\n"))]),
                ("CONTRADICTED", [(costs, len(text))]),
                ("NOT_IN_KEY", [(costs, costs + 2)]),
            ],
        )
    )
    assert '<li><mark class="v-supported"><strong>Medicare</strong></mark>' in html
    assert '<mark class="v-supported"> covers it.</mark></li>' in html
    # The overlap of NOT_IN_KEY and CONTRADICTED shows as contradicted.
    assert '<li><mark class="v-contradicted">It costs $5.</mark></li>' in html


def test_spans_outside_the_text_are_ignored() -> None:
    assert str(render("short", [("CONTRADICTED", [(3, 99), (-1, 2)])])) == "<p>short</p>"
