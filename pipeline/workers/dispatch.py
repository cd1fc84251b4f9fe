"""The scheduler's side of EXECUTOR=celery: claim each due tick, send one task, re-send what got lost.

    tick(pipeline, fire time): claim the runs row (queued) -> send_task (confirmed by the broker) -> sent_at
    reconcile(): re-send runs claimed but never confirmed sent (the scheduler died between claim and send,
                 or the broker was down) and runs whose worker stopped beating (a task lost with its worker)
    catch_up(): at start, claim every tick missed while no scheduler ran, within the misfire grace time

A re-send never makes a second run: the task of a run that is closed is a no-op, and the run row is
the only place a tick is executed from (pipeline.workers.ticks).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from apscheduler.triggers.cron import CronTrigger
from celery import Celery
from loguru import logger
from sqlalchemy.orm import Session, sessionmaker

from pipeline.cron import tick_time
from pipeline.workers.app import QUEUE, TASK
from pipeline.workers.ticks import claim_tick, last_tick, mark_sent, now, to_resend


class TickSender:
    def __init__(self, sessions: sessionmaker[Session], app: Celery, *, reconcile_seconds: float,
                 heartbeat_seconds: float) -> None:
        self.sessions, self.app = sessions, app
        self.reconcile_seconds, self.heartbeat_seconds = reconcile_seconds, heartbeat_seconds

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
            self.app.send_task(TASK, args=[run_id], queue=QUEUE, retry=True)
        except Exception as exc:  # kombu raises OperationalError and socket errors alike when the broker is down
            logger.warning("tick.send_failed", run_id=run_id, error=f"{type(exc).__name__}: {exc}")
            return False
        with self.sessions.begin() as s:
            mark_sent(s, run_id)
        return True

    def reconcile(self) -> list[int]:
        """Re-send every tick whose task may be nowhere; the run ids sent."""
        with self.sessions() as s:
            lost = to_resend(s, older_than=self.reconcile_seconds, heartbeat_seconds=self.heartbeat_seconds)
        sent = [run_id for run_id in lost if self.send(run_id)]
        if lost:
            logger.warning("tick.resent", run_ids=sent, failed=sorted(set(lost) - set(sent)))
        return sent

    def catch_up(self, pipeline: str, trigger: CronTrigger, grace_seconds: float) -> list[int]:
        """Claim and send the ticks of ``pipeline`` that fell while no scheduler ran (within the grace time)."""
        with self.sessions() as s:
            since = last_tick(s, pipeline)
        until = now()
        floor = until - timedelta(seconds=grace_seconds)
        if since is None or since < floor:
            since = floor
        sent = []
        for fire_time in missed_fire_times(trigger, since, until):
            if (run_id := self.tick(pipeline, fire_time)) is not None:
                sent.append(run_id)
        if sent:
            logger.warning("tick.caught_up", pipeline=pipeline, run_ids=sent)
        return sent


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
