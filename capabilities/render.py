"""Markdown to HTML for every target: markdown-it-py (CommonMark, tables, strikethrough), raw HTML off.

What the model writes stays inert text: HTML in it is escaped, not passed through (``html: False``),
and a link or image whose address is not http(s), mailto or relative is left as literal text
(``validateLink``), so ``javascript:``, ``data:``, ``vbscript:`` and ``file:`` never become an href or src.
The article's headings start one level below the page title (``# x`` becomes ``<h2>``): the title is
the page's only ``<h1>``.

    render_markdown(markdown) -> str          the article body's HTML (what a target is sent)
    article_digest(title, body_html) -> str   the digest of what was sent, recorded per publication
"""

from __future__ import annotations

import hashlib
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

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


def article_digest(title: str, body_html: str) -> str:
    """sha256 of the title and the body HTML sent to the target (``content_digest`` in the ledger)."""
    return hashlib.sha256(f"{title}\n{body_html}".encode()).hexdigest()
