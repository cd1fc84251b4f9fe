"""Topics from an RSS or Atom feed: fetched within limits, read with feedparser, entries' titles only.

    fetch_feed(http, url, limits, whitelist)
        GET with redirects followed by hand (at most verify.MAX_REDIRECTS): a hop is requested only when
        its host is the feed's own host or in PUBLISH_DOMAIN_WHITELIST (the rule capabilities.verify
        applies to published URLs); anything else fails before any request to it.
        The body is streamed: past TOPICS_FEED_MAX_BYTES the read stops and fails. The whole fetch, every
        hop and chunk, has one deadline, TOPICS_FEED_DEADLINE_SECONDS, checked after each chunk; each
        request's own timeout is at most what remains, so a server that trickles a byte at a time ends
        at most one read timeout past the deadline instead of never (a per-read timeout alone never fires).
    entry_topics(document, max_items)
        each entry's title, its link (http(s) only) as its one source, its summary (as text) as its brief and
        its categories (RSS <category>, Atom <category term>) as its tags (config.topics.clean_tags: cleaned
        like titles, at most MAX_TAGS of at most MAX_TAG_CHARS characters).
        feedparser on the bytes (wrapped in BytesIO, so they are never taken for a URL or a path). It
        strips the DOCTYPE before parsing, keeps only internal entities and turns off external general
        entities in the SAX parser, so no DTD or external entity is ever fetched. Only entries count: the
        channel's <title>, an RSS <image><title> and an Atom entry's <source><title> are never topics, and
        an item with both <title> and <media:title> gives its <title> once. One leniency of feedparser is
        kept: an item with no <title> at all is titled by its media:title.
        A title marked as HTML (Atom type="html") is reduced to its text with the standard library's
        HTMLParser. At most TOPICS_FEED_MAX_ITEMS entries are read, in document order.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import feedparser
import httpx

from capabilities.errors import Retryable, ToolFailed
from capabilities.httperrors import HTTPX_ERRORS, raise_for_status, request_error
from capabilities.verify import MAX_REDIRECTS, host_allowed
from config.topics import MAX_BRIEF_CHARS, TopicSpec, clean_tags, is_url


@dataclass(frozen=True)
class FeedLimits:
    max_bytes: int
    deadline_seconds: float
    max_items: int


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def fetch_feed(http: httpx.Client, url: str, limits: FeedLimits, whitelist: list[str]) -> bytes:
    """The feed document's bytes, or a capability error saying which limit or rule stopped it."""
    allowed = [*whitelist, _host(url)]
    deadline = time.monotonic() + limits.deadline_seconds
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        if not host_allowed(current, allowed):
            raise ToolFailed(f"topics feed redirected to {current}, outside the feed's host and "
                             "PUBLISH_DOMAIN_WHITELIST; not followed")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Retryable(f"topics feed not read within {limits.deadline_seconds:g} s: {url}")
        timeout = httpx.Timeout(min(remaining, http.timeout.read or remaining))
        try:
            with http.stream("GET", current, follow_redirects=False, timeout=timeout) as response:
                if response.is_redirect and "location" in response.headers:
                    current = urljoin(current, response.headers["location"])
                    continue
                if response.status_code >= 400:  # judged on status and headers: the body is not read
                    raise_for_status(httpx.Response(response.status_code, headers=response.headers,
                                                    request=response.request), f"topics feed {url}")
                return _read_capped(response, url, limits, deadline)
        except HTTPX_ERRORS as exc:
            raise request_error(exc, f"topics feed {url}") from exc
    raise ToolFailed(f"topics feed {url}: more than {MAX_REDIRECTS} redirects")


def _read_capped(response: httpx.Response, url: str, limits: FeedLimits, deadline: float) -> bytes:
    too_big = ToolFailed(f"topics feed {url} is larger than TOPICS_FEED_MAX_BYTES ({limits.max_bytes} bytes)")
    if int(response.headers.get("content-length", "0") or 0) > limits.max_bytes:
        raise too_big
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > limits.max_bytes:
            raise too_big
        if time.monotonic() > deadline:
            raise Retryable(f"topics feed not read within {limits.deadline_seconds:g} s "
                            f"({len(body)} bytes so far): {url}")
    return bytes(body)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _plain(value: str, kind: str | None) -> str:
    if kind in ("text/html", "application/xhtml+xml"):
        text = _Text()
        text.feed(value)
        text.close()
        value = "".join(text.parts)
    return " ".join(value.split())


def _title_text(entry: feedparser.FeedParserDict) -> str:
    return _plain(str(entry.get("title", "")), entry.get("title_detail", {}).get("type"))


def _entry_topic(entry: feedparser.FeedParserDict) -> TopicSpec:
    """An entry as a topic: its title, its link as the one source (http(s) only), its summary as the brief, its
    categories as the tags."""
    link = str(entry.get("link", "")).strip()
    summary = _plain(str(entry.get("summary", "")), entry.get("summary_detail", {}).get("type", "text/html"))
    terms = [str(tag.get("term") or "") for tag in entry.get("tags", []) if isinstance(tag, dict)]
    return TopicSpec(_title_text(entry), (link,) if is_url(link) else (), summary[:MAX_BRIEF_CHARS] or None,
                     clean_tags(terms))


def entry_topics(document: bytes, max_items: int) -> list[TopicSpec]:
    """The entries in document order (at most ``max_items``) as topics; ToolFailed if it is no feed."""
    parsed = feedparser.parse(io.BytesIO(document))
    if not parsed.entries and parsed.bozo:
        raise ToolFailed(f"topics feed is not RSS or Atom: {parsed.bozo_exception}")
    topics = (_entry_topic(entry) for entry in parsed.entries[:max_items])
    return [topic for topic in topics if topic.title]
