"""The ledger's side of distributed ticks: claim, mark sent, take, heartbeat, find what to re-send.

A tick's ``runs`` row is its only state (no table of its own):

    queued   claimed by a scheduler (the unique (pipeline, scheduled_for) row); sent_at set once the broker
             confirmed the task; a worker takes it with a compare-and-set UPDATE (status='queued')
    running  host/pid of the worker executing it, heartbeat_at refreshed while it runs; a worker that finds
             it held by a dead process (same host, pid gone; or heartbeat older than 3 beats) takes it
             over with a compare-and-set on the old owner, and continues the same run
    approved an editor approved it (pipeline.review, the editor's command sent its task): taken like a
             queued run, and continued by publishing the approved version
    finished / interrupted / awaiting_review: closed or waiting for an editor; a task for it is a no-op

Every transition is one conditional UPDATE, so two workers can never both win (PostgreSQL row
locks, SQLite's single writer), without SELECT ... FOR UPDATE or advisory locks.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import StrEnum

from sqlalchemy import and_, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from pipeline.ledger.models import Run
from pipeline.ledger.runs import RunStamp

HEARTBEATS_TO_DEAD = 3  # a run whose heartbeat is this many beats old has lost its worker


class Take(StrEnum):
    """What a worker may do with a tick's run."""

    RUN = "run"  # it was queued: this worker runs it
    RESUME = "resume"  # its worker died: this worker continues it
    HELD = "held"  # a live worker holds it: try again later
    DONE = "done"  # closed already: nothing to do
    MISSING = "missing"  # no such run (another ledger?)


@dataclass(frozen=True)
class Owner:
    host: str | None
    pid: int | None


def me() -> Owner:
    return Owner(socket.gethostname(), os.getpid())


def now() -> datetime:
    return datetime.now(timezone.utc)


def claim_tick(sessions: sessionmaker[Session], *, pipeline: str, scheduled_for: datetime) -> int | None:
    """Open the tick's run as ``queued``; None when another scheduler (or an earlier life of this one) has it."""
    try:
        with sessions.begin() as s:
            run = Run(pipeline=pipeline, trigger="schedule", scheduled_for=scheduled_for, status="queued")
            s.add(run)
            s.flush()
            return run.id
    except IntegrityError:
        return None


def mark_sent(s: Session, run_id: int) -> None:
    s.execute(update(Run).where(Run.id == run_id).values(sent_at=now()))


def take(s: Session, run_id: int, heartbeat_seconds: float, stamp: RunStamp) -> tuple[Take, Owner | None]:
    """Decide and record, in one compare-and-set, whether this process runs ``run_id`` (and who had it)."""
    run = s.get(Run, run_id)
    if run is None:
        return Take.MISSING, None
    mine, at = me(), now()
    if run.status in ("finished", "interrupted", "awaiting_review"):  # awaiting review: an editor's move next
        return Take.DONE, None
    values = dict(status="running", host=mine.host, pid=mine.pid, heartbeat_at=at, **stamp.columns())
    if run.status == "queued":
        won = s.execute(update(Run).where(Run.id == run_id, Run.status == "queued").values(started_at=at, **values))
        return (Take.RUN, None) if won.rowcount == 1 else (Take.HELD, None)
    if run.status == "approved":  # an editor approved it (pipeline.review): this worker publishes it
        won = s.execute(update(Run).where(Run.id == run_id, Run.status == "approved").values(
            status="running", host=mine.host, pid=mine.pid, heartbeat_at=at))
        return (Take.RUN, None) if won.rowcount == 1 else (Take.HELD, None)
    previous = Owner(run.host, run.pid)
    if previous == mine or not _dead(previous, run.heartbeat_at, heartbeat_seconds):
        return Take.HELD, previous
    same_owner = and_(Run.host == run.host, Run.pid == run.pid, Run.status == "running")
    won = s.execute(update(Run).where(Run.id == run_id, same_owner).values(**values))
    return (Take.RESUME, previous) if won.rowcount == 1 else (Take.HELD, previous)


def close_orphan(s: Session, run_id: int, reason: str) -> bool:
    """Close a queued run whose pipeline is no longer configured (compare-and-set on `queued`): whether it did."""
    closed = s.execute(update(Run).where(Run.id == run_id, Run.status == "queued").values(
        status="interrupted", verdict="interrupted", stop_reason="orphaned", error=reason[:500], finished_at=now()))
    return bool(closed.rowcount)


def close_overdue(s: Session, run_id: int) -> bool:
    """Close a run its worker still holds past its deadline (compare-and-set on `running`): whether it did."""
    closed = s.execute(update(Run).where(Run.id == run_id, Run.status == "running").values(
        status="finished", verdict="budget", stop_reason="max_seconds", finished_at=now(),
        error="still in flight past RUN_MAX_SECONDS; closed by its worker's heartbeat"))
    return bool(closed.rowcount)


def beat(s: Session, run_ids: list[int]) -> None:
    """Refresh the heartbeat of the runs this process is executing."""
    if run_ids:
        s.execute(update(Run).where(Run.id.in_(run_ids), Run.status == "running").values(heartbeat_at=now()))


def to_resend(s: Session, *, older_than: float, heartbeat_seconds: float) -> list[int]:
    """Runs whose task may be nowhere: claimed but never confirmed sent, or running on a silent worker."""
    at = now()
    never_sent = and_(Run.status == "queued", Run.sent_at.is_(None),
                      Run.started_at < at - timedelta(seconds=older_than))
    silent = and_(Run.status == "running", Run.sent_at.is_not(None),
                  Run.heartbeat_at < at - timedelta(seconds=heartbeat_seconds * HEARTBEATS_TO_DEAD))
    return list(s.scalars(select(Run.id).where(or_(never_sent, silent)).order_by(Run.id)))


def _dead(owner: Owner, heartbeat_at: datetime | None, heartbeat_seconds: float) -> bool:
    """The owner is gone: its pid no longer exists on this host, or its heartbeat stopped."""
    if owner.host == socket.gethostname() and owner.pid is not None:
        try:
            os.kill(owner.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            pass
    if heartbeat_at is None:
        return True
    if heartbeat_at.tzinfo is None:
        heartbeat_at = heartbeat_at.replace(tzinfo=timezone.utc)
    return now() - heartbeat_at > timedelta(seconds=heartbeat_seconds * HEARTBEATS_TO_DEAD)


class FinishedRuns:
    """Runs the workers closed since the scheduler started, for its /metrics (each counted once)."""

    def __init__(self) -> None:
        self.start = self.since = now()
        self.seen: set[int] = set()

    def new(self, s: Session) -> list[tuple[int, float]]:
        """(run id, seconds) of runs finished since the last call, oldest first."""
        margin = self.since - timedelta(minutes=5)  # commits land out of finished_at order: look back
        rows = s.execute(select(Run.id, Run.started_at, Run.finished_at).where(
            Run.finished_at >= margin, Run.status.in_(("finished", "interrupted"))).order_by(Run.finished_at)).all()
        fresh = [(r.id, _seconds(r.started_at, r.finished_at)) for r in rows
                 if r.id not in self.seen and aware(r.finished_at) >= self.start]
        self.seen = {r.id for r in rows}
        if rows:
            self.since = max(aware(r.finished_at) for r in rows)
        return fresh


def aware(when: datetime) -> datetime:
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when


def _seconds(started: datetime, finished: datetime) -> float:
    return (aware(finished) - aware(started)).total_seconds()
