"""The scheduler's side of EXECUTOR=celery: claim each due tick, send one task, re-send what got lost.

    tick(pipeline, fire time): claim the runs row (queued) -> send_task (confirmed by the broker) -> sent_at
    reconcile(), at start and every CELERY_RECONCILE_SECONDS:
      - claim and send the ticks of the last SCHEDULE_MISFIRE_GRACE_SECONDS that have no run, from the
        pipeline's first tick on, as its SCHEDULE_CATCH_UP says (``ticks_to_catch_up``): ticks that fell
        while no scheduler ran, or whose job APScheduler skipped (busy or late); with ``all`` (the default)
        each is its own run (not coalesced: a tick is queued work, and the workers absorb it at their pace).
        A pipeline that never ticked catches nothing up.
      - re-send runs claimed but never confirmed sent (the scheduler died between claim and send, or
        the broker was down), and runs whose worker stopped beating (a task lost with its worker)

A re-send never makes a second run: a tick has one runs row (unique), the task of a closed run is a
no-op, and a run held by a live worker is left to it (pipeline.workers.ticks).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime, timedelta

from apscheduler.triggers.cron import CronTrigger
from celery import Celery
from loguru import logger
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from config import Settings
from config.deployment import Execution
from config.cron import tick_time
from pipeline.ledger.models import Run
from pipeline.workers.app import TASK
from pipeline.ledger.runs import aware, claim_tick, mark_sent, now
from pipeline.workers.ticks import to_resend

SETTLE_SECONDS = 2.0  # a tick younger than this is left to its own job


@dataclass(frozen=True)
class Schedule:
    """What the reconciler needs of one pipeline."""

    pipeline: str
    trigger: CronTrigger
    grace_seconds: float
    catch_up: str = "all"  # SCHEDULE_CATCH_UP: all | latest | none


class TickSender:
    """``stop`` (the daemon's SIGTERM) ends a reconcile pass between two ticks: a pass that catches up a long
    outage claims and sends hundreds of them, and a stop must not wait for that. What it leaves is the next
    pass's work (a tick claimed but not sent is re-sent, one not claimed is caught up)."""

    def __init__(self, sessions: sessionmaker[Session], app: Celery, queue: str, schedules: list[Schedule], *,
                 reconcile_seconds: float, heartbeat_seconds: float, stop: threading.Event | None = None) -> None:
        self.sessions, self.app, self.queue, self.schedules = sessions, app, queue, schedules
        self.reconcile_seconds, self.heartbeat_seconds = reconcile_seconds, heartbeat_seconds
        self.stop = stop or threading.Event()

    def tick(self, pipeline: str, scheduled_for: datetime) -> int | None:
        """Claim and send one tick; None if it was claimed elsewhere."""
        run_id = claim_tick(self.sessions, pipeline=pipeline, scheduled_for=scheduled_for)
        if run_id is None:
            return None
        self.send(run_id)
        return run_id

    def send(self, run_id: int) -> bool:
        """One task for ``run_id``; False (logged, left for the reconciler) when the broker did not take it."""
        try:
            self.app.send_task(TASK, args=[run_id], queue=self.queue, retry=True)
        except Exception as exc:  # kombu raises OperationalError and socket errors alike when the broker is down
            logger.warning("tick.send_failed", run_id=run_id, error=f"{type(exc).__name__}: {exc}")
            return False
        with self.sessions.begin() as s:
            mark_sent(s, run_id)
        return True

    def reconcile(self) -> list[int]:
        """Claim missed ticks and re-send every tick whose task may be nowhere; the run ids sent."""
        caught_up = [run_id for schedule in self.schedules for run_id in self._fill_gaps(schedule)]
        with self.sessions() as s:
            lost = to_resend(s, older_than=self.reconcile_seconds, heartbeat_seconds=self.heartbeat_seconds)
        resent = [run_id for run_id in lost if not self.stop.is_set() and self.send(run_id)]
        if lost:
            logger.warning("tick.resent", run_ids=resent, failed=sorted(set(lost) - set(resent)))
        return caught_up + resent

    def _fill_gaps(self, schedule: Schedule) -> list[int]:
        """Claim the ticks without a run that the pipeline's catch-up policy keeps (``ticks_to_catch_up``)."""
        with self.sessions() as s:
            due = ticks_to_catch_up(s, schedule)
        claimed = []
        for fire_time in due:
            if self.stop.is_set():
                break
            if (run_id := self.tick(schedule.pipeline, fire_time)) is not None:
                claimed.append(run_id)
        if claimed:
            logger.warning("tick.caught_up", pipeline=schedule.pipeline, run_ids=claimed)
        return claimed


def ticks_to_catch_up(s: Session, schedule: Schedule) -> list[datetime]:
    """The fire times without a run, within the grace time and from the pipeline's first tick on, that
    SCHEDULE_CATCH_UP keeps: ``all`` each of them (each its own run), ``latest`` only the most recent one
    after the pipeline's latest tick, ``none`` nothing. A pipeline that never ticked catches nothing up;
    what is left out is logged ``tick.missed`` (with how many) once, when it is decided."""
    if schedule.catch_up == "none":
        return []
    until = now() - timedelta(seconds=SETTLE_SECONDS)
    since = until - timedelta(seconds=schedule.grace_seconds)
    first, last = s.execute(select(func.min(Run.scheduled_for), func.max(Run.scheduled_for)).where(
        Run.pipeline == schedule.pipeline, Run.trigger == "schedule")).one()
    if first is None:
        return []  # a pipeline that never ticked has nothing to catch up
    since = max(since, aware(first))
    if schedule.catch_up == "latest":
        since = max(since, aware(last))  # gaps before the latest tick were decided when it was
    have = {aware(t) for t in s.scalars(select(Run.scheduled_for).where(
        Run.pipeline == schedule.pipeline, Run.scheduled_for > since))}
    missing = [t for t in missed_fire_times(schedule.trigger, since, until) if t not in have]
    if schedule.catch_up == "latest" and len(missing) > 1:
        logger.warning("tick.missed", pipeline=schedule.pipeline, count=len(missing) - 1, policy="latest",
                       scheduled_for=[t.isoformat() for t in missing[:-1]])
        return missing[-1:]
    return missing


def send_run(executor: Execution, settings: Settings, sessions: sessionmaker[Session], run_id: int) -> bool:
    """Send one task for ``run_id`` (an approved run of the pipeline ``settings``, from an editor's command) to the
    workers."""
    from pipeline.workers.app import make_app

    return TickSender(sessions, make_app(executor, [settings]), executor.queue, [],
                      reconcile_seconds=executor.reconcile_seconds, heartbeat_seconds=executor.heartbeat_seconds
                      ).send(run_id)


def missed_fire_times(trigger: CronTrigger, after: datetime, until: datetime) -> list[datetime]:
    """The trigger's fire times in (after, until), as the ledger stores ticks (UTC, whole seconds)."""
    times: list[datetime] = []
    previous = after
    while (fire := trigger.get_next_fire_time(previous, previous + timedelta(microseconds=1))) is not None:
        if fire >= until:
            break
        if fire > after:
            times.append(tick_time(fire))
        previous = fire
    return times
