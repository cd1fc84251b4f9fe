"""The embedded default target: articles become HTML files served over HTTP on 127.0.0.1.

The file name is derived from the idempotency key, so ``lookup`` finds an article an earlier
attempt already wrote. The HTTP server lives as long as the target is open (the run, or the daemon).
"""

from __future__ import annotations

import hashlib
import html
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType

from loguru import logger

from capabilities.errors import ToolFailed
from capabilities.records import Article, PublishedItem
from capabilities.targets.markup import markdown_to_html


class _QuietHandler(SimpleHTTPRequestHandler):
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        return None


def render_html(article: Article) -> str:
    """A small, escaped HTML page: '#' lines become headings, blank lines separate paragraphs."""
    parts = [f"<!doctype html><meta charset=utf-8><title>{html.escape(article.title)}</title>",
             f"<h1>{html.escape(article.title)}</h1>"]
    parts.extend(markdown_to_html(article.body_markdown))
    return "\n".join(parts) + "\n"


class LocalTarget:
    name = "local"

    def __init__(self, site_dir: Path, host: str, port: int) -> None:
        self.site_dir = site_dir
        self.host = host
        self.port = port
        self._server: ThreadingHTTPServer | None = None

    def __enter__(self) -> LocalTarget:
        self.site_dir.mkdir(parents=True, exist_ok=True)
        handler = partial(_QuietHandler, directory=str(self.site_dir))
        try:
            self._server = ThreadingHTTPServer((self.host, self.port), handler)
        except OSError as exc:
            logger.warning("local_site.port_in_use", host=self.host, port=self.port, error=str(exc))
            return self  # another factline process serves the site; verification will tell
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, name="local-site", daemon=True).start()
        logger.info("local_site.serving", url=f"http://{self.host}:{self.port}/", dir=str(self.site_dir))
        return self

    def __exit__(self, *exc: tuple[type[BaseException] | None, BaseException | None, TracebackType | None]) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @staticmethod
    def _slug(key: str) -> str:
        return "a-" + hashlib.sha256(key.encode()).hexdigest()[:16]

    def _item(self, slug: str) -> PublishedItem:
        return PublishedItem(url=f"http://{self.host}:{self.port}/{slug}.html", external_id=slug)

    def lookup(self, idempotency_key: str) -> PublishedItem | None:
        slug = self._slug(idempotency_key)
        return self._item(slug) if (self.site_dir / f"{slug}.html").exists() else None

    def publish(self, article: Article) -> PublishedItem:
        slug = self._slug(article.idempotency_key)
        final = self.site_dir / f"{slug}.html"
        partial_file = final.with_suffix(".tmp")
        try:
            partial_file.write_text(render_html(article), encoding="utf-8")
            partial_file.replace(final)  # atomic: never a half-written page
        except OSError as exc:
            raise ToolFailed(f"local target cannot write {final}: {exc}") from exc
        return self._item(slug)
