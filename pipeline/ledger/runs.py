"""The runs row: what a run is given (RunStamp), and its life cycle, every transition in this one module.

    inline run      open_run ........................................> running
    celery tick     claim_tick(s) -> queued --take (RUN)-------------> running
                                         (mark_sent once the broker has its task)
                    running on a dead worker --take (RESUME)----------> running (the same run, another owner)
    running         --finish(verdict)--> finished | interrupted | awaiting_review (the verdict says which)
                    beat: heartbeat_at, while a worker runs it
    awaiting_review --approve--> approved --take (or take_approved)--> running --finish--> finished
                    --approve(take)--> running (the inline editor's command publishes it at once)
                    --reject---> finished (rejected)      --expire--> finished (expired)
    clean-ups       running, its process dead   --interrupt_stale_runs--> interrupted (process_died)
                    running, approved, dead     --return_orphans-------> approved (the publish is still owed)
                    running, this process       --interrupt_own_runs---> interrupted (a daemon's stop)
                    queued, pipeline gone       --close_orphan---------> interrupted (orphaned)
                    running past its deadline   --close_overdue--------> finished (budget, max_seconds)

Every transition but open and claim is one compare-and-set UPDATE on the status it leaves, so two
processes can never both win (PostgreSQL row locks, SQLite's single writer); each says whether it won.
The review decisions' reviews rows are pipeline.ledger.reviews'; the statuses and verdicts are
pipeline.outcome's ``RunStatus`` and ``Verdict`` (``Run.status`` and ``Run.verdict`` are typed by them).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta, timezone
from enum import StrEnum

from sqlalchemy import ColumnElement, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from pipeline.ledger.models import Review, Run
from pipeline.outcome import ReviewAction, RunStatus, Verdict

HEARTBEATS_TO_DEAD = 3  # a run whose heartbeat is this many beats old has lost its worker


@dataclass(frozen=True)
class RunStamp:
    """The model, the tool-call mode and the versions of the prompt and the catalog a run is given.

    Built once per runtime (pipeline.runtime.Runtime.stamp) from its endpoint and catalog; written into the
    runs row by whoever opens the run (the runner) or takes it (a Celery worker)."""

    model: str
    tool_call_mode: str
    prompt_version: str
    catalog_version: str

    def columns(self) -> dict[str, str]:
        """The runs row's columns that hold the stamp, by name."""
        return asdict(self)


class Take(StrEnum):
    """What a worker may do with a tick's run."""

    RUN = "run"  # it was queued (or approved): this worker runs it
    RESUME = "resume"  # its worker died: this worker continues it
    HELD = "held"  # a live worker holds it: try again later
    DONE = "done"  # closed already, or waiting for an editor: nothing to do
    MISSING = "missing"  # no such run (another ledger?)


@dataclass(frozen=True)
class Owner:
    host: str | None
    pid: int | None


def me() -> Owner:
    return Owner(socket.gethostname(), os.getpid())


def now() -> datetime:
    return datetime.now(timezone.utc)


def aware(when: datetime) -> datetime:
    """A time read back from SQLite (naive) as the UTC time it is."""
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when


def status_after(verdict: Verdict) -> RunStatus:
    """The status a run closed with ``verdict`` takes: the verdict decides, nothing else."""
    return {Verdict.interrupted: RunStatus.interrupted,
            Verdict.awaiting_review: RunStatus.awaiting_review}.get(verdict, RunStatus.finished)


def _move(s: Session, run_ids: int | Iterable[int], leaving: RunStatus, *extra: ColumnElement[bool],
          **values: object) -> int:
    """The one compare-and-set: the runs among ``run_ids`` still ``leaving`` take ``values``; how many did."""
    which = Run.id == run_ids if isinstance(run_ids, int) else Run.id.in_(list(run_ids))
    return s.execute(update(Run).where(which, Run.status == leaving, *extra).values(**values)).rowcount


def _closing(verdict: Verdict, stop_reason: str | None, error: str | None) -> dict[str, object]:
    return dict(status=status_after(verdict), verdict=verdict, stop_reason=stop_reason,
                error=error, finished_at=now())


# -- opening ------------------------------------------------------------------------------------------------

def open_run(s: Session, *, trigger: str, scheduled_for: datetime | None = None, pipeline: str = "content",
             stamp: RunStamp | None = None, dry_run: bool = False, trace_id: str | None = None) -> int:
    """A run this process executes now: ``running``, owned by it. IntegrityError if the tick has a run."""
    run = Run(trigger=trigger, scheduled_for=scheduled_for, pipeline=pipeline, status=RunStatus.running,
              host=socket.gethostname(), pid=os.getpid(), dry_run=dry_run, trace_id=trace_id,
              **(stamp.columns() if stamp else {}))
    s.add(run)
    s.flush()
    return run.id


def claim_tick(sessions: sessionmaker[Session], *, pipeline: str, scheduled_for: datetime) -> int | None:
    """Open the tick's run as ``queued``; None when another scheduler (or an earlier life of this one) has it."""
    try:
        with sessions.begin() as s:
            run = Run(pipeline=pipeline, trigger="schedule", scheduled_for=scheduled_for, status=RunStatus.queued)
            s.add(run)
            s.flush()
            return run.id
    except IntegrityError:
        return None


def claim_ticks(sessions: sessionmaker[Session], ticks: Iterable[tuple[str, datetime]]) -> dict[tuple[str, datetime], int]:
    """Open a ``queued`` run for each (pipeline, scheduled_for) in one ``INSERT ... ON CONFLICT DO NOTHING
    RETURNING``; the run ids of the ticks this call claimed, by tick (a tick another scheduler has is absent).

    The rows go in sorted: two schedulers inserting the same ticks in opposite orders each wait for a row
    the other holds (a deadlock on PostgreSQL); in one order the second waits, then skips.

    A tick claimed before its time (the scheduler claims ahead: pipeline.workers.dispatch) starts at its time:
    ``started_at`` is never before ``scheduled_for``, so its lateness is never negative and the reconciler,
    which re-sends a queued run unsent for CELERY_RECONCILE_SECONDS after it started, never sends it early."""
    at_now = now()
    rows = [dict(pipeline=pipeline, trigger="schedule", scheduled_for=at, status=RunStatus.queued,
                 started_at=max(at_now, at)) for pipeline, at in sorted(set(ticks))]
    if not rows:
        return {}
    with sessions.begin() as s:
        insert = {"postgresql": pg_insert, "sqlite": sqlite_insert}[s.get_bind().dialect.name]
        statement = (insert(Run).on_conflict_do_nothing(index_elements=["pipeline", "scheduled_for"])
                     .returning(Run.id, Run.pipeline, Run.scheduled_for))
        claimed = s.execute(statement, rows).all()
    return {(pipeline, aware(at)): run_id for run_id, pipeline, at in claimed}


def mark_sent(s: Session, run_id: int | Iterable[int]) -> None:
    """The broker confirmed the task of the tick (or of each tick)."""
    which = Run.id == run_id if isinstance(run_id, int) else Run.id.in_(list(run_id))
    s.execute(update(Run).where(which).values(sent_at=now()))


# -- running ------------------------------------------------------------------------------------------------

def take(s: Session, run_id: int, heartbeat_seconds: float, stamp: RunStamp) -> tuple[Take, Owner | None]:
    """Decide and record, in one compare-and-set, whether this process runs ``run_id`` (and who had it)."""
    run = s.get(Run, run_id)
    if run is None:
        return Take.MISSING, None
    mine, at = me(), now()
    owner = dict(status=RunStatus.running, host=mine.host, pid=mine.pid, heartbeat_at=at)
    match run.status:
        case RunStatus.finished | RunStatus.interrupted | RunStatus.awaiting_review:  # awaiting: an editor's move
            return Take.DONE, None
        case RunStatus.queued:
            won = _move(s, run_id, RunStatus.queued, started_at=at, **owner, **stamp.columns())
            return (Take.RUN, None) if won else (Take.HELD, None)
        case RunStatus.approved:  # an editor approved it (pipeline.review): this worker publishes it
            return (Take.RUN, None) if _move(s, run_id, RunStatus.approved, **owner) else (Take.HELD, None)
    previous = Owner(run.host, run.pid)
    if previous == mine or not _dead(previous, run.heartbeat_at, heartbeat_seconds):
        return Take.HELD, previous
    won = _move(s, run_id, RunStatus.running, Run.host == run.host, Run.pid == run.pid, **owner, **stamp.columns())
    return (Take.RESUME, previous) if won else (Take.HELD, previous)


def beat(s: Session, run_ids: list[int]) -> None:
    """Refresh the heartbeat of the runs this process is executing."""
    if run_ids:
        _move(s, run_ids, RunStatus.running, heartbeat_at=now())


def finish(s: Session, run_id: int, *, verdict: Verdict, stop_reason: str | None, error: str | None) -> None:
    """Close the run with its verdict (the status follows from it: ``status_after``)."""
    s.execute(update(Run).where(Run.id == run_id).values(**_closing(verdict, stop_reason, error)))


# -- the editor's review ------------------------------------------------------------------------------------

def approve(s: Session, run_id: int, *, take: bool) -> bool:
    """awaiting_review -> approved; with ``take``, straight to running, owned by this process (the inline
    editor's command publishes it at once: no moment in which another process could take it for owed)."""
    if take:
        mine = me()
        return _move(s, run_id, RunStatus.awaiting_review, status=RunStatus.running, host=mine.host, pid=mine.pid,
                     heartbeat_at=now()) == 1
    return _move(s, run_id, RunStatus.awaiting_review, status=RunStatus.approved) == 1


def close_review(s: Session, run_id: int, *, verdict: Verdict, stop_reason: str, error: str) -> bool:
    """awaiting_review -> finished: rejected by an editor, or expired without a decision."""
    return _move(s, run_id, RunStatus.awaiting_review, **_closing(verdict, stop_reason, error)) == 1


def take_approved(s: Session, run_id: int) -> bool:
    """approved -> running, owned by this process: the one that publishes what the editor approved."""
    mine = me()
    return _move(s, run_id, RunStatus.approved, status=RunStatus.running, host=mine.host, pid=mine.pid,
                 heartbeat_at=now()) == 1


def give_back(s: Session, run_id: int) -> None:
    """running -> approved: the publish of an approval was interrupted here; it is still owed."""
    _move(s, run_id, RunStatus.running, status=RunStatus.approved)


# -- clean-ups ----------------------------------------------------------------------------------------------

def _approved() -> ColumnElement[bool]:
    """Runs an editor's accepted approval is on (their publish is owed, not interrupted)."""
    return Run.id.in_(select(Review.run_id).where(Review.action == ReviewAction.approve, Review.accepted.is_(True)))


def _dead_here(s: Session, *where: ColumnElement[bool]) -> list[int]:
    """``running`` runs of this host (not sent to Celery workers) whose process no longer exists."""
    rows = s.scalars(select(Run).where(Run.status == RunStatus.running, Run.host == socket.gethostname(),
                                       Run.sent_at.is_(None), *where))
    return [run.id for run in rows if run.pid is not None and run.pid != os.getpid() and not process_alive(run.pid)]


def interrupt_stale_runs(s: Session) -> list[int]:
    """Runs left `running` by a process on this host that no longer exists are marked interrupted.

    Runs of ticks sent to Celery workers (``sent_at`` set) are left alone: the broker hands their task
    to another worker, which continues the same run (pipeline.workers.worker). So are runs publishing what
    an editor approved: their publish is owed (``return_orphans``).
    """
    stale = _dead_here(s, ~_approved())
    if stale:
        _move(s, stale, RunStatus.running, **_closing(Verdict.interrupted, "process_died",
                                                      "the process running it died"))
    return stale


def return_orphans(s: Session) -> list[int]:
    """Runs taken to publish an approval whose process on this host died go back to ``approved``: still owed."""
    orphans = _dead_here(s, _approved())
    if orphans:
        _move(s, orphans, RunStatus.running, status=RunStatus.approved)
    return orphans


def interrupt_own_runs(s: Session, reason: str, error: str) -> list[int]:
    """This process's runs still `running` are closed as interrupted (a daemon that stops without them)."""
    own = list(s.scalars(select(Run.id).where(Run.status == RunStatus.running, Run.host == socket.gethostname(),
                                              Run.pid == os.getpid())))
    if own:
        _move(s, own, RunStatus.running, **_closing(Verdict.interrupted, reason, error))
    return own


def close_orphan(s: Session, run_id: int, reason: str) -> bool:
    """Close a queued run whose pipeline is no longer configured (compare-and-set on `queued`): whether it did."""
    return _move(s, run_id, RunStatus.queued, **_closing(Verdict.interrupted, "orphaned", reason[:500])) == 1


def close_overdue(s: Session, run_id: int) -> bool:
    """Close a run its worker still holds past its deadline (compare-and-set on `running`): whether it did."""
    return _move(s, run_id, RunStatus.running, **_closing(
        Verdict.budget, "max_seconds", "still in flight past RUN_MAX_SECONDS; closed by its worker's heartbeat")) == 1


def process_alive(pid: int) -> bool:
    """Whether a process of this machine with ``pid`` still exists (a signal-0 probe)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _dead(owner: Owner, heartbeat_at: datetime | None, heartbeat_seconds: float) -> bool:
    """The owner is gone: its pid no longer exists on this host, or its heartbeat stopped."""
    if owner.host == socket.gethostname() and owner.pid is not None and not process_alive(owner.pid):
        return True
    if heartbeat_at is None:
        return True
    return now() - aware(heartbeat_at) > timedelta(seconds=heartbeat_seconds * HEARTBEATS_TO_DEAD)
