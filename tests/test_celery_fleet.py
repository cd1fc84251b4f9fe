"""EXECUTOR=celery with real processes: a scheduler, workers, RabbitMQ (or Redis), PostgreSQL, the scripted model.

The short versions of scripts/celery_chaos.py (which runs ten pipelines for 30 s and writes the figures
in docs/celery.md): every claimed tick runs exactly once and succeeds, the local target holds exactly the
ledger's publications, and the same holds while workers are SIGKILLed, the scheduler is killed and the
broker restarts.
"""

from __future__ import annotations

import os
import random
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select, update

from pipeline.ledger.db import open_ledger
from pipeline.ledger.models import Publication, Run, RunEvent, ToolCall
from pipeline.runner import run_once
from pipeline.runtime import open_runtimes
from pipeline.workers.app import make_app
from pipeline.workers.dispatch import TickSender
from pipeline.workers.ticks import Take, claim_tick, now
from pipeline.workers.worker import TickRunner
from tests.celery_harness import Fleet, restart_rabbitmq
from tests.conftest import make_settings
from tests.scripted_model import ScriptedModel, happy_path, say, script, step_call

RABBITMQ = "amqp://guest:guest@127.0.0.1:5672//"
REDIS = "redis://127.0.0.1:6379/15"


@pytest.fixture
def fleet_factory(pg_url: str, model: ScriptedModel, tmp_path: Path) -> Iterator:
    fleets: list[Fleet] = []

    def make(broker: str = RABBITMQ, **kwargs: object) -> Fleet:
        fleet = Fleet(pg_url, broker, model.base_url, tmp_path, **kwargs)  # type: ignore[arg-type]
        fleets.append(fleet)
        return fleet

    yield make
    for fleet in fleets:
        fleet.stop()
        fleet.delete_queue()


def _explain(fleet: Fleet) -> str:
    logs = sorted(fleet.workdir.glob("*.log"))
    return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-1500:]}" for p in logs[-3:])


def test_one_scheduler_three_workers_run_every_tick_once(fleet_factory) -> None:
    """4 pipelines ticking every second for 10 s on 3 workers: one successful run per tick, each page once."""
    fleet = fleet_factory(pipelines=4, concurrency=2)
    for _ in range(3):
        fleet.start_worker()
    fleet.start_scheduler()
    time.sleep(10)
    fleet.stop_ticking()
    fleet.wait_settled(timeout=180)
    audit = fleet.audit()
    assert audit.ticks >= 4 * 8, _explain(fleet)
    assert audit.clean, (audit, _explain(fleet))


def test_killed_workers_scheduler_and_broker_lose_nothing_and_repeat_nothing(fleet_factory) -> None:
    """SIGKILL a worker every 3 s (then restart it), kill the scheduler once, restart RabbitMQ once: still clean."""
    fleet = fleet_factory(pipelines=3, concurrency=2)
    for _ in range(3):
        fleet.start_worker()
    fleet.start_scheduler()
    rng = random.Random(15)
    started = time.monotonic()
    broken = {"scheduler": False, "broker": False}
    while time.monotonic() - started < 18:
        time.sleep(3)
        victim = rng.choice(fleet.workers)
        fleet.kill_worker(victim)
        fleet.start_worker()
        elapsed = time.monotonic() - started
        if elapsed > 6 and not broken["scheduler"]:
            fleet.kill_scheduler()
            time.sleep(1.5)
            fleet.start_scheduler()
            broken["scheduler"] = True
        elif elapsed > 11 and not broken["broker"]:
            restart_rabbitmq()
            broken["broker"] = True
    fleet.stop_ticking()
    fleet.wait_settled(timeout=240)
    audit = fleet.audit()
    assert broken == {"scheduler": True, "broker": True}
    assert audit.ticks >= 3 * 14, _explain(fleet)
    assert audit.clean, (audit, _explain(fleet))


def test_redis_broker_runs_the_ticks_too(fleet_factory) -> None:
    """The same fleet on Redis instead of RabbitMQ: one pipeline, one worker, 5 s."""
    if subprocess.run(["redis-cli", "ping"], capture_output=True, text=True).stdout.strip() != "PONG":
        pytest.fail("Redis is not running on 127.0.0.1:6379 (.ci/run starts it)")
    fleet = fleet_factory(broker=REDIS, pipelines=1, concurrency=2)
    fleet.start_worker()
    fleet.start_scheduler()
    time.sleep(5)
    fleet.stop_ticking()
    fleet.wait_settled(timeout=120)
    audit = fleet.audit()
    assert audit.ticks >= 3 and audit.clean, (audit, _explain(fleet))


# The ledger's side, in one process: what a task does with a run in each state.

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
    assert len(list(runner.runtimes["content"].settings.local_site_dir.glob("*.html"))) == 1


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
