"""EXECUTOR=celery sends the ticks of a moment as one batch: one INSERT claims them, a few connections publish
them, one UPDATE marks them sent. Nothing is doubled or lost when batches meet (another scheduler, a claim
made elsewhere, a scheduler killed mid-publish), and a reconcile pass catches up each pipeline on its own.
SQLite and PostgreSQL ledgers, a real RabbitMQ on 127.0.0.1."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from celery import Celery
from kombu.message import Message
from sqlalchemy import func, select

from config import Settings
from config.cron import parse_cron
from config.deployment import Execution
from pipeline.ledger.db import open_ledger
from pipeline.ledger.models import Run
from pipeline.ledger.runs import aware, claim_tick, claim_ticks, now
from pipeline.workers.app import TASK, make_app
from pipeline.workers.dispatch import SETTLE_SECONDS, Schedule, SentMarker, TickSender, tick_gaps
from pipeline.workers.publish import Acks, publish_confirmed
from tests.paths import ROOT

BROKER = "amqp://guest:guest@127.0.0.1:5672//"
MOMENT = datetime(2026, 12, 6, 6, 0, tzinfo=timezone.utc)


@pytest.fixture
def queue() -> Iterator[str]:
    """A queue of the test's own on the local RabbitMQ, deleted afterwards."""
    name = f"factline.test.batches.{os.getpid()}.{threading.get_ident()}.{time.monotonic_ns()}"
    yield name
    with celery_app(name).connection_for_write() as conn:
        conn.default_channel.queue_delete(name)


def celery_app(queue: str, broker: str = BROKER) -> Celery:
    return make_app(Execution(kind="celery", broker_url=broker, queue=queue), [Settings()])


def sender(db_url: str, queue: str, schedules: list[Schedule] | None = None, **kwargs: float) -> TickSender:
    return TickSender(open_ledger(db_url), celery_app(queue), queue, schedules or [],
                      reconcile_seconds=kwargs.get("reconcile_seconds", 60), heartbeat_seconds=1)


def tasks_in(queue: str) -> list[int]:
    """The run ids of the tasks waiting in ``queue`` (taken off it)."""
    found = []
    with celery_app(queue).connection_for_write() as conn:
        simple = conn.SimpleQueue(queue)
        while True:
            try:
                message = simple.get(timeout=1)
            except simple.Empty:
                return found
            found.append(message.payload[0][0])
            message.ack()


@pytest.mark.external  # RabbitMQ
def test_a_batch_claims_and_sends_only_the_ticks_no_one_else_has(db_url: str, queue: str) -> None:
    """Ten pipelines' ticks of one moment, two of them claimed elsewhere: eight runs claimed, sent once each
    and marked sent; the two others untouched."""
    tick_sender = sender(db_url, queue)
    elsewhere = {claim_tick(tick_sender.sessions, pipeline=name, scheduled_for=MOMENT) for name in ("p3", "p7")}
    claimed = tick_sender.tick_many([(f"p{i}", MOMENT) for i in range(10)])
    assert sorted(name for name, _ in claimed) == [f"p{i}" for i in range(10) if i not in (3, 7)]
    assert sorted(tasks_in(queue)) == sorted(claimed.values())
    with tick_sender.sessions() as s:
        assert set(s.scalars(select(Run.id).where(Run.sent_at.is_(None)))) == elsewhere
        assert s.scalar(select(func.count()).select_from(Run)) == 10


@pytest.mark.external  # RabbitMQ
def test_two_schedulers_given_the_same_ticks_in_opposite_orders_double_none(db_url: str, queue: str) -> None:
    """Two schedulers claim the same 100 ticks at once, one in the reverse order of the other (unsorted, they
    deadlocked on PostgreSQL): each tick has one run and one task, and both batches finish."""
    ticks = [(f"p{i:03d}", MOMENT) for i in range(100)]
    senders = [sender(db_url, queue), sender(db_url, queue)]
    start = threading.Barrier(2)
    claimed: list[dict[tuple[str, datetime], int]] = [{}, {}]

    def claim(which: int, order: list[tuple[str, datetime]]) -> None:
        start.wait()
        claimed[which] = senders[which].tick_many(order)

    threads = [threading.Thread(target=claim, args=(0, ticks)), threading.Thread(target=claim, args=(1, ticks[::-1]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads)
    assert not set(claimed[0]) & set(claimed[1]) and set(claimed[0]) | set(claimed[1]) == set(ticks)
    assert sorted(tasks_in(queue)) == sorted([*claimed[0].values(), *claimed[1].values()])
    with senders[0].sessions() as s:
        assert s.scalar(select(func.count()).select_from(Run)) == 100
        assert s.scalar(select(func.count()).select_from(Run).where(Run.sent_at.is_(None))) == 0


def test_opposite_order_claims_of_the_same_ticks_both_finish(db_url: str) -> None:
    """Two schedulers claim the same 1,000 ticks at once in opposite orders, five moments running: each claim
    finishes (in the order given, PostgreSQL detected a deadlock in most rounds) and every tick has one run."""
    ledgers = [open_ledger(db_url), open_ledger(db_url)]
    for minute in range(5):
        ticks = [(f"p{i:04d}", MOMENT + timedelta(minutes=minute)) for i in range(1000)]
        start = threading.Barrier(2)
        claimed: list[int | str] = [0, 0]

        def claim(which: int, order: list[tuple[str, datetime]]) -> None:
            start.wait()
            try:
                claimed[which] = len(claim_ticks(ledgers[which], order))
            except Exception as exc:  # a deadlock victim's error, to be seen in the assertion
                claimed[which] = repr(exc)[:300]

        threads = [threading.Thread(target=claim, args=(0, ticks)),
                   threading.Thread(target=claim, args=(1, ticks[::-1]))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert sorted(claimed, key=str) == [0, 1000], claimed
    with ledgers[0]() as s:
        assert s.scalar(select(func.count()).select_from(Run)) == 5000
    for ledger in ledgers:
        ledger.kw["bind"].dispose()


KILLED_SCHEDULER = """
import sys
from datetime import datetime
from config import Settings
from config.deployment import Execution
from pipeline.ledger.db import open_ledger
from pipeline.workers.app import make_app
from pipeline.workers.dispatch import TickSender

db_url, broker, queue, moment = sys.argv[1:]
app = make_app(Execution(kind="celery", broker_url=broker, queue=queue), [Settings()])
TickSender(open_ledger(db_url), app, queue, [], reconcile_seconds=60, heartbeat_seconds=1).tick_many(
    [(f"p{i:02d}", datetime.fromisoformat(moment)) for i in range(20)])
"""


@pytest.mark.external  # RabbitMQ
def test_a_scheduler_killed_while_its_publishes_hang_leaves_each_tick_to_be_sent_once(
        db_url: str, queue: str, tmp_path: Path) -> None:
    """A scheduler claims 20 ticks, then its publishes hang on a broker that never answers, and it is SIGKILLed:
    the next reconcile pass (after CELERY_RECONCILE_SECONDS) sends each of the 20 claimed ticks once."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)  # connections are accepted by the kernel, and nothing is ever said on them
    port = silent.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-c", KILLED_SCHEDULER, db_url,
                             f"amqp://guest:guest@127.0.0.1:{port}//", queue, MOMENT.isoformat()],
                            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sessions = open_ledger(db_url)
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            with sessions() as s:
                if s.scalar(select(func.count()).select_from(Run)) == 20:
                    break
            time.sleep(0.1)
        time.sleep(0.5)  # its publishes are waiting for the silent broker
        assert proc.poll() is None, "the scheduler ended before it could be killed mid-publish"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        silent.close()
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(Run).where(Run.sent_at.is_(None))) == 20
    next_scheduler = sender(db_url, queue, reconcile_seconds=0.5)
    time.sleep(0.6)
    resent = next_scheduler.reconcile()
    assert len(resent) == 20
    assert sorted(tasks_in(queue)) == sorted(resent)
    # the next pass sends none again: each was sent once (one taken by no worker, as here, is sent again only
    # CELERY_RECONCILE_SECONDS after its send: test_celery_ticks' Redis test)
    next_scheduler.reconcile_seconds = 60
    assert next_scheduler.reconcile() == [] and tasks_in(queue) == []


@pytest.mark.external  # RabbitMQ
def test_pipelines_sharing_a_schedule_are_each_caught_up_as_their_own_ledger_says(db_url: str, queue: str) -> None:
    """One every-second schedule, three pipelines: `a` (catch-up all) ticked 20 s ago, `b` (latest) ticked
    20 s ago, `c` never ticked. One reconcile pass claims every missed second of `a`, only the latest of `b`
    and nothing of `c`, and sends each once."""
    every_second = parse_cron("* * * * * *", timezone.utc)
    schedules = [Schedule("a", every_second, 600), Schedule("b", every_second, 600, "latest"),
                 Schedule("c", every_second, 600)]
    tick_sender = sender(db_url, queue, schedules)
    first = now().replace(microsecond=0) - timedelta(seconds=20)
    for name in ("a", "b"):
        claim_tick(tick_sender.sessions, pipeline=name, scheduled_for=first)
    with tick_sender.sessions() as s:
        due = tick_gaps(s, schedules)
    assert set(due) == {"a", "b"} and len(due["b"]) == 1
    assert len(due["a"]) >= 20 - SETTLE_SECONDS - 2 and due["a"][-1] == due["b"][0]
    assert all(first < at < now() for at in due["a"])
    caught_up = tick_sender.reconcile()
    assert len(caught_up) >= len(due["a"]) + 1
    assert sorted(tasks_in(queue)) == sorted(caught_up)
    with tick_sender.sessions() as s:
        by_pipeline = dict(s.execute(select(Run.pipeline, func.count()).group_by(Run.pipeline)).tuples().all())
    assert by_pipeline["b"] == 2 and "c" not in by_pipeline and by_pipeline["a"] == len(caught_up)  # its first + caught up


@pytest.mark.external  # RabbitMQ
def test_a_tick_claimed_ahead_is_sent_at_its_time_and_never_before(db_url: str, queue: str) -> None:
    """Ticks claimed 2 s before their time are queued runs without a task, starting at their time; the reconciler
    (due every 0.5 s) leaves them alone before it; the moment's batch sends each of them once, at their time."""
    tick_sender = sender(db_url, queue, reconcile_seconds=0.5)
    moment = now().replace(microsecond=0) + timedelta(seconds=3)
    ticks = [(f"p{i}", moment) for i in range(5)]
    tick_sender.claim_ahead(ticks)
    with tick_sender.sessions() as s:
        runs = s.scalars(select(Run).where(Run.scheduled_for == moment)).all()
        assert len(runs) == 5 and {(r.status, r.sent_at) for r in runs} == {("queued", None)}
        assert {aware(r.started_at) for r in runs} == {moment}
    time.sleep(0.6)
    assert tick_sender.reconcile() == [] and tasks_in(queue) == []
    claimed = tick_sender.tick_many(ticks)
    assert set(claimed) == set(ticks)
    with tick_sender.sessions() as s:
        sent = s.scalars(select(Run.sent_at).where(Run.scheduled_for == moment)).all()
    assert len(sent) == 5 and all(aware(at) >= moment for at in sent)
    assert sorted(tasks_in(queue)) == sorted(claimed.values())


@pytest.mark.external  # RabbitMQ
def test_a_tick_claimed_ahead_by_a_scheduler_that_died_is_sent_by_the_next_after_its_time(
        db_url: str, queue: str) -> None:
    """A scheduler claims a moment's ticks ahead and dies before it: the next one's reconciler sends them once,
    after their time."""
    moment = now().replace(microsecond=0) + timedelta(seconds=2)
    sender(db_url, queue).claim_ahead([("a", moment), ("b", moment)])
    next_scheduler = sender(db_url, queue, reconcile_seconds=0.5)
    assert next_scheduler.reconcile() == []
    while now() < moment + timedelta(seconds=0.6):
        time.sleep(0.1)
    resent = next_scheduler.reconcile()
    assert len(resent) == 2 and sorted(tasks_in(queue)) == sorted(resent)
    with next_scheduler.sessions() as s:
        assert all(aware(at) >= moment for at in s.scalars(select(Run.sent_at)))


def test_acks_settle_the_run_ids_of_their_delivery_tags() -> None:
    """A broker ack names a delivery tag, or every tag up to it (``multiple``); a nack the same, refused."""
    acks = Acks()
    for run_id in (11, 12, 13, 14, 15):
        acks.publish(run_id)
    acks.ack(2, multiple=True)
    acks.ack(4, multiple=False)
    assert acks.take() == [11, 12, 14] and acks.take() == []
    acks.nack(5, multiple=True)
    assert acks.nacked == [13, 15] and acks.pending == {}


@pytest.mark.external  # RabbitMQ
def test_a_task_published_in_a_batch_is_the_message_send_task_makes(queue: str) -> None:
    """The workers get from a batch exactly what ``app.send_task`` sends: the same body, headers, properties and
    routing, apart from the task's own id."""
    app = celery_app(queue)
    app.send_task(TASK, args=[41], queue=queue)
    marked: list[list[int]] = []
    assert publish_confirmed(app, queue, [42], marked.append) == [42] and marked == [[42]]
    with app.connection_for_write() as conn:
        simple = conn.SimpleQueue(queue)
        messages = [simple.get(timeout=5) for _ in range(2)]
        for message in messages:
            message.ack()

    def shape(message: Message) -> dict[str, object]:
        task_id = message.headers["id"]
        headers = {k: v for k, v in message.headers.items() if v != task_id}
        properties = {k: v for k, v in message.properties.items() if k not in ("correlation_id", "delivery_tag", "application_headers")}
        routing = {k: message.delivery_info[k] for k in ("exchange", "routing_key")}
        return {"headers": {**headers, "argsrepr": None}, "properties": properties, "routing": routing,
                "body": [message.payload[0] and None, *message.payload[1:]], "type": message.content_type,
                "encoding": message.content_encoding}

    assert [m.payload[0] for m in messages] == [[41], [42]]
    assert [m.headers["argsrepr"] for m in messages] == ["[41]", "[42]"]
    assert shape(messages[0]) == shape(messages[1])


@pytest.mark.external  # RabbitMQ, and its rabbitmqctl to set a policy
def test_tasks_the_broker_refuses_are_never_handed_over_as_confirmed(queue: str) -> None:
    """A queue that is full refuses further publishes with a nack (RabbitMQ's reject-publish overflow, set here by a
    policy before the queue exists): only the run ids the broker confirmed are handed over to be marked sent; the
    refused ones stay unmarked, for the reconciler."""
    if shutil.which("rabbitmqctl") is None:
        pytest.skip("rabbitmqctl is not on PATH (RabbitMQ's own tool sets the queue's policy)")
    policy = f"factline-test-refuse-{os.getpid()}-{time.monotonic_ns()}"
    ctl = ["rabbitmqctl", "-q"]
    subprocess.run([*ctl, "set_policy", "--apply-to", "queues", policy, f"^{re.escape(queue)}$",
                    '{"max-length": 2, "overflow": "reject-publish"}'], check=True, capture_output=True, timeout=120)
    try:
        marked: list[int] = []
        done = publish_confirmed(celery_app(queue), queue, [1, 2, 3, 4, 5], marked.extend)
    finally:
        subprocess.run([*ctl, "clear_policy", policy], check=True, capture_output=True, timeout=120)
    assert done == [1, 2] and marked == [1, 2]
    assert sorted(tasks_in(queue)) == [1, 2]


def test_runs_confirmed_apart_are_marked_sent_apart(db_url: str) -> None:
    """The marker stamps a run as soon as its confirm is handed over, not when the batch ends."""
    sessions = open_ledger(db_url)
    first, second = (claim_tick(sessions, pipeline=name, scheduled_for=MOMENT) for name in ("a", "b"))
    with SentMarker(sessions) as marker:
        marker.add([first])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with sessions() as s:
                if s.get(Run, first).sent_at is not None:
                    break
            time.sleep(0.05)
        with sessions() as s:
            assert s.get(Run, first).sent_at is not None and s.get(Run, second).sent_at is None
        marker.add([second])
    with sessions() as s:
        assert s.get(Run, first).sent_at < s.get(Run, second).sent_at
