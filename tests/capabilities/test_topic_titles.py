"""Topic titles are cleaned of control and bidirectional characters, unexpanded entities are refused, and a
source with no usable topic is named as such (not "every topic is already used")."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from loguru import logger
from sqlalchemy import text

from capabilities.pick_topic import read_topics
from config import Settings
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from tests.local_http import LocalHTTP, answer


def test_control_and_bidi_characters_are_cleaned_out_of_titles(settings: Settings, tmp_path: Path) -> None:
    """A lone CR, a tab and an escape become spaces; a right-to-left override and its kin are removed."""
    topics = tmp_path / "topics.txt"
    topics.write_bytes("Tea\rand\ttoast\x1b\nRead \u202eeman\u202c backwards\n\u2066Isolated\u2069 topic\n".encode())
    with httpx.Client() as http:
        titles = [t.title for t in read_topics(settings.model_copy(update={"topics_source": str(topics)}), http)]
    assert titles == ["Tea and toast", "Read eman backwards", "Isolated topic"]


def test_a_feed_title_holding_an_unexpanded_entity_is_skipped(settings: Settings) -> None:
    """An RSS entry whose title is ``&lol9;`` (an entity no DTD defines, left as text by the feed parser's fallback) is
    skipped with a warning; the next is used."""
    feed = (b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
            b"<item><title>&lol9;</title></item><item><title>A real topic</title></item></channel></rss>")
    warnings: list[str] = []
    sink = logger.add(lambda m: warnings.append(f"{m.record['message']} {m.record['extra']}"), level="WARNING")
    try:
        with LocalHTTP() as server, httpx.Client() as http:
            server.routes["/feed"] = answer(200, feed, {"Content-Type": "application/rss+xml"})
            titles = [t.title for t in read_topics(settings.model_copy(update={"topics_source": server.url("/feed")}),
                                                   http)]
    finally:
        logger.remove(sink)
    assert titles == ["A real topic"]
    assert any("unexpanded entity '&lol9;'" in w for w in warnings), warnings


def test_an_empty_topics_source_is_named_empty_not_used_up(settings: Settings, tmp_path: Path) -> None:
    """A topics file with only comments and blank lines on a fresh ledger: pick_topic fails saying the source holds
    no usable topic."""
    topics = tmp_path / "topics.txt"
    topics.write_text("# nothing yet\n\n   \n")
    with open_runtime(settings.model_copy(update={"topics_source": str(topics)})) as rt:
        run_once(rt)
        with rt.sessions() as s:
            rows = s.execute(text("SELECT * FROM tool_calls WHERE name = 'pick_topic'")).mappings().all()
    recorded = json.dumps([dict(r) for r in rows], default=str)
    assert "holds no usable topic" in recorded and "already used" not in recorded, recorded
