"""publish: publish the draft version the step before it made (humanize's) to the target, then check its page
holds the article.

Idempotent by business identity: one publication per (target, topic). Write-ahead, so that nothing
reaches the target without a ledger row:

    publications row for the key?  -> replay it
    intend_publication (pending, committed) -> target.lookup(key) or target.publish -> complete_publication

A crash between the target's answer and ``complete_publication`` leaves the pending intent: the next
attempt finds the item by the target's lookup by key (and so does the next start, pipeline.ledger.outbox).
Verified means the page a reader gets holds the article: a GET of its URL whose visible text covers at
least CONTENT_COVERAGE_MIN of the rendered article (capabilities.verify); the coverage, what was found
and the digest of what was sent are recorded.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from pydantic import Field

from capabilities.base import Capability, CapabilityContext, Claims, EvidenceFields, Prepared, StrictArgs, ToolResult
from capabilities.errors import ToolRejected
from capabilities.fact_check import PASSING
from capabilities.records import Article, DraftVersionRecord, SourceRef, TopicRecord
from capabilities.store import Store
from capabilities.verify import verify_publication

MAX_TITLE_CHARS = 200
MAX_BODY_BYTES = 2_000_000
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def content_digest(title: str, body: str) -> str:
    """What the intent says will be published: sha256 of the title and body."""
    return hashlib.sha256(f"{title}\n\n{body}".encode("utf-8")).hexdigest()


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


def source_refs(store: Store) -> tuple[SourceRef, ...]:
    """The run's readable sources as the page lists them under "Sources" (number, title, final URL)."""
    return tuple(SourceRef(s.number, s.title or s.source, s.link) for s in store.run_sources() if s.ok)


class PublishArgs(StrictArgs):
    version_id: int = Field(ge=1)


@dataclass(frozen=True, kw_only=True)
class PublishPlan(Prepared[PublishArgs]):
    key: str
    version: DraftVersionRecord


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


class Publish(Capability[PublishArgs, PublishPlan]):
    name = "publish"
    description = "Publish a fact-checked draft version of this run. Returns publication_id, url and whether it is online."
    Args = PublishArgs
    probe_task = "Publish version 9 of the draft."
    lookalike = "publish_article"
    claims = Claims(
        zh_verbs=("发布", "发表", "上线", "推送", "刊发", "刊登", "发出去", "发出", "发到", "上架", "公开", "推出去", "推出",
                  # visible on the site now: 网站上可以看到了, 博客上能访问了 (with 了: a state reached, no possibility;
                  # not with 就/便/才, which make it the consequence of a condition, nor with a negation)
                  r"(?:网站|站点|博客|页面|首页|线上|网上|平台)上?[^,:;。!?\n就便才不没未还]{0,4}?(?:可以|能够|能)?(?:看到|看得到|访问|查看|搜到|打开)(?:[^,:;。!?\n了]{0,8}(?=了))?"),
        zh_nouns=("发布",),
        en_done=("published", r"posted(?! a question)", "went live", "gone live", r"(?:is|are|now|it's|that's) (?:now )?live",
                 r"live (?:on|at)", r"(?:is|are|it's) (?:now )?(?:up|online)", "now online", "online at",
                 r"pushed (?:it )?(?:live|to (?:the )?(?:site|blog|platform|wordpress|production|web))",
                 r"out there now", r"went out", r"pushed (?:it |the \w+ )?out", r"(?:is|are|now) (?:now )?visible on",
                 r"(?:was|were) (?:now )?(?:live|online|up)", r"(?:is|it's) (?:now )?out(?= *(?:[,.;!]|$))"),
        en_nouns=("publish", "publishing", "publication"),
        keys=("publish", "published", "publishing", "publication", "online", "url", "link", "发布状态", "是否发布",
              "发布地址", "发布链接", "published url", "published link", "post url", "文章地址", "发布", "上线", "链接", "地址", "网址"),
    )
    evidence = EvidenceFields(urls=("url",))
    takes_version = True
    also_takes = ("edited",)  # an editor's text, approved in review (pipeline.review)
    side_effect = True

    def prepare(self, ctx: CapabilityContext, args: PublishArgs) -> PublishPlan:
        version = self.taken_version(ctx, args.version_id)  # the version the step before publish made
        checked = ctx.store.fact_check_status(version.id)
        if checked not in PASSING:
            why = "has no fact check" if checked is None else "failed its fact check"
            raise ToolRejected(f"draft version {args.version_id} {why}; publish the version_id fact_check returned")
        check_publishable(version.title, version.body)
        topic = ctx.store.topic(version.topic_id)
        assert topic is not None  # a draft version always belongs to a topic
        return PublishPlan(args=args, key=publication_key(ctx.target.name, topic, ctx.settings.pipeline),
                           version=version)

    def execute(self, ctx: CapabilityContext, prepared: PublishPlan) -> ToolResult:
        version, key = prepared.version, prepared.key
        publication = ctx.store.publication_by_key(key)
        replayed = publication is not None
        if publication is None:
            topic = ctx.store.topic(version.topic_id)
            article = Article(version.title, version.body, key, topic.title if topic else "", ctx.settings.language,
                              source_refs(ctx.store), topic.tags if topic else ())
            ctx.store.intend_publication(topic_id=version.topic_id, draft_version_id=version.id, target=ctx.target.name,
                                         key=key, digest=content_digest(version.title, version.body))
            item = ctx.target.lookup(key) or ctx.target.publish(article)
            publication = ctx.store.complete_publication(key=key, external_id=item.external_id, url=item.url)
        publication = verify_publication(ctx, publication, version)
        payload = {
            "publication_id": publication.id,
            "url": publication.url,
            "external_id": publication.external_id,
            "verified": publication.verified_at is not None,
            "http_status": publication.http_status,
            "content_coverage": publication.content_coverage,
            "found": publication.content_found,
            "replayed": replayed,
        }
        return ToolResult(payload, f"publication {publication.id} at {publication.url}: {publication.content_found}")


CAPABILITY = Publish()
