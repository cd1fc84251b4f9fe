"""EXECUTOR=celery, the ledger's side in one process: what a worker's task does with a run in each state."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from config import load_config
from config.cron import parse_cron
from pipeline.ledger.models import Publication, Run, RunEvent, ToolCall
from pipeline.runner import run_once
from pipeline.runtime import open_runtimes
from pipeline.workers.app import make_app
from pipeline.workers.dispatch import Schedule, TickSender
from pipeline.ledger.runs import Take, claim_tick, now
from pipeline.workers.worker import TickRunner
from tests.conftest import make_settings
from testkit.scripted_model import ScriptedModel, happy_path, say, script, step_call


@pytest.fixture
def runner(pg_url: str, model: ScriptedModel, tmp_path: Path) -> Iterator[TickRunner]:
    topics = tmp_path / "topics.txt"
    topics.write_text("Worker topic A\nWorker topic B\n", encoding="utf-8")
    settings = make_settings(pg_url, model.base_url, tmp_path, topics_source=str(topics), executor="celery")
    with open_runtimes(settings.deployment(), [settings]) as runtimes:
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
    model.policy = script(*(step_call(s) for s in ("pick_topic", "write_draft", "humanize", "fact_check", "publish")),
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
    assert len(list(runner.runtimes["content"].settings.deployment().site.dir.glob("a-*.html"))) == 1


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


@pytest.mark.external  # RabbitMQ
def test_the_reconciler_sends_a_tick_claimed_but_never_sent(pg_url: str, runner: TickRunner) -> None:
    """A tick claimed by a scheduler that died before sending is sent by the next reconcile pass."""
    settings = runner.runtimes["content"].settings
    queue = f"factline.test.{os.getpid()}.{threading.get_ident()}"
    app = make_app(settings.deployment().executor.model_copy(update={"queue": queue}), [settings])
    sender = TickSender(runner.sessions, app, queue, [], reconcile_seconds=0.5, heartbeat_seconds=1)
    run_id = claim_tick(runner.sessions, pipeline="content", scheduled_for=now().replace(microsecond=0))
    assert sender.reconcile() == []  # too young: its own scheduler may be sending it right now
    time.sleep(0.6)
    try:
        assert sender.reconcile() == [run_id]
        with runner.sessions() as s:
            assert s.get(Run, run_id).sent_at is not None
        time.sleep(0.6)
        assert sender.reconcile() == []  # sent, and its task waits on the queue
        with app.connection_for_write() as conn:
            message = conn.SimpleQueue(queue).get(timeout=5)
            assert message.payload == [[run_id], {}, {"callbacks": None, "errbacks": None, "chain": None,
                                                      "chord": None}]
            message.ack()
    finally:
        with app.connection_for_write() as conn:
            conn.default_channel.queue_delete(queue)


_KILLED_CONSUMER = """
import os, signal, sys
from kombu import Connection
with Connection(sys.argv[1]) as conn:
    message = conn.SimpleQueue(sys.argv[2], no_ack=False).get(timeout=10)
    print(message.payload[0][0], flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # like a worker killed after receiving the task, before taking the run
"""


@pytest.mark.external  # Redis
def test_on_redis_a_task_delivered_to_a_worker_killed_before_it_took_the_run_is_sent_again(
        runner: TickRunner) -> None:
    """Redis holds an unacknowledged task for visibility_timeout (an hour at least); the reconciler re-sends the
    run once the queue is drained, but not while tasks wait on it (one of them may be the run's)."""
    settings = runner.runtimes["content"].settings
    queue = f"factline.test.{os.getpid()}.{threading.get_ident()}"
    executor = settings.deployment().executor.model_copy(
        update={"queue": queue, "broker_url": "redis://127.0.0.1:6379/0"})
    app = make_app(executor, [settings])
    sender = TickSender(runner.sessions, app, queue, [], reconcile_seconds=0.5, heartbeat_seconds=1)
    lost = claim_tick(runner.sessions, pipeline="content", scheduled_for=now().replace(microsecond=0))
    waiting = claim_tick(runner.sessions, pipeline="content",
                         scheduled_for=now().replace(microsecond=0) + timedelta(seconds=1))
    try:
        assert sender.send(lost)
        consumer = subprocess.run([sys.executable, "-c", _KILLED_CONSUMER, executor.broker_url, queue],
                                  capture_output=True, text=True, timeout=60)
        assert consumer.returncode == -9 and consumer.stdout.strip() == str(lost), consumer.stderr
        assert sender.send(waiting)
        time.sleep(0.6)
        assert sender.waiting() == 1
        assert sender.reconcile() == []  # a task waits: it may be the lost run's, so nothing is re-sent yet
        with app.connection_for_write() as conn:
            message = conn.SimpleQueue(queue).get(timeout=5)
            assert message.payload[0] == [waiting]
            message.ack()
        time.sleep(0.6)
        assert sender.waiting() == 0
        assert sender.reconcile() == [lost, waiting]  # both delivered and neither taken: both sent again
        with app.connection_for_write() as conn:
            received = [conn.SimpleQueue(queue).get(timeout=5) for _ in range(2)]
            assert sorted(m.payload[0][0] for m in received) == [lost, waiting]
            for m in received:
                m.ack()
        assert runner.execute(lost) is Take.RUN  # a worker takes the run the killed one never started
        with runner.sessions() as s:
            assert s.get(Run, lost).verdict == "success"
    finally:
        with app.connection_for_write() as conn:
            conn.default_channel.queue_delete(queue)


def test_redis_hands_a_task_to_another_worker_only_after_the_longest_run_any_pipeline_allows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """visibility_timeout is twice the longest RUN_MAX_SECONDS of the pipelines file (not the first's), >= 1 h."""
    path = tmp_path / "factline.toml"
    path.write_text('[[pipelines]]\nname = "quick"\nrun_max_seconds = 60\n\n'
                    '[[pipelines]]\nname = "long"\nrun_max_seconds = 5400\n', encoding="utf-8")
    monkeypatch.setenv("FACTLINE_CONFIG", str(path))
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    config = load_config()
    pipelines, executor = [p.settings for p in config.pipelines], config.deployment.executor
    assert make_app(executor, pipelines).conf.broker_transport_options["visibility_timeout"] == 10800
    assert make_app(executor, pipelines[:1]).conf.broker_transport_options["visibility_timeout"] == 3600


@pytest.mark.external  # RabbitMQ
def test_a_stop_ends_a_catch_up_pass_and_the_next_pass_claims_the_rest(pg_url: str, runner: TickRunner) -> None:
    """SIGTERM while a scheduler catches up a long outage: the pass ends between two ticks, nothing is lost."""
    queue = f"factline.test.{os.getpid()}.{threading.get_ident()}"
    settings = runner.runtimes["content"].settings
    executor = settings.deployment().executor.model_copy(update={"queue": queue})
    every_second = Schedule("content", parse_cron("* * * * * *", timezone.utc), grace_seconds=600)
    stop = threading.Event()
    sender = TickSender(runner.sessions, make_app(executor, [settings]), queue, [every_second], reconcile_seconds=60,
                        heartbeat_seconds=1, stop=stop)
    first = now().replace(microsecond=0) - timedelta(seconds=20)
    claim_tick(runner.sessions, pipeline="content", scheduled_for=first)  # the pipeline ticked, then its scheduler died
    try:
        stop.set()
        assert sender.reconcile() == []
        stop.clear()
        caught_up = sender.reconcile()
        assert len(caught_up) >= 15  # every second since the first tick, but the last SETTLE_SECONDS
        with runner.sessions() as s:
            assert s.scalar(select(func.count()).select_from(Run).where(Run.sent_at.is_(None))) == 1  # the first
    finally:
        with sender.app.connection_for_write() as conn:
            conn.default_channel.queue_delete(queue)
