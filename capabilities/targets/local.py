"""The embedded default target: articles become pages of a small static site served on 127.0.0.1.

The file name is derived from the idempotency key, so ``lookup`` finds an article an earlier
attempt already wrote. While the target is open it serves LOCAL_SITE_DIR (capabilities.targets.site)
unless another factline process already does on that port (``factline site serve``, the daemon):
``serving`` tells which, so ``factline run`` can say when its pages stop being served.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import TracebackType

from loguru import logger

from capabilities.errors import ToolFailed
from capabilities.records import Article, PublishedItem
from capabilities.render import article_html
from capabilities.targets.site import SiteServer, write_article


class LocalTarget:
    name = "local"

    def __init__(self, site_dir: Path, host: str, port: int) -> None:
        self.site_dir = site_dir
        self.host = host
        self.port = port
        self._server: SiteServer | None = None

    @property
    def serving(self) -> bool:
        """Whether this process serves the site (False: another process had the port when it opened)."""
        return self._server is not None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def __enter__(self) -> LocalTarget:
        self.site_dir.mkdir(parents=True, exist_ok=True)
        server = SiteServer(self.site_dir, self.host, self.port)
        try:
            self._server = server.__enter__()
        except OSError as exc:
            logger.warning("local_site.port_in_use", host=self.host, port=self.port, error=str(exc))
            return self  # another factline process serves the site; verification will tell
        self.port = server.port
        logger.info("local_site.serving", url=self.base_url, dir=str(self.site_dir))
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._server is not None:
            self._server.__exit__(exc_type, exc, tb)
            self._server = None

    @staticmethod
    def slug(key: str) -> str:
        return "a-" + hashlib.sha256(key.encode()).hexdigest()[:16]

    def _item(self, slug: str) -> PublishedItem:
        return PublishedItem(url=f"{self.base_url}{slug}.html", external_id=slug)

    def lookup(self, idempotency_key: str) -> PublishedItem | None:
        slug = self.slug(idempotency_key)
        return self._item(slug) if (self.site_dir / f"{slug}.html").exists() else None

    def publish(self, article: Article) -> PublishedItem:
        slug = self.slug(article.idempotency_key)
        try:
            write_article(self.site_dir, slug, article, article_html(article), self.base_url)
        except OSError as exc:
            raise ToolFailed(f"local target cannot write {self.site_dir / slug}.html: {exc}") from exc
        return self._item(slug)
