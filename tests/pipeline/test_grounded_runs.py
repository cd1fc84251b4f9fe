"""Grounded runs end to end: the scripted model over HTTP, sources read from files and a server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from config import Settings
from pipeline.ledger.models import Publication, Run, Source
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from pipeline.ledger.detail import run_detail
from pipeline.ledger.queries import diffs
from pipeline.report import format_run
from testkit.scripted_model import Call, Reply, Request, ScriptedModel, say, script, step_call
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


FABRICATED = HONEST.replace("about 30% [1].", "about 73% [1], said Jane Smith.")
QUOTED = HONEST + '\nThe mayor said "every flat will be warm by winter" [1].\n'


def writer_of(first: str, revised: str | None = None):  # noqa: ANN201
    """Writes ``first`` as draft and rewrite; a corrective message gets ``revised`` (default: ``first`` again)."""
    def writer(request: Request) -> str:
        return revised if revised is not None and "not in the sources" in request.last_user() else first
    return writer


def grounded_run(db_url: str, model: ScriptedModel, tmp_path: Path, **overrides: object):  # noqa: ANN201
    (tmp_path / "lyon.md").write_text(SOURCE, encoding="utf-8")
    settings = grounded_settings(db_url, model, tmp_path, "lyon.md").model_copy(update=overrides)
    with open_runtime(settings) as rt:
        result = run_once(rt)
        with rt.sessions() as s:
            detail = run_detail(s, result.run_id)
            published = s.scalar(select(func.count()).select_from(Publication))
            (diff,) = diffs(s, [result.run_id])
    assert detail is not None
    return result, detail, published, diff


def test_an_honest_article_passes_and_the_record_names_each_fact(db_url: str, model: ScriptedModel,
                                                                 tmp_path: Path) -> None:
    """Each fact of an honest restatement (1200 = 1,200, 30% = 30 percent) is found, with its source passage."""
    model.writer = honest_writer
    result, detail, published, _ = grounded_run(db_url, model, tmp_path)
    assert result.verdict == "success" and published == 1
    (check,) = detail.fact_checks
    assert check.status == "passed" and {f.fact for f in check.facts} >= {"1200", "30%", "2024", "2027"}
    pumps = next(f for f in check.facts if f.fact == "1200")
    assert pumps.source_number == 1 and pumps.passage and "1,200 heat pumps" in pumps.passage
    text = format_run(detail)
    assert "fact check of version" in text and "'30%' found in source [1]" in text


def test_an_unsupported_number_is_never_published_and_named(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """A percentage and a person no source holds: revisions are bounded, nothing is published, the line names both."""
    model.writer = writer_of(FABRICATED)
    result, detail, published, diff = grounded_run(db_url, model, tmp_path)
    assert (result.verdict, result.exit_code, result.stop_reason) == ("unverified", 4, "fact_check")
    assert result.error == "2 facts not in the sources: '73%', 'Jane Smith'"
    assert published == 0 and [c.status for c in detail.fact_checks] == ["failed", "failed", "failed"]
    assert diff.counts["unsupported_facts"] == 2
    revisions = [r for r in model.requests if "tools" not in r and "not in the sources" in r["messages"][-1]["content"]]
    assert len(revisions) == 2 and "'73%' in: " in revisions[0]["messages"][-1]["content"]


def test_an_invented_quotation_is_never_published(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """A quotation no source holds stops the run; the record shows the quotation with its sentence."""
    model.writer = writer_of(QUOTED)
    result, detail, published, _ = grounded_run(db_url, model, tmp_path, fact_check_max_revisions=0)
    assert result.stop_reason == "fact_check" and published == 0
    (missing,) = [f for f in detail.fact_checks[-1].facts if not f.supported]
    assert (missing.kind, missing.fact) == ("quote", "every flat will be warm by winter")


def test_a_corrected_revision_is_what_gets_published(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """The corrective message makes the writer drop the invented facts; the checked revision is published."""
    model.writer = writer_of(FABRICATED, revised=HONEST)
    result, detail, published, _ = grounded_run(db_url, model, tmp_path)
    assert result.verdict == "success" and published == 1
    assert [c.status for c in detail.fact_checks] == ["failed", "passed"]
    publish = next(c for c in detail.tool_calls if c.name == "publish")
    assert json.loads(publish.arguments)["version_id"] == detail.fact_checks[-1].draft_version_id


def test_warn_mode_publishes_and_records_the_missing_facts(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """FACT_CHECK=warn lets the version through, the check recorded as warned with the facts missing."""
    model.writer = writer_of(FABRICATED)
    result, detail, published, _ = grounded_run(db_url, model, tmp_path, fact_check="warn",
                                                fact_check_max_revisions=0)
    assert result.verdict == "success" and published == 1
    assert detail.fact_checks[-1].status == "warned"


def test_publish_refuses_a_version_that_was_not_fact_checked(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """The humanized version's id handed straight to publish is refused: the check is missing."""
    model.writer = honest_writer
    skip_check = Reply(calls=(Call("publish", lambda results: {"version_id": results["humanize"]["version_id"]}),))
    model.policy = script(step_call("pick_topic"), step_call("write_draft"), step_call("humanize"), skip_check,
                          then=lambda request: say("I stop here."))
    result, detail, published, _ = grounded_run(db_url, model, tmp_path)
    assert published == 0 and result.verdict != "success"
    (publish,) = [c for c in detail.tool_calls if c.name == "publish"]
    assert publish.outcome == "rejected" and "has no fact check" in (publish.detail or "")


def test_the_dashboard_run_page_lists_sources_and_each_fact(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """The run page (and its JSON twin) shows the sources read and each fact with its verdict and passage."""
    from pipeline.web import WebServer, build_app, read_only_ledger

    model.writer = writer_of(FABRICATED)
    result, _, _, _ = grounded_run(db_url, model, tmp_path, fact_check_max_revisions=0)
    settings = grounded_settings(db_url, model, tmp_path, "lyon.md")
    with WebServer(build_app(settings.deployment(), settings, read_only_ledger(db_url)), "127.0.0.1", 0) as server, \
            httpx.Client(base_url=server.url) as client:
        page = client.get(f"/runs/{result.run_id}").text
        data = client.get(f"/api/runs/{result.run_id}").json()
    assert "Fact check of version" in page and "<code>73%</code>" in page and "not in the sources" in page
    assert "1,200 heat pumps" in page  # the passage that backs 1200
    assert data["sources"][0]["ok"] is True
    assert [f["fact"] for f in data["fact_checks"][0]["facts"] if not f["supported"]] == ["73%", "Jane Smith"]


@pytest.mark.slow  # four `factline` processes, each fact-checking against the source
def test_an_editors_edit_that_adds_an_unsupported_fact_is_refused(db_url: str, model: ScriptedModel,
                                                                   tmp_path: Path) -> None:
    """REVIEW_MODE=required: an edit adding '73%' fails the run's strict fact check and is refused; the run waits."""
    from tests.cli_helpers import factline, user_env

    (tmp_path / "lyon.md").write_text(SOURCE, encoding="utf-8")
    model.writer = honest_writer
    env = user_env(DATABASE_URL=db_url, OPENAI_BASE_URL=model.base_url, FACTLINE_MODEL="scripted",
                   LOCAL_SITE_DIR=str(tmp_path / "site"), LOCAL_SITE_PORT="0", RETRY_BASE_DELAY="0.01",
                   PREVIEW_DIR=str(tmp_path / "preview"), REVIEW_MODE="required",
                   TOPICS_SOURCE=str(topics_file(tmp_path, "lyon.md")))
    held = factline(env, "run")
    assert held.returncode == 0 and "awaits review" in held.stdout, held.stdout + held.stderr
    run_id = held.stdout.split("run ", 1)[1].split(":", 1)[0]
    edit = tmp_path / "edit.md"
    edit.write_text(HONEST.replace("about 30% [1]", "about 73% [1]"), encoding="utf-8")
    refused = factline(env, "review", "approve", run_id, "--edit", str(edit), "--by", "alice")
    assert refused.returncode == 1 and "1 fact not in the sources: '73%'" in refused.stderr
    edit.write_text(HONEST, encoding="utf-8")
    approved = factline(env, "review", "approve", run_id, "--edit", str(edit), "--by", "alice")
    assert approved.returncode == 0, approved.stdout + approved.stderr
