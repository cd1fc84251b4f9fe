"""The page a draft version would be, rendered to PREVIEW_DIR (the local site's layout, whatever the target)."""

from __future__ import annotations

from pathlib import Path

from capabilities.records import Article
from capabilities.render import render_markdown
from capabilities.targets.site import write_preview
from config import Settings
from pipeline.ledger.store import LedgerStore


def render_preview(settings: Settings, store: LedgerStore, version_id: int, slug: str) -> Path | None:
    """The preview page of ``version_id`` as ``<PREVIEW_DIR>/<slug>.html``; None when there is no such version."""
    version = store.draft_version(version_id)
    if version is None:
        return None
    topic = store.topic(version.topic_id)
    article = Article(version.title, version.body, f"preview:{slug}", topic.title if topic else "", settings.language,
                      tags=topic.tags if topic else ())
    return write_preview(settings.preview_dir, slug, article, render_markdown(version.body))
