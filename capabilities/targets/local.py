"""The embedded default target: articles become pages of a small static site served on 127.0.0.1.

The file name is derived from the idempotency key, so ``lookup`` finds an article an earlier
attempt already wrote. While the target is open it serves LOCAL_SITE_DIR (capabilities.targets.site)
unless another factline process already does on that port (``factline site serve``, the daemon, another
``factline run``): ``serving`` tells which, so ``factline run`` can say when its pages stop being served.

Decision (issue #26, finding 5): a target that found the port taken keeps trying to take it over, every
TAKEOVER_SECONDS while it is open. Several ``factline run`` at once share one server, the first one's; when
that run exits first, the next one open serves the site within TAKEOVER_SECONDS, so the others' page checks
(retried on a refused connection) find their pages instead of ending unverified. The site stays served as
long as any factline process with the local target is open; a process never serves another's folder by
mistake, since LOCAL_SITE_DIR and LOCAL_SITE_PORT are one deployment's.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from types import TracebackType

from loguru import logger

from capabilities.errors import ToolFailed
from capabilities.records import Article, PublishedItem
from capabilities.render import article_html
from capabilities.targets.site import SiteServer, retract_article, write_article


TAKEOVER_SECONDS = 0.2


class LocalTarget:
    name = "local"

    def __init__(self, site_dir: Path, host: str, port: int) -> None:
        self.site_dir = site_dir
        self.host = host
        self.port = port
        self._server: SiteServer | None = None
        self._closing = threading.Event()
        self._watcher: threading.Thread | None = None

    @property
    def serving(self) -> bool:
        """Whether this process serves the site (False: another process had the port when it opened)."""
        return self._server is not None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def _serve(self) -> bool:
        server = SiteServer(self.site_dir, self.host, self.port)
        try:
            self._server = server.__enter__()
        except OSError:
            return False
        self.port = server.port
        return True

    def _take_over(self) -> None:
        while not self._closing.wait(TAKEOVER_SECONDS):
            if self._serve():
                logger.info("local_site.took_over", url=self.base_url, dir=str(self.site_dir))
                return

    def __enter__(self) -> LocalTarget:
        self.site_dir.mkdir(parents=True, exist_ok=True)
        self._closing.clear()
        if not self._serve():
            logger.warning("local_site.port_in_use", host=self.host, port=self.port)
            self._watcher = threading.Thread(target=self._take_over, name="local-site-takeover", daemon=True)
            self._watcher.start()  # another factline process serves the site, until it exits
            return self
        logger.info("local_site.serving", url=self.base_url, dir=str(self.site_dir))
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._closing.set()
        if self._watcher is not None:
            self._watcher.join(5)
            self._watcher = None
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

    def retract(self, external_id: str, notice: str) -> None:
        """The page answers 410 Gone with ``notice`` and leaves the index and the feed (its file stays, so
        ``lookup`` still finds it and the topic is never published a second time)."""
        try:
            retract_article(self.site_dir, external_id, notice, self.base_url)
        except OSError as exc:
            raise ToolFailed(f"local target cannot retract {external_id}: {exc}") from exc

    def update(self, external_id: str, article: Article) -> PublishedItem:
        """The same page (same file, same URL) with the corrected article."""
        try:
            write_article(self.site_dir, external_id, article, article_html(article), self.base_url)
        except OSError as exc:
            raise ToolFailed(f"local target cannot write {self.site_dir / external_id}.html: {exc}") from exc
        return self._item(external_id)
