"""The run loop end to end: the scripted model over HTTP, the real SDK, the real ledger and local target."""

from __future__ import annotations

import httpx
from sqlalchemy import func, select, text

from config import Settings
from pipeline.ledger.detail import run_detail
from pipeline.ledger.models import Publication, Registration
from pipeline.runner import run_once
from pipeline.runtime import Runtime, open_runtime
from testkit.scripted_model import ScriptedModel, say, script, step_call


def test_happy_path_publishes_verifies_and_registers(runtime: Runtime, model: ScriptedModel) -> None:
    """A model that calls the six tools in order ends in success with one verified publication and registration."""
    result = run_once(runtime)
    assert (result.verdict, result.exit_code) == ("success", 0)
    with runtime.sessions() as s:
        publication = s.scalars(select(Publication)).one()
        registration = s.scalars(select(Registration)).one()
        detail = run_detail(s, result.run_id)
    assert publication.verified_at is not None and publication.http_status == 200
    assert registration.publication_id == publication.id
    assert registration.number.startswith("CT-") and len(registration.number) == len("CT-20260101-001")
    assert [c.name for c in detail.tool_calls] == ["pick_topic", "write_draft", "humanize", "fact_check", "publish", "register", "report"]
    assert httpx.head(publication.url).status_code == 200


def test_constrained_mode_runs_the_same_pipeline(settings: Settings, model: ScriptedModel) -> None:
    """In constrained mode (the local model's) the prompt carries the catalog, each call is a JSON object, and the
    run ends in success with the same six calls."""
    with open_runtime(settings.model_copy(update={"tool_call_mode": "constrained"})) as rt:
        result = run_once(rt)
        with rt.sessions() as s:
            detail = run_detail(s, result.run_id)
    assert (result.verdict, detail.tool_call_mode) == ("success", "constrained")
    assert [c.name for c in detail.tool_calls] == ["pick_topic", "write_draft", "humanize", "fact_check", "publish", "register", "report"]
    agent_requests = [r for r in model.requests if "response_format" in r]
    assert agent_requests and "tools" not in agent_requests[0]
    assert "2. write_draft(topic_id from the pick_topic result, angle null)" in agent_requests[0]["messages"][0]["content"]


def test_second_run_takes_the_next_topic(runtime: Runtime) -> None:
    """A registered topic is used: the next run publishes a different topic."""
    first, second = run_once(runtime), run_once(runtime)
    assert first.verdict == second.verdict == "success"
    with runtime.sessions() as s:
        assert s.scalar(select(func.count(func.distinct(Publication.topic_id)))) == 2


def test_link_outside_the_whitelist_is_never_requested(runtime: Runtime, model: ScriptedModel) -> None:
    """With 127.0.0.1 not whitelisted the URL is not HEADed: no status, unverified, exit 4, no registration."""
    runtime.settings = runtime.settings.model_copy(update={"publish_domain_whitelist": ["blog.example.com"]})
    steps = [step_call(s) for s in ("pick_topic", "write_draft", "humanize", "fact_check", "publish", "register")]
    model.policy = script(*steps, then=lambda request: say("The link could not be checked, so I stop."))
    result = run_once(runtime)
    assert (result.verdict, result.exit_code) == ("unverified", 4)
    with runtime.sessions() as s:
        publication = s.scalars(select(Publication)).one()
        assert publication.http_status is None and publication.verified_at is None
        assert s.scalar(select(func.count()).select_from(Registration)) == 0


def test_topics_come_from_an_atom_feed(runtime: Runtime, tmp_path) -> None:
    """TOPICS_SOURCE may be a feed URL: the first entry title becomes the topic."""
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    (tmp_path / "feed.xml").write_text(
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title>'
        "<entry><title>Feeds as a topic source</title></entry><entry><title>Second</title></entry></feed>")
    handler = lambda *a: SimpleHTTPRequestHandler(*a, directory=str(tmp_path))  # noqa: E731
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()  # closes in <= 50 ms
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/feed.xml"
        runtime.settings = runtime.settings.model_copy(update={"topics_source": url})
        result = run_once(runtime)
    finally:
        server.shutdown()
    with runtime.sessions() as s:
        detail = run_detail(s, result.run_id)
    assert detail.tool_calls[0].result["title"] == "Feeds as a topic source"


def test_secrets_never_reach_the_ledger(runtime: Runtime) -> None:
    """The API key is sent to the endpoint but appears in no ledger row."""
    secret = "sk-test-secret-value-123"
    runtime.settings = runtime.settings.model_copy(update={"openai_api_key": secret})
    run_once(runtime)
    with runtime.sessions() as s:
        dump = " ".join(str(row) for table in ("runs", "tool_calls", "run_events", "claims", "nudges")
                        for row in s.execute(text(f"SELECT * FROM {table}")))
    assert secret not in dump


def test_lone_surrogate_from_the_writer_fails_write_draft_without_crashing(runtime: Runtime, model: ScriptedModel) -> None:
    """Model text with a lone surrogate is refused by write_draft as a tool failure; the run ends incomplete."""
    model.writer = lambda request: "# Title\n\nBroken \ud800 text."
    model.policy = script(step_call("pick_topic"), step_call("write_draft"), then=lambda request: say("I stop here."))
    result = run_once(runtime)
    assert (result.verdict, result.exit_code) == ("incomplete", 4)
    with runtime.sessions() as s:
        detail = run_detail(s, result.run_id)
    write = [c for c in detail.tool_calls if c.name == "write_draft"]
    assert [(c.outcome, c.reason) for c in write] == [("failed", "failed")]
    assert "not valid UTF-8" in write[0].detail


def test_lone_surrogate_in_an_agent_turn_is_escaped_not_a_crash(runtime: Runtime, model: ScriptedModel) -> None:
    """A turn whose text has a lone surrogate is carried escaped ('\\ud800'); the run goes on to success."""
    model.policy = script(step_call("pick_topic"), say("I published it \ud800."))
    result = run_once(runtime)
    assert (result.verdict, result.exit_code) == ("success", 0)
    echoed = [m["content"] for m in model.requests[-1]["messages"] if m["role"] == "assistant" and m.get("content")]
    assert "I published it \\ud800." in echoed
