"""A Celery worker that runs claimed ticks: ``factline worker [--concurrency N]``.

One process, a pool of N threads (``--pool threads``): the process opens one Runtime per pipeline
(pipeline.runtime.open_runtimes) and at most one embedded model server, shared by its threads; a
run spends its time waiting on the model and the target, which threads do well. (A prefork pool would
start one embedded model per child.) While it runs ticks, a heartbeat thread refreshes ``heartbeat_at``
of each of them every RUN_HEARTBEAT_SECONDS, which tells other workers and the reconciler it is alive.

SIGTERM (systemd stop) is Celery's warm shutdown: no new task is taken, the runs in flight finish, then
the process exits; it has an end: after WARM_SHUTDOWN_GRACE_SECONDS the runs still in flight have every request
cut (the run deadline's stop, pipeline.http) and close `interrupted`. A run in flight past its RUN_MAX_SECONDS
(stuck where no deadline reaches) stops being beaten and is closed `budget` by the heartbeat thread. A task
whose arguments are not one run id is rejected in one line and acked; a tick of a pipeline that left the
pipelines file is closed `interrupted` (orphaned). A second SIGTERM, or SIGKILL, leaves those tasks unacknowledged: the broker hands
them to another worker, which continues the same runs.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence

from celery import Celery, Task
from celery.signals import worker_shutting_down
from loguru import logger
from sqlalchemy import select

from config import ConfigError, Deployment, Settings
from pipeline.ledger import reviews
from pipeline.ledger.journal import RunJournal
from pipeline.ledger.models import Run
from pipeline.ledger.runs import HEARTBEATS_TO_DEAD, Take, beat, close_orphan, close_overdue, take
from pipeline.outcome import Verdict, one_line
from pipeline.review.publisher import continue_approved
from pipeline.runner import run_once
from pipeline.runtime import Publisher, Runtime, open_runtimes
from pipeline.workers.app import TASK, check_broker, make_app


class TickRunner:
    """What the worker's task does with one run id, given the worker's runtimes."""

    def __init__(self, runtimes: dict[str, Runtime], heartbeat_seconds: float) -> None:
        self.runtimes = runtimes
        self.heartbeat_seconds = heartbeat_seconds
        self.sessions = next(iter(runtimes.values())).sessions
        self.owned: set[int] = set()
        self.started: dict[int, tuple[float, float]] = {}  # run id -> (monotonic start, its RUN_MAX_SECONDS)
        self._lock = threading.Lock()
        self.stopped = threading.Event()

    @property
    def retry_after(self) -> float:
        """When a held run is looked at again: by then its holder has beaten, or counts as dead."""
        return self.heartbeat_seconds * (HEARTBEATS_TO_DEAD + 1)

    def execute(self, run_id: int) -> Take:
        with self.sessions() as s:
            pipeline = s.scalar(select(Run.pipeline).where(Run.id == run_id))
        runtime = self.runtimes.get(pipeline) if pipeline else None
        if pipeline is not None and runtime is None:
            # the pipelines file is the deployment's: a pipeline this worker does not know has left it
            with self.sessions.begin() as s:
                closed = close_orphan(s, run_id, f"pipeline {pipeline!r} is not in the pipelines file any more")
            logger.warning("worker.orphaned_tick", run_id=run_id, pipeline=pipeline, closed=closed,
                           configured=sorted(self.runtimes))
            return Take.DONE
        if runtime is None:
            logger.warning("worker.no_such_run", run_id=run_id)
            return Take.MISSING
        with self.sessions.begin() as s:
            decision, previous = take(s, run_id, self.heartbeat_seconds, runtime.stamp)
        with logger.contextualize(run_id=run_id, pipeline=pipeline):
            logger.info("worker.task", decision=decision.value,
                        previous=f"{previous.host}:{previous.pid}" if previous else None)
            if decision is Take.RESUME:
                RunJournal(self.sessions, run_id, runtime.redact).event("resumed", host=previous.host, pid=previous.pid)
            if decision in (Take.RUN, Take.RESUME):
                self._run(runtime, run_id)
        return decision

    def _run(self, runtime: Runtime, run_id: int) -> None:
        with self._lock:
            self.owned.add(run_id)
            self.started[run_id] = (time.monotonic(), runtime.settings.run_max_seconds)
        try:
            with self.sessions() as s:
                approved = reviews.approved_version(s, run_id) is not None
            if approved:  # an editor approved it: publish what was approved, no model
                continue_approved(Publisher.of(runtime), run_id)
            else:
                run_once(runtime, trigger="schedule", run_id=run_id, cancel=self.stopped)
        except Exception as exc:  # run_once closes its row itself; this is for a ledger that failed as it closed
            logger.error("worker.run_crashed", error=runtime.redact(one_line(exc)))
            logger.opt(exception=exc).debug("worker.run_crashed.traceback")
            RunJournal(self.sessions, run_id, runtime.redact).finish(verdict=Verdict.error,
                                                                     stop_reason="crash", error=one_line(exc))
        finally:
            with self._lock:
                self.owned.discard(run_id)
                self.started.pop(run_id, None)

    def heartbeat_forever(self) -> None:
        while not self.stopped.wait(self.heartbeat_seconds):
            self.beat_once()

    def beat_once(self) -> None:
        """Beat the runs in flight; a run still in flight OVERDUE_BEATS beats past its RUN_MAX_SECONDS (stuck where
        no deadline reaches: a name lookup, a bug) is no longer beaten and is closed `budget` (max_seconds), so
        the broker's redelivery or the reconciler never waits on it and its topic is free again."""
        now_s = time.monotonic()
        with self._lock:
            overdue = [r for r, (at, limit) in self.started.items()
                       if now_s - at > limit + OVERDUE_BEATS * self.heartbeat_seconds]
            for run_id in overdue:
                self.owned.discard(run_id)
                self.started.pop(run_id)
            owned = sorted(self.owned)
        try:
            with self.sessions.begin() as s:
                beat(s, owned)
                for run_id in overdue:
                    closed = close_overdue(s, run_id)
                    logger.error("worker.run_overdue", run_id=run_id, closed=closed)
        except Exception:
            logger.exception("worker.heartbeat_failed", run_ids=owned)


MAX_RUN_ID = 2**63 - 1
OVERDUE_BEATS = 3  # beats past RUN_MAX_SECONDS before a run in flight counts as stuck
WARM_SHUTDOWN_GRACE_SECONDS = 15.0  # after a warm shutdown starts, runs still in flight are cut and closed


def task_run_id(args: tuple[object, ...], kwargs: dict[str, object]) -> int | None:
    """The run id of a task's arguments: exactly one int in 1..2^63-1, positional or ``run_id=``; else None."""
    values = [*args, *kwargs.values()]
    if len(values) != 1 or (kwargs and "run_id" not in kwargs):
        return None
    value = values[0]
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_RUN_ID:
        return None
    return value


def register_task(app: Celery, runner: TickRunner) -> Task:
    @app.task(name=TASK, bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True,
              max_retries=None)
    def run_tick(task: Task, *args: object, **kwargs: object) -> str:
        run_id = task_run_id(args, kwargs)
        if run_id is None:  # returned, so acked: a poison message is never redelivered
            logger.error("worker.poison_task", task_id=str(task.request.id)[:64], args=repr(args)[:120],
                         kwargs=repr(sorted(kwargs))[:120])
            return "rejected"
        decision = runner.execute(run_id)
        if decision is Take.HELD:
            raise task.retry(countdown=runner.retry_after)
        return decision.value

    return run_tick


def run_worker(deployment: Deployment, pipelines: Sequence[Settings], concurrency: int,
               announce: Callable[[str], None] = print) -> int:
    """Consume ticks until Celery's shutdown; 0 after a clean stop."""
    executor = deployment.executor
    if executor.kind != "celery":
        raise ConfigError("invalid setting EXECUTOR: factline worker needs EXECUTOR=celery")
    check_broker(executor)
    cut = threading.Event()  # set WARM_SHUTDOWN_GRACE_SECONDS into a warm shutdown: every request in flight ends
    with open_runtimes(deployment, pipelines, stop=cut) as runtimes:
        runner = TickRunner(runtimes, executor.heartbeat_seconds)
        app = make_app(executor, pipelines)
        register_task(app, runner)

        def bound_shutdown(**_: object) -> None:
            logger.warning("worker.shutting_down", grace_s=WARM_SHUTDOWN_GRACE_SECONDS, in_flight=sorted(runner.owned))
            threading.Timer(WARM_SHUTDOWN_GRACE_SECONDS, cut.set).start()

        worker_shutting_down.connect(bound_shutdown, weak=False)
        threading.Thread(target=runner.heartbeat_forever, name="heartbeat", daemon=True).start()
        announce(f"factline worker: {concurrency} slot(s), pipelines {', '.join(runtimes)}, "
                 f"queue {executor.queue}")
        try:
            app.worker_main(["worker", "--pool=threads", f"--concurrency={concurrency}", f"--queues={executor.queue}",
                             "--without-gossip", "--without-mingle", "--loglevel=WARNING",
                             f"--hostname=factline-{os.getpid()}@%h"])
        except SystemExit as exc:  # worker_main ends with sys.exit
            code = exc.code if isinstance(exc.code, int) else 0
        else:
            code = 0
        finally:
            runner.stopped.set()
    logger.info("worker.stopped", code=code)
    return code
