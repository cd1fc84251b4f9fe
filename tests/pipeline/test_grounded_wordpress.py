"""Grounded runs against the real WordPress: the Sources list on the post, and no post for unsupported facts."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import httpx
from sqlalchemy import func, select

from capabilities.publish import publication_key
from capabilities.records import TopicRecord
from pipeline.ledger.models import Publication, Topic
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from testkit.scripted_model import Request, ScriptedModel
from testkit.wordpress import WordPress
from tests.pipeline.test_grounded_runs import FABRICATED, HONEST, SOURCE


def grounded_run(wp: WordPress, tmp_path: Path, article: str, source: str = "lyon.md") -> tuple[object, int, str, str]:
    (tmp_path / "lyon.md").write_text(SOURCE, encoding="utf-8")
    title = f"Heat pumps in Lyon {time.time_ns()}"  # a post of its own on the shared WordPress
    topics = tmp_path / "topics.jsonl"
    topics.write_text(json.dumps({"title": title, "sources": [source]}) + "\n", encoding="utf-8")

    def writer(request: Request) -> str:
        return article

    with ScriptedModel(writer=writer) as model:
        settings = wp.settings(database_url=f"sqlite:///{tmp_path}/ledger.db", openai_base_url=model.base_url,
                               factline_model="scripted", retry_base_delay=0.01, http_timeout_seconds=10,
                               topics_source=str(topics), fact_check_max_revisions=1,
                               source_allowed_private_hosts="127.0.0.1")
        with open_runtime(settings) as rt:
            result = run_once(rt)
            with rt.sessions() as s:
                published = s.scalar(select(func.count()).select_from(Publication))
                topic = s.scalars(select(Topic)).one()
                key = publication_key("wordpress", TopicRecord(topic.id, topic.title))
                url = s.scalar(select(Publication.url)) or ""
    return result, published, url, key


def test_an_honest_article_is_posted_with_its_sources_listed(wp: WordPress, tmp_path: Path) -> None:
    """On WordPress too the post ends with the Sources list code wrote, and the run succeeds."""
    result, published, url, key = grounded_run(wp, tmp_path, HONEST)
    assert result.verdict == "success" and published == 1 and len(wp.posts(key=key)) == 1  # type: ignore[attr-defined]
    page = httpx.get(url, timeout=30, follow_redirects=True).text
    assert "<h2>Sources</h2>" in page and "Heat pumps in Lyon</li>" in page


def test_an_article_with_an_unsupported_number_is_never_posted(wp: WordPress, tmp_path: Path) -> None:
    """'73%' and 'Jane Smith' are in no source: the run stops on the fact check and WordPress gets no post."""
    result, published, _, key = grounded_run(wp, tmp_path, FABRICATED)
    assert (result.verdict, result.stop_reason, published) == ("unverified", "fact_check", 0)  # type: ignore[attr-defined]
    assert wp.posts(key=key) == []
    assert result.error == "2 facts not in the sources: '73%', 'Jane Smith'"  # type: ignore[attr-defined]


def test_a_topic_whose_only_source_is_unreachable_posts_nothing(wp: WordPress, tmp_path: Path) -> None:
    """The only source refuses connections: the run stops before writing, and WordPress gets no post."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    result, published, _, key = grounded_run(wp, tmp_path, HONEST, source=f"http://127.0.0.1:{closed}/gone")
    assert (result.verdict, result.stop_reason, published) == ("unavailable", "sources_failed", 0)  # type: ignore[attr-defined]
    assert wp.posts(key=key) == []
