"""Typed records that cross the boundary between capabilities and the ledger (never ORM rows)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class TopicRecord:
    id: int
    title: str


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
    shown by pages that carry them (the local site: ``<html lang>``, the byline).
    """

    title: str
    body_markdown: str
    idempotency_key: str
    topic: str = ""
    language: str = "en"


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
