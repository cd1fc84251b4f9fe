"""pick_topic: the next topic not published before, from the topics source (a file, or an RSS/Atom feed URL)."""

from __future__ import annotations

from pathlib import Path

import httpx

from capabilities.base import Capability, CapabilityContext, Claims, Prepared, StrictArgs, ToolResult
from capabilities.errors import ToolFailed
from capabilities.feeds import FeedLimits, entry_titles, fetch_feed
from config import Settings


class PickTopicArgs(StrictArgs):
    pass


def read_topics(settings: Settings, http: httpx.Client) -> list[str]:
    """Titles in source order: one per line of a text file, or the entries' titles of a feed (capabilities.feeds)."""
    source = settings.topics_source
    if source.startswith(("http://", "https://")):
        limits = FeedLimits(settings.topics_feed_max_bytes, settings.topics_feed_deadline_seconds,
                            settings.topics_feed_max_items)
        return entry_titles(fetch_feed(http, source, limits, settings.publish_domain_whitelist), limits.max_items)
    path = Path(source)
    if not path.is_file():
        raise ToolFailed(f"TOPICS_SOURCE {source} is not a file")
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


class PickTopic(Capability[PickTopicArgs, Prepared[PickTopicArgs]]):
    name = "pick_topic"
    description = "Pick the next topic that has not been published yet. Returns topic_id and title."
    Args = PickTopicArgs
    probe_task = "Pick the topic for today's article."
    lookalike = "pick_topics"
    claims = Claims(
        zh_verbs=("选题", "选定主题", "选好题"),
        zh_nouns=("选题", "主题"),
        en_done=(r"(?:picked|selected|chose|chosen) (?:a|the|today's) topic",),
        en_nouns=("topic",),
        keys=("pick_topic", "选题"),
    )

    def prepare(self, ctx: CapabilityContext, args: PickTopicArgs) -> Prepared[PickTopicArgs]:
        return Prepared(args=args)

    def execute(self, ctx: CapabilityContext, prepared: Prepared[PickTopicArgs]) -> ToolResult:
        picked = ctx.store.topic_for_run()
        if picked is not None:  # a run keeps its topic: asked again, or continued on another worker
            return ToolResult({"topic_id": picked.id, "title": picked.title, "replayed": True},
                              f"topic {picked.id}: {picked.title} (already this run's topic)")
        titles = read_topics(ctx.settings, ctx.http)
        topic = ctx.store.claim_topic(titles, ctx.forced_topic)
        if topic is None:
            if ctx.forced_topic:
                raise ToolFailed(f"topic {ctx.forced_topic!r} is already used (published and registered)")
            raise ToolFailed("every topic in TOPICS_SOURCE is already used")
        return ToolResult({"topic_id": topic.id, "title": topic.title}, f"topic {topic.id}: {topic.title}")


CAPABILITY = PickTopic()
