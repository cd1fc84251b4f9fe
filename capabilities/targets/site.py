"""The local site's files and its HTTP server: article pages, an index newest first, an Atom feed.

    write_article(site_dir, slug, article, body_html, base_url)   the page, its metadata, then index and feed
    write_preview(preview_dir, article, body_html) -> Path         a page as it would be published (dry run)
    SiteServer(site_dir, host, port)                                serves the directory while it is open, with
                                                                    the dashboard's hardened server
                                                                    (capabilities.targets.httpserver)

Every page is self-contained (the stylesheet is inlined: one request, nothing to go stale) and has
``lang``, a viewport, its date, topic and tags. Each article keeps a small JSON file beside it
(``<slug>.json``: title, topic, language, date) from which index.html and feed.xml (feedgen) are
rebuilt after every publish, so the site describes itself without the ledger. Every file is written
to a temporary name and renamed: a reader never sees half a page.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType

from feedgen.feed import FeedGenerator
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.responses import HTMLResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from capabilities.records import Article
from capabilities.targets.httpserver import SITE_CSP, SecurityHeaders, ServerErrors, ThreadedServer, static_site

TEMPLATES = Path(__file__).resolve().parent / "templates"
_JINJA = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html"]))
_CSS = Markup((TEMPLATES / "site.css").read_text(encoding="utf-8"))
FEED_ENTRIES = 50


@dataclass(frozen=True)
class SiteEntry:
    """One article's metadata, kept beside its page as <slug>.json."""

    file: str
    title: str
    topic: str
    language: str
    published: datetime


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and a rename."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def render_page(article: Article, body_html: str, published: datetime) -> str:
    """The article's page: title, date, topic, tags and the rendered body inside the site's layout (the tags are
    escaped by the template's autoescape, like the title)."""
    return _JINJA.get_template("page.html").render(
        title=article.title, topic=article.topic, tags=article.tags, language=article.language, published=published,
        body=Markup(body_html), css=_CSS)


def write_article(site_dir: Path, slug: str, article: Article, body_html: str, base_url: str) -> None:
    published = datetime.now(timezone.utc).replace(microsecond=0)
    atomic_write(site_dir / f"{slug}.html", render_page(article, body_html, published))
    entry = SiteEntry(f"{slug}.html", article.title, article.topic, article.language, published)
    atomic_write(site_dir / f"{slug}.json", json.dumps({**asdict(entry), "published": published.isoformat()},
                                                       ensure_ascii=False))
    rebuild_index(site_dir, base_url)


def gone_marker(site_dir: Path, slug: str) -> Path:
    """``<slug>.gone``: the page was retracted (its notice inside); the server answers 410 for it."""
    return site_dir / f"{slug}.gone"


def retract_article(site_dir: Path, slug: str, notice: str, base_url: str) -> None:
    """The page answers 410 with ``notice`` from now on, and leaves the index and the feed."""
    if not (site_dir / f"{slug}.html").exists():
        raise FileNotFoundError(f"{slug}.html is not on the site")
    atomic_write(gone_marker(site_dir, slug), notice)
    rebuild_index(site_dir, base_url)


def gone_page(notice: str) -> str:
    return _JINJA.get_template("gone.html").render(notice=notice, css=_CSS, language="en")


def write_preview(preview_dir: Path, slug: str, article: Article, body_html: str) -> Path:
    preview_dir.mkdir(parents=True, exist_ok=True)
    path = preview_dir / f"{slug}.html"
    atomic_write(path, render_page(article, body_html, datetime.now(timezone.utc).replace(microsecond=0)))
    return path


def entries(site_dir: Path) -> list[SiteEntry]:
    """The site's articles, newest first (a metadata file that cannot be read is left out)."""
    found = []
    for meta in site_dir.glob("*.json"):
        if gone_marker(site_dir, meta.stem).exists():
            continue  # retracted: out of the index and the feed
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
            found.append(SiteEntry(data["file"], data["title"], data["topic"], data["language"],
                                   datetime.fromisoformat(data["published"])))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return sorted(found, key=lambda e: (e.published, e.file), reverse=True)


def rebuild_index(site_dir: Path, base_url: str) -> None:
    """index.html and feed.xml from the articles' metadata files."""
    listed = entries(site_dir)
    language = listed[0].language if listed else "en"
    atomic_write(site_dir / "index.html", _JINJA.get_template("index.html").render(
        entries=listed, language=language, css=_CSS))
    atomic_write(site_dir / "feed.xml", atom_feed(listed, base_url))


def atom_feed(listed: list[SiteEntry], base_url: str) -> str:
    feed = FeedGenerator()
    feed.id(base_url)
    feed.title("factline")
    feed.link(href=base_url, rel="alternate")
    feed.link(href=base_url + "feed.xml", rel="self")
    feed.updated(listed[0].published if listed else datetime(1970, 1, 1, tzinfo=timezone.utc))
    for item in reversed(listed[:FEED_ENTRIES]):  # feedgen lists entries in reverse order of adding
        entry = feed.add_entry()
        entry.id(base_url + item.file)
        entry.title(item.title)
        entry.link(href=base_url + item.file)
        entry.published(item.published)
        entry.updated(item.published)
        if item.topic:
            entry.category(term=item.topic)
    return feed.atom_str(pretty=True).decode("utf-8")


def site_app(site_dir: Path) -> ASGIApp:
    """The site's files (static_site), except that a retracted page (its ``.gone`` marker beside it) answers
    410 Gone with its notice, under the same headers."""
    files = static_site(site_dir)
    gone = SecurityHeaders(ServerErrors(_gone_response(site_dir)), SITE_CSP)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _retracted(site_dir, scope["path"]) is not None:
            await gone(scope, receive, send)
            return
        await files(scope, receive, send)

    return app


def _retracted(site_dir: Path, path: str) -> Path | None:
    name = path.rsplit("/", 1)[-1]
    if not name.endswith(".html") or any(ord(c) < 32 or ord(c) == 127 for c in name):
        return None
    marker = gone_marker(site_dir, name.removesuffix(".html"))
    return marker if marker.is_file() else None


def _gone_response(site_dir: Path) -> ASGIApp:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        marker = _retracted(site_dir, scope["path"])
        notice = marker.read_text(encoding="utf-8") if marker is not None else "Retracted."
        await HTMLResponse(gone_page(notice), status_code=410)(scope, receive, send)

    return app


class SiteServer:
    """Serves ``site_dir`` over HTTP on (host, port) from a thread while open; port 0 picks a free one. No symlink
    out of it, no folder listing, security headers (capabilities.targets.httpserver.static_site).

    Raises OSError when the port is taken (another factline process may be serving the site).
    """

    def __init__(self, site_dir: Path, host: str, port: int) -> None:
        self.site_dir, self.host, self.port = site_dir, host, port
        self._server: ThreadedServer | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def __enter__(self) -> SiteServer:
        self.site_dir.mkdir(parents=True, exist_ok=True)
        server = ThreadedServer(site_app(self.site_dir), self.host, self.port, "local-site")
        self.port = server.port
        if not (self.site_dir / "index.html").exists():
            rebuild_index(self.site_dir, self.url)
        self._server = server.__enter__()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._server is not None:
            self._server.__exit__(exc_type, exc, tb)
            self._server = None
