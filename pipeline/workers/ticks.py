"""The scheduler's readers of distributed ticks: which runs to re-send, which ones the workers finished.

A tick's ``runs`` row is its only state (no table of its own); its transitions (claim, take, heartbeat,
close) are pipeline.ledger.runs', each one compare-and-set UPDATE:

    queued   claimed by a scheduler (the unique (pipeline, scheduled_for) row); sent_at set once the broker
             confirmed the task; a worker takes it with a compare-and-set UPDATE (status='queued')
    running  host/pid of the worker executing it, heartbeat_at refreshed while it runs; a worker that finds
             it held by a dead process (same host, pid gone; or heartbeat older than 3 beats) takes it
             over with a compare-and-set on the old owner, and continues the same run
    approved an editor approved it (pipeline.review, the editor's command sent its task): taken like a
             queued run, and continued by publishing the approved version
    finished / interrupted / awaiting_review: closed or waiting for an editor; a task for it is a no-op
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from pipeline.ledger.models import Run
from pipeline.ledger.runs import HEARTBEATS_TO_DEAD, aware, now
from pipeline.outcome import CLOSED, RunStatus


def to_resend(s: Session, *, older_than: float, heartbeat_seconds: float, queue_drained: bool) -> list[int]:
    """Runs whose task may be nowhere: claimed but never confirmed sent, running on a silent worker, or (when
    ``queue_drained``: the broker holds no task waiting for a worker) sent but not taken ``older_than`` after.

    The third case is a task delivered to a worker killed before it took the run: RabbitMQ gives such a task to
    another worker at once, Redis only after ``visibility_timeout`` (an hour at least). A drained queue means every
    sent task has been delivered, and a live worker takes a delivered run within a second or two (it reserves a
    task only for a free slot: worker_prefetch_multiplier = 1, acks late), so a run still queued ``older_than``
    after its send lost its task. While tasks wait (a backlog), a queued run's task may be among them: not re-sent
    then. A re-send that finds the run taken is a no-op (``take`` is a compare-and-set), and it renews ``sent_at``,
    so a run is re-sent at most once per ``older_than``."""
    at = now()
    never_sent = and_(Run.status == RunStatus.queued, Run.sent_at.is_(None),
                      Run.started_at < at - timedelta(seconds=older_than))
    silent = and_(Run.status == RunStatus.running, Run.sent_at.is_not(None),
                  Run.heartbeat_at < at - timedelta(seconds=heartbeat_seconds * HEARTBEATS_TO_DEAD))
    lost = [never_sent, silent]
    if queue_drained:
        lost.append(and_(Run.status == RunStatus.queued, Run.sent_at < at - timedelta(seconds=older_than)))
    return list(s.scalars(select(Run.id).where(or_(*lost)).order_by(Run.id)))


class FinishedRuns:
    """Runs the workers closed since the scheduler started, for its /metrics (each counted once)."""

    def __init__(self) -> None:
        self.start = self.since = now()
        self.seen: set[int] = set()

    def new(self, s: Session) -> list[tuple[int, float]]:
        """(run id, seconds) of runs finished since the last call, oldest first."""
        margin = self.since - timedelta(minutes=5)  # commits land out of finished_at order: look back
        rows = s.execute(select(Run.id, Run.started_at, Run.finished_at).where(
            Run.finished_at >= margin, Run.status.in_(CLOSED)).order_by(Run.finished_at)).all()
        fresh = [(r.id, _seconds(r.started_at, r.finished_at)) for r in rows
                 if r.id not in self.seen and aware(r.finished_at) >= self.start]
        self.seen = {r.id for r in rows}
        if rows:
            self.since = max(aware(r.finished_at) for r in rows)
        return fresh


def _seconds(started: datetime, finished: datetime) -> float:
    return (aware(finished) - aware(started)).total_seconds()
