"""Typed records that cross the boundary between capabilities and the ledger (never ORM rows)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class TopicRecord:
    id: int
    title: str
    sources: tuple[str, ...] = ()  # URLs and absolute file paths (config.topics)
    brief: str | None = None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class SourceText:
    """One source as read (capabilities.sources): text when ``ok``, else the failure in one line."""

    number: int
    source: str
    final_url: str | None
    status: int | None
    ok: bool
    title: str | None
    digest: str | None
    text: str | None
    failure: str | None

    @property
    def link(self) -> str | None:
        """What a reader can open: the final URL of a web source; None for a local file."""
        return self.final_url if self.final_url and self.final_url.startswith(("http://", "https://")) else None


@dataclass(frozen=True)
class SourceRef:
    """A source as the page lists it under "Sources" (rendered by code, capabilities.render)."""

    number: int
    title: str
    url: str | None


@dataclass(frozen=True)
class DraftVersionRecord:
    id: int
    draft_id: int
    run_id: int
    topic_id: int
    version: int
    kind: str  # "draft" | "humanized"
    title: str
    body: str
    score: int | None


@dataclass(frozen=True)
class PublicationRecord:
    id: int
    run_id: int
    topic_id: int
    draft_version_id: int
    target: str
    external_id: str
    url: str
    idempotency_key: str
    http_status: int | None
    verified_at: datetime | None
    content_coverage: float | None = None  # the share of the article the page held at the last check
    content_digest: str | None = None  # sha256 of the title and body HTML sent (capabilities.render)
    content_found: str | None = None  # what the last check found, one line


@dataclass(frozen=True)
class RegistrationRecord:
    id: int
    run_id: int
    publication_id: int
    number: str


@dataclass(frozen=True)
class Article:
    """What a target publishes: already validated, with the idempotency key that names it.

    Every target renders ``body_markdown`` with capabilities.render; ``topic`` and ``language`` are
    shown by pages that carry them (the local site: ``<html lang>``, the byline); ``tags`` come from the
    topic (a ``.jsonl`` topic's tags, a feed entry's categories).
    """

    title: str
    body_markdown: str
    idempotency_key: str
    topic: str = ""
    language: str = "en"
    sources: tuple[SourceRef, ...] = ()  # listed under the article by every target
    tags: tuple[str, ...] = ()  # the topic's tags: WordPress post tags, shown on the local site's page


@dataclass(frozen=True)
class PublishedItem:
    url: str
    external_id: str


@dataclass(frozen=True)
class ContentCheck:
    """What a GET of a published page found (capabilities.verify)."""

    url: str
    status: int | None  # None: not requested (host outside the whitelist) or no answer
    coverage: float | None  # None: no page to measure
    verified: bool  # 2xx and coverage >= CONTENT_COVERAGE_MIN
    found: str  # one line: "page holds 61% of the article (...)", "GET answered 404", ...
