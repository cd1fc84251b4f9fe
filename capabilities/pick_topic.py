"""pick_topic: the next topic not published before, from the topics source (a file, or an RSS/Atom feed URL).

A topic may come with sources and a brief (a JSON Lines file, config.topics; a feed entry's link and
summary): they are written onto the topic's ledger row when it is picked, for write_draft and the fact check.

A title is cleaned first: control characters (a lone CR, a tab, an escape) become spaces and bidirectional
controls (U+202E RIGHT-TO-LEFT OVERRIDE and its kin, which make a title read differently than it is stored)
are removed; then a title the ledger cannot hold, or that is no title, is skipped with a warning that names it
(the file's line number, or the feed entry's position) and the rest are used: bytes that are not UTF-8, a NUL
character (PostgreSQL's text refuses it), nothing left after cleaning, an unexpanded entity (``&lol9;``: a feed
whose DTD entity was not expanded), more than MAX_TITLE_CHARS characters (the ``topics.title`` column). The file
is read line by line as bytes, so one bad line, or a 1 MB one, costs that line only. A source with no usable
topic at all says so, rather than that every topic is used.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path

import httpx
from loguru import logger

from capabilities.base import Capability, CapabilityContext, Claims, EvidenceFields, Prepared, StrictArgs, ToolResult
from capabilities.errors import ToolFailed
from capabilities.feeds import FeedLimits, entry_topics, fetch_feed
from config import Settings
from config.topics import TopicsFileError, TopicSpec, read_jsonl_topics

MAX_TITLE_CHARS = 500  # topics.title is VARCHAR(500) (pipeline.ledger.models.Topic)


class PickTopicArgs(StrictArgs):
    pass


BIDI_CONTROLS = dict.fromkeys(map(ord, "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))
ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);")


def clean_title(title: str) -> str:
    """``title`` with bidirectional controls removed, other control characters as spaces, whitespace collapsed."""
    title = title.translate(BIDI_CONTROLS)
    title = "".join(" " if unicodedata.category(c) == "Cc" and c != "\x00" else c for c in title)
    return " ".join(title.split())


def title_problem(title: str) -> str | None:
    """Why the ledger cannot hold ``title`` (cleaned) as a topic, or None."""
    if "\x00" in title:
        return "holds a NUL character"
    if not title:
        return "is empty once control characters are removed"
    if match := ENTITY.search(title):
        return f"holds an unexpanded entity {match.group()!r}"
    if len(title) > MAX_TITLE_CHARS:
        return f"is {len(title)} characters long, more than {MAX_TITLE_CHARS}"
    return None


def _usable(topics: Iterable[tuple[str, TopicSpec]]) -> list[TopicSpec]:
    """The topics the ledger can hold, in order; a warning naming each one skipped (``where``, why)."""
    kept = []
    for where, topic in topics:
        topic = dataclasses.replace(topic, title=clean_title(topic.title))
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
    evidence = EvidenceFields(quotes=("title",))

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
        if not specs and not ctx.forced_topic:
            raise ToolFailed(f"TOPICS_SOURCE {ctx.settings.topics_source} holds no usable topic (empty, or every "
                             "entry skipped: see topics.line_skipped)")
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
