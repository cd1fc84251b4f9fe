"""The corpus (tests/corpus/*.md) published to the local site and to the real WordPress: every article's page
holds it (coverage >= 0.99 of its words, code included) and carries no live markup from the model's text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from selectolax.lexbor import LexborHTMLParser

from capabilities.pagetext import coverage, visible_text, words
from capabilities.records import Article
from capabilities.render import render_markdown
from capabilities.targets import LocalTarget
from testkit.wordpress import WordPress
from tests import paths

CORPUS = sorted(paths.CORPUS.glob("*.md"))
MIN_COVERAGE = 0.99
LIVE_URL_ATTRIBUTES = ("href", "src", "action", "formaction", "xlink:href")


def corpus_article(path: Path, key: str) -> Article:
    """The file's first '# ' line is the title (a file without one is titled by its name); the rest is the body."""
    text = path.read_text(encoding="utf-8")
    first, _, rest = text.partition("\n")
    if first.startswith("# "):
        return Article(first[2:].strip(), rest, key, "corpus", "en")
    return Article(path.stem.replace("-", " "), text, key, "corpus", "en")


def article_words(article: Article) -> tuple[list[str], list[str]]:
    """The title's words and the rendered body's, as capabilities.verify measures them."""
    return words(article.title), words(visible_text(render_markdown(article.body_markdown)))


def live_markup(html: str, scope: str) -> list[str]:
    """Script elements, event-handler attributes and script URLs inside ``scope`` (a CSS selector) of the page."""
    tree = LexborHTMLParser(html)
    found = []
    for region in tree.css(scope):
        found += [f"<{node.tag}>" for node in region.css("script, iframe, object, embed, style")]
        for node in region.css("*"):
            for name, value in node.attributes.items():
                if name.startswith("on"):
                    found.append(f"{node.tag} {name}")
                if name in LIVE_URL_ATTRIBUTES and (value or "").strip().lower().startswith(
                        ("javascript:", "data:", "vbscript:")):
                    found.append(f"{node.tag} {name}={value}")
    return found


def test_the_corpus_has_thirty_articles_of_every_kind() -> None:
    """At least 30 articles, among them code with '#' lines, tables, nested lists, CJK, emoji and HTML lookalikes."""
    texts = [p.read_text(encoding="utf-8") for p in CORPUS]
    assert len(CORPUS) >= 30
    assert any("```python\n# " in t for t in texts) and any("|---" in t or "|------" in t for t in texts)
    assert any("\n  - " in t for t in texts) and any("老房子" in t for t in texts) and any("🍅" in t for t in texts)
    assert any("<script>" in t for t in texts) and any("javascript:" in t for t in texts)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalTarget]:
    with LocalTarget(tmp_path_factory.mktemp("site"), "127.0.0.1", 0) as target:
        yield target


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_a_corpus_article_is_whole_on_its_local_page(site: LocalTarget, path: Path) -> None:
    """The local page holds >= 99% of the article's words in order, and nothing in it is live markup."""
    article = corpus_article(path, f"corpus:{path.stem}")
    item = site.publish(article)
    page = httpx.get(item.url, trust_env=False).text
    found = coverage(words(visible_text(page)), *article_words(article))
    assert found.ratio >= MIN_COVERAGE, f"{path.name}: {found}"
    assert LexborHTMLParser(page).css("script") == []
    assert live_markup(page, "article") == []


@pytest.fixture(scope="module")
def wordpress_pages(wordpress: WordPress) -> dict[str, tuple[Article, str]]:
    """Every corpus article posted to WordPress once, with the HTML of its public page."""
    wordpress.restore()
    pages = {}
    with httpx.Client(timeout=30, trust_env=False) as http:
        target = wordpress.target(http)
        run = f"{time_tag()}"
        for path in CORPUS:
            article = corpus_article(path, f"corpus:{run}:{path.stem}")
            item = target.publish(article)
            pages[path.stem] = (article, http.get(item.url, follow_redirects=True).text)
    return pages


def time_tag() -> str:
    import time

    return str(time.time_ns())


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_a_corpus_article_is_whole_on_its_wordpress_page(wordpress_pages: dict[str, tuple[Article, str]],
                                                          path: Path) -> None:
    """The post's public page (the theme's chrome around it) holds >= 99% of the article; no live markup in it."""
    article, page = wordpress_pages[path.stem]
    found = coverage(words(visible_text(page)), *article_words(article))
    assert found.ratio >= MIN_COVERAGE, f"{path.name}: {found}"
    assert live_markup(page, ".wp-block-post-content, .entry-content") == []
    assert LexborHTMLParser(page).css_first(".wp-block-post-content, .entry-content") is not None
