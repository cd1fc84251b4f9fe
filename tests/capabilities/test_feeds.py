"""Topics feeds served by a real local HTTP server: entries' titles only, limits, no DTD fetched, redirects."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from capabilities.errors import Retryable, ToolFailed
from capabilities.pick_topic import read_topics
from config import Settings, load_settings
from config.topics import MAX_TAG_CHARS, MAX_TAGS
from tests.local_http import LocalHTTP, answer, redirect, trickle

RSS = b"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel>
  <title>My Blog</title><link>http://example.org/</link>
  <image><title>My Blog logo</title><url>http://example.org/logo.png</url><link>http://example.org/</link></image>
  <item><title>Solar panels on flat roofs</title>
    <media:content url="http://example.org/a.jpg"><media:title>Photo of a roof</media:title></media:content></item>
  <item><media:title>Duplicate first</media:title><title>Heat pumps in old houses</title></item>
</channel></rss>"""

ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Aggregator</title>
  <entry><title>Rainwater tanks</title><source><title>Another feed</title></source></entry>
  <entry><title type="html">Green &lt;b&gt;roofs&lt;/b&gt;</title></entry>
</feed>"""

RSS_HEAD = b'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>'


def rss_items(*titles: str) -> bytes:
    items = "".join(f"<item><title>{t}</title></item>" for t in titles)
    return RSS_HEAD + items.encode() + b"</channel></rss>"


@pytest.fixture
def server() -> Iterator[LocalHTTP]:
    with LocalHTTP() as http_server:
        yield http_server


def topics(url: str, **overrides: object) -> list[str]:
    settings: Settings = load_settings(topics_source=url, **overrides)
    with httpx.Client(timeout=settings.http_timeout_seconds) as http:
        return [topic.title for topic in read_topics(settings, http)]


def test_rss_channel_image_and_media_titles_are_not_topics(server: LocalHTTP) -> None:
    """The channel title, the <image><title> and media:title never become topics; each item gives its title once."""
    server.routes["/feed"] = answer(200, RSS, {"Content-Type": "application/rss+xml"})
    assert topics(server.url("/feed")) == ["Solar panels on flat roofs", "Heat pumps in old houses"]


def test_atom_source_title_is_not_a_topic(server: LocalHTTP) -> None:
    """An Atom entry's <source><title> names another feed, not a topic; HTML titles come out as text."""
    server.routes["/atom"] = answer(200, ATOM, {"Content-Type": "application/atom+xml"})
    assert topics(server.url("/atom")) == ["Rainwater tanks", "Green roofs"]


TAGGED = b"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>T</title>
  <item><title>Heat pumps</title><category>  Energy\n  policy </category><category>energy POLICY</category>
    <category>Heat &amp; pumps</category><category>%s</category>%s</item>
  <item><title>No categories</title></item>
</channel></rss>""" % (b"x" * (MAX_TAG_CHARS + 1), b"".join(b"<category>c%d</category>" % n for n in range(MAX_TAGS)))

ATOM_TAGGED = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title>
  <entry><title>Rainwater tanks</title><category term="Water" /><category term="Gardens" label="Our gardens" /></entry>
</feed>"""


def test_feed_entry_categories_become_topic_tags(server: LocalHTTP) -> None:
    """RSS <category> and Atom <category term> become the topic's tags: cleaned like titles, repeats once,
    an overlong one left out, at most MAX_TAGS."""
    server.routes["/rss"] = answer(200, TAGGED, {"Content-Type": "application/rss+xml"})
    server.routes["/atom"] = answer(200, ATOM_TAGGED, {"Content-Type": "application/atom+xml"})
    settings: Settings = load_settings(topics_source=server.url("/rss"))
    with httpx.Client(timeout=settings.http_timeout_seconds) as http:
        rss = read_topics(settings, http)
        atom = read_topics(load_settings(topics_source=server.url("/atom")), http)
    assert rss[0].tags == ("Energy policy", "Heat & pumps", *(f"c{n}" for n in range(MAX_TAGS - 2)))
    assert rss[1].tags == ()
    assert atom[0].tags == ("Water", "Gardens")


def test_no_dtd_or_external_entity_is_ever_fetched(server: LocalHTTP) -> None:
    """A DOCTYPE naming a DTD and an external entity on the same server: only the feed itself is requested."""
    evil = (f'<?xml version="1.0"?><!DOCTYPE rss SYSTEM "{server.url("/evil.dtd")}" '
            f'[<!ENTITY secret SYSTEM "{server.url("/secret")}">]>'
            '<rss version="2.0"><channel><title>T</title><item><title>Safe &amp; sound</title></item>'
            '<item><title>Leak: &secret;</title></item></channel></rss>').encode()
    server.routes["/feed"] = answer(200, evil)
    server.routes["/secret"] = answer(200, b"TOP-SECRET")
    titles = topics(server.url("/feed"))
    assert server.paths() == ["/feed"]
    assert titles[0] == "Safe & sound" and not any("TOP-SECRET" in t for t in titles)


def test_at_most_max_items_entries_are_read(server: LocalHTTP) -> None:
    """TOPICS_FEED_MAX_ITEMS caps the entries read, in document order."""
    server.routes["/feed"] = answer(200, rss_items(*(f"Topic {i}" for i in range(50))))
    assert topics(server.url("/feed"), topics_feed_max_items=3) == ["Topic 0", "Topic 1", "Topic 2"]


def test_a_feed_larger_than_the_cap_fails_by_length_or_while_streaming(server: LocalHTTP) -> None:
    """Content-Length above TOPICS_FEED_MAX_BYTES fails at once; a body without one fails once it passes it."""
    server.routes["/declared"] = answer(200, rss_items(*("x" * 100 for _ in range(100))))
    server.routes["/endless"] = trickle(b"<item><title>more</title></item>" * 100, every=0.01, head=RSS_HEAD)
    for path in ("/declared", "/endless"):
        with pytest.raises(ToolFailed, match="larger than TOPICS_FEED_MAX_BYTES"):
            topics(server.url(path), topics_feed_max_bytes=4096)


def test_a_trickling_feed_stops_at_the_total_deadline(server: LocalHTTP) -> None:
    """A byte every 0.1 s never trips a 10 s read timeout; the 1 s total deadline ends the fetch (retryable)."""
    server.routes["/slow"] = trickle(b" ", every=0.1, head=RSS_HEAD)
    started = time.monotonic()
    with pytest.raises(Retryable, match="not read within 1 s"):
        topics(server.url("/slow"), topics_feed_deadline_seconds=1, http_timeout_seconds=10)
    assert time.monotonic() - started < 10


def test_redirects_are_followed_on_the_feed_host_and_to_whitelisted_hosts(server: LocalHTTP) -> None:
    """/old -> /feed on the same host is followed; so is a hop to localhost, which the whitelist names."""
    server.routes["/old"] = redirect("/feed", 301)
    server.routes["/feed"] = answer(200, rss_items("Moved topic"))
    server.routes["/via-localhost"] = redirect(f"http://localhost:{server.port}/feed")
    assert topics(server.url("/old")) == ["Moved topic"]
    assert topics(server.url("/via-localhost")) == ["Moved topic"]
    assert server.paths() == ["/old", "/feed", "/via-localhost", "/feed"]


def test_a_redirect_off_the_feed_host_and_whitelist_is_never_requested(server: LocalHTTP) -> None:
    """A hop to a host that is neither the feed's nor whitelisted fails, and that host gets no request."""
    with LocalHTTP(host="127.0.0.2") as elsewhere:
        elsewhere.routes["/feed"] = answer(200, rss_items("Elsewhere"))
        server.routes["/away"] = redirect(elsewhere.url("/feed"))
        with pytest.raises(ToolFailed, match="outside the feed's host and PUBLISH_DOMAIN_WHITELIST"):
            topics(server.url("/away"))
        assert elsewhere.requests == []


def test_a_redirect_loop_stops_after_five_hops(server: LocalHTTP) -> None:
    """Two paths redirecting to each other fail after 5 redirects instead of looping."""
    server.routes["/a"] = redirect("/b")
    server.routes["/b"] = redirect("/a")
    with pytest.raises(ToolFailed, match="more than 5 redirects"):
        topics(server.url("/a"))
    assert len(server.requests) == 6


def test_a_document_that_is_not_a_feed_fails(server: LocalHTTP) -> None:
    """An HTML error page with 200 is no topics source: ToolFailed naming RSS/Atom."""
    server.routes["/feed"] = answer(200, b"<html><body><h1>Maintenance</h1>")
    with pytest.raises(ToolFailed, match="not RSS or Atom"):
        topics(server.url("/feed"))
