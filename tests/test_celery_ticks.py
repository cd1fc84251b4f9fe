"""EXECUTOR=celery, the ledger's side in one process: what a worker's task does with a run in each state."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select, update

from pipeline.ledger.models import Publication, Run, RunEvent, ToolCall
from pipeline.runner import run_once
from pipeline.runtime import open_runtimes
from pipeline.workers.app import make_app
from pipeline.workers.dispatch import TickSender
from pipeline.workers.ticks import Take, claim_tick, now
from pipeline.workers.worker import TickRunner
from tests.conftest import make_settings
from testkit.scripted_model import ScriptedModel, happy_path, say, script, step_call


@pytest.fixture
def runner(pg_url: str, model: ScriptedModel, tmp_path: Path) -> Iterator[TickRunner]:
    topics = tmp_path / "topics.txt"
    topics.write_text("Worker topic A\nWorker topic B\n", encoding="utf-8")
    settings = make_settings(pg_url, model.base_url, tmp_path, topics_source=str(topics), executor="celery")
    with open_runtimes([settings]) as runtimes:
        yield TickRunner(runtimes, heartbeat_seconds=1.0)


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_a_task_for_a_finished_run_is_a_no_op(runner: TickRunner) -> None:
    """The second delivery of a tick whose run finished changes nothing."""
    run_id = claim_tick(runner.sessions, pipeline="content", scheduled_for=now().replace(microsecond=0))
    assert run_id is not None
    assert runner.execute(run_id) is Take.RUN
    with runner.sessions() as s:
        calls = s.scalars(select(ToolCall.id).where(ToolCall.run_id == run_id)).all()
        assert s.get(Run, run_id).verdict == "success"
    assert runner.execute(run_id) is Take.DONE
    with runner.sessions() as s:
        assert s.scalars(select(ToolCall.id).where(ToolCall.run_id == run_id)).all() == calls


def test_a_run_whose_worker_died_is_continued_without_publishing_twice(runner: TickRunner,
                                                                       model: ScriptedModel) -> None:
    """A run left `running` after publishing by a dead worker is taken over and finishes with one publication."""
    run_id = claim_tick(runner.sessions, pipeline="content", scheduled_for=now().replace(microsecond=0))
    assert run_id is not None
    model.policy = script(*(step_call(s) for s in ("pick_topic", "write_draft", "humanize", "publish")),
                          then=lambda request: say("stopping here"))
    run_once(runner.runtimes["content"], trigger="schedule", run_id=run_id)  # the first worker's part
    with runner.sessions.begin() as s:  # ... which then died mid-run, as SIGKILL leaves it
        s.execute(update(Run).where(Run.id == run_id).values(
            status="running", verdict=None, finished_at=None, host=socket.gethostname(), pid=_dead_pid(),
            heartbeat_at=now(), sent_at=now()))
    model.policy = happy_path
    assert runner.execute(run_id) is Take.RESUME
    with runner.sessions() as s:
        run = s.get(Run, run_id)
        assert (run.status, run.verdict, run.pid) == ("finished", "success", os.getpid())
        assert s.scalar(select(RunEvent.kind).where(RunEvent.run_id == run_id, RunEvent.kind == "resumed"))
        assert len(s.scalars(select(Publication.id)).all()) == 1
    assert len(list(runner.runtimes["content"].settings.local_site_dir.glob("a-*.html"))) == 1


def test_a_run_held_by_a_live_worker_is_left_to_it(runner: TickRunner) -> None:
    """A duplicate task for a run another live process holds is not executed (it is retried later)."""
    run_id = claim_tick(runner.sessions, pipeline="content", scheduled_for=now().replace(microsecond=0))
    holder = subprocess.Popen(["sleep", "30"])
    try:
        with runner.sessions.begin() as s:
            s.execute(update(Run).where(Run.id == run_id).values(status="running", host=socket.gethostname(),
                                                                 pid=holder.pid, heartbeat_at=now()))
        assert runner.execute(run_id) is Take.HELD
    finally:
        holder.kill()
        holder.wait()
    assert runner.execute(run_id) is Take.RESUME  # its holder is gone now


def test_the_reconciler_sends_a_tick_claimed_but_never_sent(pg_url: str, runner: TickRunner) -> None:
    """A tick claimed by a scheduler that died before sending is sent by the next reconcile pass."""
    settings = runner.runtimes["content"].settings
    queue = f"factline.test.{os.getpid()}.{threading.get_ident()}"
    app = make_app(settings.model_copy(update={"celery_queue": queue}))
    sender = TickSender(runner.sessions, app, queue, [], reconcile_seconds=0.5, heartbeat_seconds=1)
    run_id = claim_tick(runner.sessions, pipeline="content", scheduled_for=now().replace(microsecond=0))
    assert sender.reconcile() == []  # too young: its own scheduler may be sending it right now
    time.sleep(0.6)
    try:
        assert sender.reconcile() == [run_id]
        with app.connection_for_write() as conn:
            message = conn.SimpleQueue(queue).get(timeout=5)
            assert message.payload == [[run_id], {}, {"callbacks": None, "errbacks": None, "chain": None,
                                                      "chord": None}]
            message.ack()
        with runner.sessions() as s:
            assert s.get(Run, run_id).sent_at is not None
        assert sender.reconcile() == []
    finally:
        with app.connection_for_write() as conn:
            conn.default_channel.queue_delete(queue)
