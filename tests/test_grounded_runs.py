"""Grounded runs end to end: the scripted model over HTTP, sources read from files and a server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx
from sqlalchemy import func, select

from config import Settings
from pipeline.ledger.models import Publication, Run, Source
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from testkit.scripted_model import Request, ScriptedModel
from tests.conftest import make_settings
from tests.local_http import LocalHTTP, answer

SOURCE = """# Heat pumps in Lyon

In 2024 the city of Lyon installed 1,200 heat pumps in public housing. Each one cuts the heating bill by
about 30 percent, according to the energy office. The programme runs until 2027.
"""
HONEST = """# Lyon's heat pumps

Lyon put 1200 heat pumps into public housing in 2024 [1]. Each cuts the heating bill by about 30% [1].
The programme continues until 2027 [1].
"""


def honest_writer(request: Request) -> str:
    return HONEST


def topics_file(tmp_path: Path, *sources: str, title: str = "Heat pumps in Lyon") -> Path:
    path = tmp_path / "topics.jsonl"
    path.write_text(json.dumps({"title": title, "sources": list(sources)}) + "\n", encoding="utf-8")
    return path


def grounded_settings(db_url: str, model: ScriptedModel, tmp_path: Path, *sources: str) -> Settings:
    return make_settings(db_url, model.base_url, tmp_path, topics_source=str(topics_file(tmp_path, *sources)),
                         source_allowed_private_hosts="127.0.0.1")


def test_an_article_from_a_local_source_lists_it_on_the_page(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """The draft prompt carries the source's text; the published page lists the source under "Sources"."""
    (tmp_path / "lyon.md").write_text(SOURCE, encoding="utf-8")
    model.writer = honest_writer
    with open_runtime(grounded_settings(db_url, model, tmp_path, "lyon.md")) as rt:
        result = run_once(rt)
        with rt.sessions() as s:
            publication = s.scalars(select(Publication)).one()
            (source,) = s.scalars(select(Source)).all()
        page = httpx.get(publication.url).text
    assert result.verdict == "success", result.error
    assert source.ok and source.number == 1 and source.title == "Heat pumps in Lyon" and "1,200" in (source.text or "")
    draft_prompt = next(r for r in model.requests if "tools" not in r and "response_format" not in r)
    assert "[1] Heat pumps in Lyon" in draft_prompt["messages"][-1]["content"]
    assert "cite the source of each fact" in draft_prompt["messages"][0]["content"].lower()
    assert '<section class="sources"><h2>Sources</h2>' in page and "Heat pumps in Lyon</li>" in page


def test_a_web_source_is_read_once_and_linked_by_its_final_url(db_url: str, model: ScriptedModel,
                                                                tmp_path: Path) -> None:
    """A web source is fetched once in a run (the same URL twice in the topic is one source) and linked on the page."""
    model.writer = honest_writer
    with LocalHTTP() as server:
        server.routes["/robots.txt"] = answer(404)
        server.routes["/lyon"] = answer(200, f"<html><body><article><h1>Heat pumps in Lyon</h1><p>{SOURCE[22:]}</p>"
                                             "</article></body></html>".encode(), {"Content-Type": "text/html"})
        with open_runtime(grounded_settings(db_url, model, tmp_path, server.url("/lyon"), server.url("/lyon"))) as rt:
            result = run_once(rt)
            with rt.sessions() as s:
                publication = s.scalars(select(Publication)).one()
                assert s.scalar(select(func.count()).select_from(Source)) == 1
            page = httpx.get(publication.url).text
        fetched = [path for _, path, _ in server.requests if path == "/lyon"]
    assert result.verdict == "success", result.error
    assert fetched == ["/lyon"]
    assert f'<a href="{server.url("/lyon")}">' in page


def test_a_topic_whose_only_source_is_unreachable_publishes_nothing(db_url: str, model: ScriptedModel,
                                                                     tmp_path: Path) -> None:
    """All sources failed: the run stops `unavailable` with the reason, nothing is published, the topic stays open."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    with open_runtime(grounded_settings(db_url, model, tmp_path, f"http://127.0.0.1:{closed}/gone")) as rt:
        first, second = run_once(rt), run_once(rt)
        with rt.sessions() as s:
            assert s.scalar(select(func.count()).select_from(Publication)) == 0
            topics = {run.topic_id for run in s.scalars(select(Run))}
            failures = [source.failure for source in s.scalars(select(Source))]
    assert (first.verdict, first.exit_code, first.stop_reason) == ("unavailable", 4, "sources_failed")
    assert first.error and "no source of the topic could be read" in first.error
    assert second.verdict == "unavailable" and len(topics) == 1  # the same topic again: it stayed available
    assert failures and all(f and "connection failed" in f for f in failures)
