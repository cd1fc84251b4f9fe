"""publish: publish a humanized draft version of this run to the target, then HEAD its URL.

Idempotent by business identity: one publication per (target, topic). The key is checked in the
ledger first, then on the target (an earlier attempt may have published before its answer was lost),
and only then is the article posted.
"""

from __future__ import annotations

import hashlib
import re

from pydantic import Field

from capabilities.base import Capability, CapabilityContext, StrictArgs, ToolResult
from capabilities.errors import ToolRejected
from capabilities.records import Article, DraftVersionRecord, PublicationRecord, TopicRecord
from capabilities.verify import head_check

MAX_TITLE_CHARS = 200
MAX_BODY_BYTES = 2_000_000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def publication_key(target: str, topic: TopicRecord, pipeline: str = "content") -> str:
    """The idempotency key of a pipeline's topic on a target: the pipeline, the topic id and a title digest.

    The title digest matters: topic ids are only unique within one ledger, and a fresh ledger (a new
    database, another environment) against the same site must not take another topic's post for its own.
    The pipeline ``content`` keeps the key it had before pipelines existed (no pipeline part): a post
    made before the upgrade is found again by its key instead of being published a second time.
    """
    digest = hashlib.sha256(topic.title.encode("utf-8")).hexdigest()[:16]
    scope = "" if pipeline == "content" else f"{pipeline}:"
    return f"publish:{scope}{target}:topic-{topic.id}-{digest}"


class PublishArgs(StrictArgs):
    version_id: int = Field(ge=1)


def check_publishable(title: str, body: str) -> None:
    """Reject, before any request, text a platform would mangle or half-accept."""
    for label, text in (("title", title), ("body", body)):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ToolRejected(f"{label} is not valid UTF-8 text") from exc
        if match := _CONTROL.search(text):
            raise ToolRejected(f"{label} contains control character {match.group()!r} at {match.start()}")
    if not title.strip() or len(title) > MAX_TITLE_CHARS:
        raise ToolRejected(f"title must be 1-{MAX_TITLE_CHARS} characters")
    if len(body.encode("utf-8")) > MAX_BODY_BYTES:
        raise ToolRejected(f"body is larger than {MAX_BODY_BYTES} bytes")


class Publish(Capability[PublishArgs]):
    name = "publish"
    description = "Publish a humanized draft version of this run. Returns publication_id, url and whether it is online."
    Args = PublishArgs

    def _version(self, ctx: CapabilityContext, args: PublishArgs) -> DraftVersionRecord:
        version = ctx.store.draft_version(args.version_id)
        if version is None:
            raise ToolRejected(f"draft version {args.version_id} does not exist", hallucinated_argument=True)
        return version

    def validate(self, ctx: CapabilityContext, args: PublishArgs) -> None:
        version = self._version(ctx, args)
        if version.run_id != ctx.run_id:
            raise ToolRejected(f"draft version {args.version_id} belongs to another run", hallucinated_argument=True)
        if version.kind != "humanized":
            raise ToolRejected(f"draft version {args.version_id} is not humanized yet; call humanize first")
        check_publishable(version.title, version.body)

    def idempotency_key(self, ctx: CapabilityContext, args: PublishArgs) -> str:
        topic = ctx.store.topic(self._version(ctx, args).topic_id)
        assert topic is not None  # a draft version always belongs to a topic
        return publication_key(ctx.target.name, topic, ctx.settings.pipeline)

    def execute(self, ctx: CapabilityContext, args: PublishArgs) -> ToolResult:
        version = self._version(ctx, args)
        key = self.idempotency_key(ctx, args)
        publication = ctx.store.publication_by_key(key)
        replayed = publication is not None
        if publication is None:
            item = ctx.target.lookup(key) or ctx.target.publish(Article(version.title, version.body, key))
            publication = ctx.store.add_publication(
                topic_id=version.topic_id, draft_version_id=version.id, target=ctx.target.name,
                external_id=item.external_id, url=item.url, key=key,
            )
        publication = self._verify(ctx, publication)
        payload = {
            "publication_id": publication.id,
            "url": publication.url,
            "external_id": publication.external_id,
            "online": publication.verified_at is not None,
            "head_status": publication.head_status,
            "replayed": replayed,
        }
        return ToolResult(payload, f"publication {publication.id} at {publication.url} (HEAD {publication.head_status})")

    @staticmethod
    def _verify(ctx: CapabilityContext, publication: PublicationRecord) -> PublicationRecord:
        head = head_check(ctx.http, publication.url, ctx.settings.publish_domain_whitelist)
        return ctx.store.record_head(publication.id, head.status, head.verified)


CAPABILITY = Publish()
