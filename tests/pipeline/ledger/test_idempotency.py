"""Side effects happen once: repeats after a nudge, retries and restarted runs replay the recorded result."""

from __future__ import annotations

import socket

from sqlalchemy import func, select

from config import Settings
from pipeline.ledger.detail import run_detail
from pipeline.ledger.models import Publication, Registration, Run
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from testkit.scripted_model import ScriptedModel, happy_path, say, script, step_call
from tests.deployments import redeploy

UNTIL_PUBLISH = [step_call(s) for s in ("pick_topic", "write_draft", "humanize", "fact_check", "publish")]


def _count(settings: Settings, table: type) -> int:
    with open_runtime(settings) as rt, rt.sessions() as s:
        return s.scalar(select(func.count()).select_from(table))


def test_publish_is_not_repeated_after_nudge(settings: Settings, model: ScriptedModel) -> None:
    """publish, a false claim, a nudge, publish again: one publication, the repeat answered from the ledger."""
    model.policy = script(*UNTIL_PUBLISH, say("Registered as CT-20990101-001."), step_call("publish"),
                          then=happy_path)
    with open_runtime(settings) as rt:
        result = run_once(rt)
        with rt.sessions() as s:
            detail = run_detail(s, result.run_id)
    assert result.verdict == "success"
    publishes = [c for c in detail.tool_calls if c.name == "publish"]
    assert [c.outcome for c in publishes] == ["ok", "dedup"]
    assert len(list((settings.deployment().site.dir).glob("a-*.html"))) == 1
    assert _count(settings, Publication) == 1


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_run_restarted_after_a_crash_resumes_without_publishing_twice(settings: Settings, model: ScriptedModel) -> None:
    """A run that published but never registered: the next run takes the same topic and replays the publication."""
    settings = redeploy(settings, local_site_port=_free_port())  # the site outlives the first process
    model.policy = script(*UNTIL_PUBLISH, then=lambda request: say("stopping here"))
    with open_runtime(settings) as rt:
        first = run_once(rt)
    model.policy = happy_path
    with open_runtime(settings) as rt:
        second = run_once(rt)
        with rt.sessions() as s:
            detail = run_detail(s, second.run_id)
            topics = s.scalars(select(Run.topic_id).order_by(Run.id)).all()
    assert first.verdict == "incomplete" and second.verdict == "success"
    assert topics[0] == topics[1]
    publish = next(c for c in detail.tool_calls if c.name == "publish")
    assert publish.result["replayed"] is True
    assert len(list(settings.deployment().site.dir.glob("a-*.html"))) == 1
    assert _count(settings, Publication) == 1 and _count(settings, Registration) == 1


def test_register_twice_returns_the_same_number(settings: Settings, model: ScriptedModel) -> None:
    """A second register of the same publication in a new run replays the number instead of allocating one."""
    with open_runtime(settings) as rt:
        run_once(rt)
        with rt.sessions() as s:
            publication_id = s.scalars(select(Publication.id)).one()
    from pipeline.ledger import runs
    from pipeline.ledger.store import LedgerStore

    with open_runtime(settings) as rt:
        with rt.sessions.begin() as s:
            run_id = runs.open_run(s, trigger="manual")
        store = LedgerStore(rt.sessions, run_id)
        first = store.registration_for(publication_id)
        again = store.add_registration(publication_id)
    assert first is not None and again.number == first.number
    assert _count(settings, Registration) == 1
