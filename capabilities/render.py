"""Markdown to HTML for every target: markdown-it-py (CommonMark, tables, strikethrough), raw HTML off.

What the model writes stays inert text: HTML in it is escaped, not passed through (``html: False``),
and a link or image whose address is not http(s), mailto or relative is left as literal text
(``validateLink``), so ``javascript:``, ``data:``, ``vbscript:`` and ``file:`` never become an href or src.
The article's headings start one level below the page title (``# x`` becomes ``<h2>``): the title is
the page's only ``<h1>``.

    render_markdown(markdown) -> str          the article body's HTML
    article_html(article) -> str              what a target is sent: the body, then the "Sources" list that
                                              code writes from the ledger's sources (escaped; never the model's)
    article_digest(title, body_html) -> str   the digest of what was sent, recorded per publication
"""

from __future__ import annotations

import hashlib
import html
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

from capabilities.records import Article, SourceRef

SOURCES_HEADING = {"en": "Sources", "zh": "来源"}

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})


def link_allowed(url: str) -> bool:
    """A link or image address the page may carry: http(s), mailto, or relative (no scheme)."""
    cleaned = "".join(ch for ch in url.strip() if ch.isprintable() and not ch.isspace()).lower()
    try:
        scheme = urlsplit(cleaned).scheme
    except ValueError:
        return False
    return scheme == "" or scheme in SAFE_SCHEMES


def _demote_headings(state: StateCore) -> None:
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + 1, 6)}"


def _renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = link_allowed  # type: ignore[method-assign]
    md.core.ruler.push("demote_headings", _demote_headings)
    return md


_MD = _renderer()


def render_markdown(markdown: str) -> str:
    """The article body as HTML: every model-written character escaped or rendered, none live."""
    return _MD.render(markdown)


def render_sources(sources: tuple[SourceRef, ...], language: str = "en") -> str:
    """The "Sources" list under an article: numbered as the text cites them, a link where there is a URL."""
    if not sources:
        return ""
    items = []
    for ref in sources:
        title = html.escape(ref.title, quote=False)
        if ref.url and link_allowed(ref.url):
            url = html.escape(ref.url, quote=True)
            title = f'<a href="{url}">{title}</a> <span class="source-url">{html.escape(ref.url, quote=False)}</span>'
        items.append(f'<li value="{ref.number}">{title}</li>')
    heading = SOURCES_HEADING.get(language, "Sources")
    return f'\n<section class="sources"><h2>{heading}</h2>\n<ol>\n' + "\n".join(items) + "\n</ol>\n</section>\n"


def article_html(article: Article) -> str:
    """What a target publishes: the rendered body and, below it, the sources code listed."""
    return render_markdown(article.body_markdown) + render_sources(article.sources, article.language)


def article_digest(title: str, body_html: str) -> str:
    """sha256 of the title and the body HTML sent to the target (``content_digest`` in the ledger)."""
    return hashlib.sha256(f"{title}\n{body_html}".encode()).hexdigest()
