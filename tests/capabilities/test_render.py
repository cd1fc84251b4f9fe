"""Markdown as the model writes it becomes the page a reader expects: markdown-it-py, raw HTML off, safe links."""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from capabilities.pagetext import coverage, visible_text, words
from capabilities.render import link_allowed, render_markdown

RECIPE = """### The recipe
- flour
- water

```python
# scale.py
import sys

# the base quantities
BASE = {"flour": 500}
```

**bold**, [a link](https://example.com), `code`

| a | b |
|---|---|
| 1 | 2 |
"""


def test_code_lines_starting_with_hash_stay_code_with_every_line() -> None:
    """A fenced block whose lines start with '#' keeps every line inside <pre>, and makes no heading."""
    tree = LexborHTMLParser(render_markdown(RECIPE))
    code = tree.css_first("pre code").text()
    assert code == '# scale.py\nimport sys\n\n# the base quantities\nBASE = {"flour": 500}\n'
    assert [h.text() for h in tree.css("h1, h2, h3, h4, h5, h6")] == ["The recipe"]


def test_lists_emphasis_links_and_tables_become_elements() -> None:
    """A list right under a heading, bold, links, inline code and tables are rendered, not shown as characters."""
    tree = LexborHTMLParser(render_markdown(RECIPE))
    assert [li.text() for li in tree.css("ul li")] == ["flour", "water"]
    assert tree.css_first("strong").text() == "bold"
    assert tree.css_first("a").attributes["href"] == "https://example.com"
    assert [td.text() for td in tree.css("td")] == ["1", "2"]


def test_headings_start_one_level_below_the_page_title() -> None:
    """'# x' in the body is an <h2>: the page title stays the only <h1>."""
    assert render_markdown("# Top\n\n###### Deep").splitlines() == ["<h2>Top</h2>", "<h6>Deep</h6>"]


def test_html_in_the_model_text_stays_text() -> None:
    """<script>, event handlers and tags written by the model are escaped: the reader sees them as characters."""
    html = render_markdown('<script>alert(1)</script>\n\n<img src=x onerror="alert(1)"> and <b>b</b>')
    tree = LexborHTMLParser(html)
    assert tree.css("script, img, b") == []
    assert "<script>alert(1)</script>" in visible_text(html)


def test_script_and_data_links_are_left_as_text() -> None:
    """javascript:, data:, vbscript: and file: never become an href or a src; http(s), mailto and relative do."""
    html = render_markdown("[x](javascript:alert(1)) [y](data:text/html,hi) ![z](vbscript:a) [w](JaVaScRiPt:b) "
                           "[ok](https://e.com) [rel](/about) [m](mailto:a@b.c)")
    hrefs = [a.attributes.get("href") for a in LexborHTMLParser(html).css("a")]
    assert hrefs == ["https://e.com", "/about", "mailto:a@b.c"] and "<img" not in html
    assert not link_allowed(" java\tscript:alert(1)") and not link_allowed("file:///etc/passwd")


def test_coverage_counts_words_in_order_and_splits_cjk() -> None:
    """Coverage is of the article's words in order; CJK text counts per character; punctuation does not count."""
    article = words("热泵不是制造热量 -- it's \"moving\" heat")
    assert article[:4] == ["热", "泵", "不", "是"] and article[-3:] == ["s", "moving", "heat"]
    assert coverage(words("menu 热泵不是制造热量 – it’s “moving” heat footer"), article).ratio == 1.0
    half = coverage(words("menu one two three four footer"), words("one two three four five six seven eight"))
    assert (half.ratio, half.percent, half.first_missing) == (0.5, "50%", "five six seven eight")
    changed = coverage(words("a b c d e X g h i j"), words("a b c d e f g h i j"))
    titled = coverage(words("Short title 2026-11-30 byline a b c d"), words("Short title"), words("a b c d"))
    assert titled.ratio == 1.0
    assert (changed.found_words, changed.first_missing) == (9, "f g h i j")
