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
    head_status: int | None
    verified_at: datetime | None


@dataclass(frozen=True)
class RegistrationRecord:
    id: int
    run_id: int
    publication_id: int
    number: str


@dataclass(frozen=True)
class Article:
    """What a target publishes: already validated, with the idempotency key that names it."""

    title: str
    body_markdown: str
    idempotency_key: str


@dataclass(frozen=True)
class PublishedItem:
    url: str
    external_id: str


@dataclass(frozen=True)
class HeadResult:
    url: str
    status: int | None  # None: not requested (host outside the whitelist) or no answer
    verified: bool
    reason: str
