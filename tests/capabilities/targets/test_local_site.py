"""The local site reads well and stays up: pages with lang, viewport, date and topic; an index newest first with an
Atom feed; `factline site serve` serves it after `factline run` has gone; a dry run previews without publishing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import feedparser
import httpx
from selectolax.lexbor import LexborHTMLParser
from sqlalchemy import func, select

from capabilities.records import Article
from capabilities.targets import LocalTarget
from config import Settings
from pipeline.ledger.models import Publication, Registration, Run
from pipeline.runner import run_once
from pipeline.runtime import Runtime
from testkit.scripted_model import ScriptedModel
from tests.cli_helpers import FACTLINE, ROOT, factline_here, user_env
from tests.pipeline.test_daemon import free_port


def test_pages_have_lang_viewport_date_topic_and_the_index_lists_them_newest_first(tmp_path: Path) -> None:
    """Each page declares its language and viewport and shows date and topic; index and feed list newest first."""
    with LocalTarget(tmp_path, "127.0.0.1", 0) as site:
        first = site.publish(Article("Erster Artikel", "Text.", "k1", "Wärmepumpen", "en"))
        time.sleep(1.1)  # the index orders by the second a page was written
        second = site.publish(Article("老房子里的热泵", "正文。", "k2", "热泵", "zh"))
        page = LexborHTMLParser(httpx.get(second.url, trust_env=False).text)
        index = LexborHTMLParser(httpx.get(site.base_url, trust_env=False).text)
        feed = feedparser.parse(httpx.get(site.base_url + "feed.xml", trust_env=False).content)
    assert page.css_first("html").attributes["lang"] == "zh"
    assert page.css_first('meta[name="viewport"]') is not None and page.css_first("style") is not None
    assert page.css_first("p.meta time").attributes["datetime"] and "热泵" in page.css_first("p.meta").text()
    assert [a.attributes["href"] for a in index.css("ol.index a")] == [second.url.rsplit("/", 1)[1],
                                                                       first.url.rsplit("/", 1)[1]]
    assert [e.title for e in feed.entries] == ["老房子里的热泵", "Erster Artikel"]
    assert feed.entries[0].link == second.url


def test_a_dry_run_renders_a_preview_and_publishes_nothing(runtime: Runtime, model: ScriptedModel) -> None:
    """--dry-run: topic, draft, humanize, a page in PREVIEW_DIR; no publish, no registration; ledger says dry run."""
    result = run_once(runtime, dry_run=True)
    assert (result.verdict, result.exit_code) == ("previewed", 0)
    assert result.preview is not None and result.preview.parent == runtime.settings.preview_dir
    page = LexborHTMLParser(result.preview.read_text(encoding="utf-8"))
    assert page.css_first("h1").text() and page.css_first("html").attributes["lang"] == "en"
    with runtime.sessions() as s:
        assert s.scalar(select(Run.dry_run).where(Run.id == result.run_id)) is True
        assert s.scalar(select(func.count()).select_from(Publication)) == 0
        assert s.scalar(select(func.count()).select_from(Registration)) == 0
    offered = {tool["function"]["name"] for request in model.requests for tool in request.get("tools", [])}
    assert offered == {"pick_topic", "write_draft", "humanize"}


def test_site_serve_keeps_serving_what_a_finished_run_published(settings: Settings, model: ScriptedModel,
                                                                tmp_path: Path) -> None:
    """`factline run` says its pages stop with it; `factline site serve` then serves them until SIGTERM (exit 0)."""
    env = user_env(DATABASE_URL=settings.deployment().ledger.url, OPENAI_BASE_URL=model.base_url, FACTLINE_MODEL="scripted",
                   LOCAL_SITE_DIR=str(tmp_path / "site"), LOCAL_SITE_PORT=str(_free_port()))
    done = factline_here(env, "run")  # in this process; `site serve` below is the real process under test
    assert done.returncode == 0, done.stderr
    assert "stops now; `factline site serve`" in done.stdout and "verified at " in done.stdout
    url = next(w for w in done.stdout.split() if w.startswith("http://") and w.endswith(".html"))
    serve = subprocess.Popen([*FACTLINE, "site", "serve"], env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert "serves" in (serve.stdout.readline() if serve.stdout else "")
        answer = httpx.get(url.rstrip(":"), trust_env=False)
        assert answer.status_code == 200 and "<article>" in answer.text
    finally:
        os.kill(serve.pid, signal.SIGTERM)
        assert serve.wait(timeout=10) == 0


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_site_serve_on_a_taken_port_says_so_and_exits_2(tmp_path: Path) -> None:
    """A port another process holds: one line naming LOCAL_SITE_PORT, exit 2."""
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        env = user_env(LOCAL_SITE_DIR=str(tmp_path), LOCAL_SITE_PORT=str(held.getsockname()[1]))
        done = subprocess.run([sys.executable, "-m", "pipeline.cli", "site", "serve"], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "LOCAL_SITE_PORT" in done.stderr and len(done.stderr.splitlines()) == 1


def test_run_dry_run_prints_the_preview_path_and_exits_0(settings: Settings, model: ScriptedModel,
                                                         tmp_path: Path) -> None:
    """`factline run --dry-run`: the report says previewed (exit 0), the last line is the page's path."""
    env = user_env(DATABASE_URL=settings.deployment().ledger.url, OPENAI_BASE_URL=model.base_url, FACTLINE_MODEL="scripted",
                   LOCAL_SITE_DIR=str(tmp_path / "site"), LOCAL_SITE_PORT="0", PREVIEW_DIR=str(tmp_path / "preview"))
    done = factline_here(env, "run", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert "previewed (exit 0)" in done.stdout and "publish" not in done.stdout.replace("published", "")
    path = Path(done.stdout.strip().splitlines()[-1].removeprefix("preview: "))
    assert path.parent == tmp_path / "preview" and "<article>" in path.read_text(encoding="utf-8")
    assert not (tmp_path / "site").exists() or not list((tmp_path / "site").glob("a-*.html"))


def test_a_run_that_found_the_port_taken_serves_the_site_once_the_server_exits(tmp_path: Path) -> None:
    """Two local targets on one port (two `factline run` at once): when the one serving closes first, the other
    takes the port over within a second, so its page checks still find their pages (issue #26, finding 5)."""
    port = free_port()
    first, second = LocalTarget(tmp_path / "site", "127.0.0.1", port), LocalTarget(tmp_path / "site", "127.0.0.1", port)
    with first:
        with second:
            assert first.serving and not second.serving
            (tmp_path / "site" / "a-1.html").write_text("<p>page of the second run</p>")
            first.__exit__(None, None, None)  # the run serving the port exits first
            deadline = time.monotonic() + 5
            while not second.serving and time.monotonic() < deadline:
                time.sleep(0.05)
            assert second.serving
            assert "page of the second run" in httpx.get(f"http://127.0.0.1:{port}/a-1.html").text
        assert not second.serving


def test_the_local_page_shows_the_topics_tags_escaped_and_the_article_still_verifies(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """A `.jsonl` topic's tags are listed on the published page as text (markup escaped); the page still holds the
    whole article (verified, same coverage as a page without tags)."""
    import json

    from pipeline.runtime import open_runtime
    from tests.conftest import make_settings

    topics = tmp_path / "topics.jsonl"
    topics.write_text(json.dumps({"title": "Heat pumps in old houses", "tags": ["Energy", "<b>Heat & pumps</b>"]}) + "\n")
    settings = make_settings(db_url, model.base_url, tmp_path, topics_source=str(topics))
    with open_runtime(settings) as rt:
        result = run_once(rt)
        assert result.exit_code == 0, result
        with rt.sessions() as s:
            publication = s.scalars(select(Publication)).one()
        html = (settings.deployment().site.dir / publication.url.rsplit("/", 1)[1]).read_text(encoding="utf-8")
    page = LexborHTMLParser(html)
    assert [li.text() for li in page.css("ul.tags li")] == ["Energy", "<b>Heat & pumps</b>"]
    assert page.css("ul.tags b") == [] and "&lt;b&gt;Heat &amp; pumps&lt;/b&gt;" in html
    assert publication.verified_at is not None and publication.content_coverage == 1.0
