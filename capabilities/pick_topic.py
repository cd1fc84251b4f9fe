"""pick_topic: the next topic not published before, from the topics source (a file, or an RSS/Atom feed URL).

A topic may come with sources and a brief (a JSON Lines file, config.topics; a feed entry's link and
summary): they are written onto the topic's ledger row when it is picked, for write_draft and the fact check.

A title the ledger cannot hold is skipped with a warning that names it (the file's line number, or the
feed entry's position) and the rest are used: bytes that are not UTF-8, a NUL character (PostgreSQL's
text refuses it), more than MAX_TITLE_CHARS characters (the ``topics.title`` column). The file is read
line by line as bytes, so one bad line, or a 1 MB one, costs that line only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import httpx
from loguru import logger

from capabilities.base import Capability, CapabilityContext, Claims, Prepared, StrictArgs, ToolResult
from capabilities.errors import ToolFailed
from capabilities.feeds import FeedLimits, entry_topics, fetch_feed
from config import Settings
from config.topics import TopicsFileError, TopicSpec, read_jsonl_topics

MAX_TITLE_CHARS = 500  # topics.title is VARCHAR(500) (pipeline.ledger.models.Topic)


class PickTopicArgs(StrictArgs):
    pass


def title_problem(title: str) -> str | None:
    """Why the ledger cannot hold ``title`` as a topic, or None."""
    if "\x00" in title:
        return "holds a NUL character"
    if len(title) > MAX_TITLE_CHARS:
        return f"is {len(title)} characters long, more than {MAX_TITLE_CHARS}"
    return None


def _usable(topics: Iterable[tuple[str, TopicSpec]]) -> list[TopicSpec]:
    """The topics the ledger can hold, in order; a warning naming each one skipped (``where``, why)."""
    kept = []
    for where, topic in topics:
        if problem := title_problem(topic.title):
            logger.warning("topics.line_skipped", where=where, problem=problem)
        else:
            kept.append(topic)
    return kept


def _file_titles(path: Path) -> Iterator[tuple[str, TopicSpec]]:
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, 1):
            try:
                line = raw.decode("utf-8").strip()
            except UnicodeDecodeError as exc:
                logger.warning("topics.line_skipped", where=f"{path}:{number}",
                               problem=f"not UTF-8 (byte {exc.start + 1})")
                continue
            if line and not line.startswith("#"):
                yield f"{path}:{number}", TopicSpec(line)


def _jsonl_topics(path: Path, settings: Settings) -> Iterator[tuple[str, TopicSpec]]:
    try:
        specs = read_jsonl_topics(path, [Path(d) for d in settings.source_local_dirs])
    except TopicsFileError as exc:  # checked at start; the file changed since
        raise ToolFailed(f"TOPICS_SOURCE: {exc}") from None
    yield from ((f"{path} entry {i}", spec) for i, spec in enumerate(specs, 1))


def read_topics(settings: Settings, http: httpx.Client) -> list[TopicSpec]:
    """Topics in source order: a text file's lines, a JSON Lines file's entries, or a feed's entries."""
    source = settings.topics_source
    if source.startswith(("http://", "https://")):
        limits = FeedLimits(settings.topics_feed_max_bytes, settings.topics_feed_deadline_seconds,
                            settings.topics_feed_max_items)
        topics = entry_topics(fetch_feed(http, source, limits, settings.publish_domain_whitelist), limits.max_items)
        return _usable((f"{source} entry {i}", topic) for i, topic in enumerate(topics, 1))
    path = Path(source)
    if not path.is_file():
        raise ToolFailed(f"TOPICS_SOURCE {source} is not a file")
    return _usable(_jsonl_topics(path, settings) if path.suffix == ".jsonl" else _file_titles(path))


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
        specs: dict[str, TopicSpec] = {}
        for spec in read_topics(ctx.settings, ctx.http):
            specs.setdefault(spec.title, spec)  # a title given twice: its first entry counts
        topic = ctx.store.claim_topic(list(specs), ctx.forced_topic)
        if topic is None:
            if ctx.forced_topic:
                raise ToolFailed(f"topic {ctx.forced_topic!r} is already used (published and registered)")
            raise ToolFailed("every topic in TOPICS_SOURCE is already used")
        spec = specs.get(topic.title, TopicSpec(topic.title))
        topic = ctx.store.describe_topic(topic.id, spec.sources, spec.brief, spec.tags)
        payload = {"topic_id": topic.id, "title": topic.title, "sources": len(topic.sources)}
        return ToolResult(payload, f"topic {topic.id}: {topic.title} ({len(topic.sources)} sources)")


CAPABILITY = PickTopic()
