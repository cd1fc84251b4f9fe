"""A URL the HTTP client cannot form is a refused link with a reason, never a traceback, and never wedges a topic.

The published link comes from a real HTTP server on 127.0.0.1 speaking WordPress's REST answers (the
real WordPress cannot be made to hand out such a link); redirects come from a real server too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from capabilities.verify import PageLimits, check_article
from pipeline.outcome import Verdict
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from testkit.scripted_model import ScriptedModel
from tests.conftest import make_settings
from tests.local_http import LocalHTTP, redirect

LIMITS = PageLimits(["127.0.0.1"], 10**6, 0.98)


@pytest.fixture
def server() -> Iterator[LocalHTTP]:
    with LocalHTTP() as s:
        yield s


@pytest.mark.parametrize("link", ["/a\x01b", "/a\rb"])
def test_a_link_with_a_control_character_is_refused_with_a_reason(server: LocalHTTP, link: str) -> None:
    """A control character (\\x01, a lone CR) in the published link: a ContentCheck saying why, nothing requested."""
    with httpx.Client(timeout=5, trust_env=False) as http:
        check = check_article(http, server.url(link), "t", "<p>b</p>", LIMITS)
    assert (check.verified, check.status) == (False, None)
    assert check.found.startswith("link refused: GET") and "(InvalidURL)" in check.found, check.found
    assert server.paths() == []


@pytest.mark.parametrize("location", ["http://127.0.0.1:x/ok", "http://[::1/ok", "http:evil.test/ok"])
def test_a_redirect_to_an_unusable_url_is_refused_or_kept_on_the_site(server: LocalHTTP, location: str) -> None:
    """A redirect to a port that is not a number, a broken IPv6 host, or ``http:evil.test/ok``: never a traceback, never evil.test."""
    server.routes["/post"] = redirect(location)
    with httpx.Client(timeout=5, trust_env=False) as http:
        check = check_article(http, server.url("/post"), "t", "<p>b</p>", LIMITS)
    assert not check.verified
    assert "link refused" in check.found or check.status == 404, check.found  # http:evil.test/ok is relative


def fake_wordpress(server: LocalHTTP, link: str) -> None:
    """WordPress's posts and tags endpoints: post lookups find nothing, a POST answers 201 with ``link`` as the
    post's URL; every tag is found."""
    def posts(handler: Any, _stop: Any) -> None:
        if handler.command == "GET":
            body = b"[]"
        else:
            sent = json.loads(server.requests[-1][2])
            body = json.dumps({"id": 7, "link": link, "slug": sent["slug"], "status": "publish"}).encode()
        handler.send_response(201 if handler.command == "POST" else 200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
    server.routes["/wp-json/wp/v2/posts"] = posts

    def tags(handler: Any, _stop: Any) -> None:  # the topic's tags exist already: a lookup by slug finds one
        body = b'[{"id": 3, "slug": "tag"}]'
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
    server.routes["/wp-json/wp/v2/tags"] = tags


def test_a_post_whose_link_cannot_be_requested_ends_unverified_and_its_topic_is_not_resumed(
        db_url: str, model: ScriptedModel, server: LocalHTTP, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """The target hands back a link holding a control character: the check records the refused link, the run ends
    without a crash (the scripted model insists on register: `loop`), and the next run takes another topic."""
    fake_wordpress(server, server.url("/post\x01x"))
    settings = make_settings(db_url, model.base_url, tmp_path, publish_target="wordpress", wordpress_url=server.url(""),
                             wordpress_user="u", wordpress_app_password="p")
    with open_runtime(settings) as rt:
        first = run_once(rt)
        second = run_once(rt)
        with rt.sessions() as s:
            topics = s.execute(text("SELECT topic_id FROM runs ORDER BY id")).scalars().all()
            found = s.execute(text("SELECT content_found FROM publications ORDER BY id")).scalars().all()
    assert first.verdict in (Verdict.unverified, Verdict.loop) and second.verdict == first.verdict, first.error
    assert len(found) == 2 and all(f.startswith("link refused") and "(InvalidURL)" in f for f in found), found
    assert len(set(topics)) == 2, topics
    assert "Traceback" not in capfd.readouterr().err
