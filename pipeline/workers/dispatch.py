"""The scheduler's side of EXECUTOR=celery: claim each due tick, send one task, re-send what got lost.

    tick(pipeline, fire time): claim the runs row (queued) -> send_task (confirmed by the broker) -> sent_at
    claim_ahead(ticks of a moment), a few seconds before it: claim their rows (one INSERT), kept in memory
    tick_many(ticks of a moment), at its time: claim those not claimed ahead (one INSERT) -> publish every task
      on one connection (pipeline.workers.publish) -> sent_at of each run as its task is confirmed, a few at a time
    reconcile(), at start and every CELERY_RECONCILE_SECONDS:
      - claim and send the ticks of the last SCHEDULE_MISFIRE_GRACE_SECONDS that have no run, from the
        pipeline's first tick on, as its SCHEDULE_CATCH_UP says (``ticks_to_catch_up``): ticks that fell
        while no scheduler ran, or whose job APScheduler skipped (busy or late); with ``all`` (the default)
        each is its own run (not coalesced: a tick is queued work, and the workers absorb it at their pace).
        A pipeline that never ticked catches nothing up.
      - re-send runs claimed but never confirmed sent (the scheduler died between claim and send, or
        the broker was down), runs whose worker stopped beating (a task lost with its worker), and, when
        no task waits on the queue, runs sent but still not taken (a task delivered to a worker killed
        before it took the run, which Redis would hold for visibility_timeout): ``to_resend``

A re-send never makes a second run: a tick has one runs row (unique), the task of a closed run is a
no-op, and a run held by a live worker is left to it (pipeline.workers.ticks).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from apscheduler.triggers.cron import CronTrigger
from celery import Celery
from kombu.exceptions import ChannelError
from loguru import logger
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from config import Settings
from config.deployment import Execution
from config.cron import tick_time
from pipeline.ledger.models import Run
from pipeline.workers.app import TASK
from pipeline.workers.publish import publish_confirmed
from pipeline.ledger.runs import aware, claim_tick, claim_ticks, mark_sent, now
from pipeline.workers.ticks import to_resend

SETTLE_SECONDS = 2.0  # a tick younger than this is left to its own job
AHEAD_KEPT_SECONDS = 600  # a tick claimed ahead whose job never came (APScheduler skipped it) is forgotten
# this long after its time; the reconciler has sent it long before


@dataclass(frozen=True)
class Schedule:
    """What the reconciler needs of one pipeline."""

    pipeline: str
    trigger: CronTrigger
    grace_seconds: float
    catch_up: str = "all"  # SCHEDULE_CATCH_UP: all | latest | none


class TickSender:
    """``stop`` (the daemon's SIGTERM) ends a reconcile pass before its next batch: a pass that catches up a
    long outage claims and sends hundreds of ticks, and a stop must not wait for that. What it leaves is the
    next pass's work (a tick claimed but not sent is re-sent, one not claimed is caught up)."""

    def __init__(self, sessions: sessionmaker[Session], app: Celery, queue: str, schedules: list[Schedule], *,
                 reconcile_seconds: float, heartbeat_seconds: float, stop: threading.Event | None = None) -> None:
        self.sessions, self.app, self.queue, self.schedules = sessions, app, queue, schedules
        self.reconcile_seconds, self.heartbeat_seconds = reconcile_seconds, heartbeat_seconds
        self.stop = stop or threading.Event()
        self._ahead: dict[tuple[str, datetime], int] = {}  # ticks claimed ahead of their time, not sent yet
        self._ahead_lock = threading.Lock()  # held while claiming ahead: the tick waits for a claim in flight

    def tick(self, pipeline: str, scheduled_for: datetime) -> int | None:
        """Claim and send one tick; None if it was claimed elsewhere."""
        run_id = claim_tick(self.sessions, pipeline=pipeline, scheduled_for=scheduled_for)
        if run_id is None:
            return None
        self.send(run_id)
        return run_id

    def tick_many(self, ticks: Sequence[tuple[str, datetime]]) -> dict[tuple[str, datetime], int]:
        """Claim the ticks in one INSERT, publish their tasks on one connection (``publish_confirmed``) and mark
        each run sent as the broker confirms its task, a few at a time (the unconfirmed ones are the
        reconciler's); logged ``tick.sent`` with each phase's seconds. The run ids of the ticks claimed here,
        by tick."""
        began = time.monotonic()
        late = (now() - min(at for _, at in ticks)).total_seconds() if ticks else 0.0
        with self._ahead_lock:  # a claim ahead in flight first: its ticks would be claimed elsewhere to this one
            ahead = {tick: self._ahead.pop(tick) for tick in ticks if tick in self._ahead}
            claimed = {**ahead, **claim_ticks(self.sessions, [tick for tick in ticks if tick not in ahead])}
        claimed_at = time.monotonic()
        if ticks and not self._until(max(at for _, at in ticks)):
            return claimed  # stopped before the ticks' time: the reconciler sends them after it
        with SentMarker(self.sessions) as marker:
            sent = publish_confirmed(self.app, self.queue, sorted(claimed.values()), marker.add)
            published_at = time.monotonic()
        logger.info("tick.sent", ticks=len(ticks), claimed=len(claimed), ahead=len(ahead), sent=len(sent),
                    failed=len(claimed) - len(sent), late_s=round(late, 3), claim_s=round(claimed_at - began, 3),
                    send_s=round(published_at - claimed_at, 3), mark_s=round(marker.seconds, 3),
                    marks=marker.updates, last_mark_s=round(time.monotonic() - published_at, 3))
        return claimed

    def claim_ahead(self, ticks: Sequence[tuple[str, datetime]]) -> None:
        """Claim ticks before their time (one INSERT), so that ``tick_many`` only publishes them when it comes.

        Why: at 1,000 ticks of one moment the INSERT took 0.6 s (median; 1.65 s at most) at load 11-20, and a
        tick's lateness is measured to its confirmed send. A tick claimed ahead is a queued run with no task,
        exactly what a scheduler that dies between claim and send leaves: if this process does not send it,
        the reconciler does, after its time (``claim_ticks``)."""
        began = time.monotonic()
        with self._ahead_lock:
            stale = now() - timedelta(seconds=AHEAD_KEPT_SECONDS)
            self._ahead = {tick: run_id for tick, run_id in self._ahead.items() if tick[1] > stale}
            claimed = claim_ticks(self.sessions, ticks)
            self._ahead.update(claimed)
        logger.info("tick.claimed_ahead", ticks=len(ticks), claimed=len(claimed),
                    scheduled_for=min(at for _, at in ticks).isoformat() if ticks else None,
                    claim_s=round(time.monotonic() - began, 3))

    def _until(self, at: datetime) -> bool:
        """Wait until ``at`` (a task is never sent before its tick's time); False if stopped meanwhile."""
        early = (at - now()).total_seconds()
        return early <= 0 or not self.stop.wait(early)

    def _send_task(self, run_id: int) -> bool:
        """Publish the task of ``run_id``; False (logged, left for the reconciler) when the broker did not take it."""
        try:
            self.app.send_task(TASK, args=[run_id], queue=self.queue, retry=True)
        except Exception as exc:  # kombu raises OperationalError and socket errors alike when the broker is down
            logger.warning("tick.send_failed", run_id=run_id, error=f"{type(exc).__name__}: {exc}")
            return False
        return True

    def send(self, run_id: int) -> bool:
        """One task for ``run_id``, marked sent once the broker confirmed it; False when it did not."""
        if not self._send_task(run_id):
            return False
        with self.sessions.begin() as s:
            mark_sent(s, run_id)
        return True

    def reconcile(self) -> list[int]:
        """Claim missed ticks and re-send every tick whose task may be nowhere; the run ids sent."""
        caught_up = self._fill_gaps()
        drained = self.waiting() == 0
        with self.sessions() as s:
            lost = to_resend(s, older_than=self.reconcile_seconds, heartbeat_seconds=self.heartbeat_seconds,
                             queue_drained=drained)
        resent = [run_id for run_id in lost if not self.stop.is_set() and self.send(run_id)]
        if lost:
            logger.warning("tick.resent", run_ids=resent, failed=sorted(set(lost) - set(resent)))
        return caught_up + resent

    def waiting(self) -> int | None:
        """Tasks on the queue not yet delivered to a worker (a queue that does not exist holds none); None when
        the broker does not answer."""
        try:
            with self.app.connection_for_write() as conn:
                conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=5)
                return conn.default_channel.queue_declare(queue=self.queue, passive=True).message_count
        except ChannelError as exc:  # RabbitMQ's NotFound, kombu's virtual transports' ChannelError('404')
            if str(exc.reply_code) == "404":
                return 0
            logger.warning("tick.queue_unreadable", queue=self.queue, error=f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # kombu raises OperationalError and socket errors alike when the broker is down
            logger.warning("tick.queue_unreadable", queue=self.queue, error=f"{type(exc).__name__}: {exc}")
        return None

    def _fill_gaps(self) -> list[int]:
        """Claim and send, in one batch, the ticks without a run that each pipeline's catch-up policy keeps
        (``tick_gaps``: one pass over the ledger for every pipeline)."""
        if self.stop.is_set() or not self.schedules:
            return []
        with self.sessions() as s:
            due = tick_gaps(s, self.schedules)
        ticks = [(pipeline, at) for pipeline, times in due.items() for at in times]
        if not ticks or self.stop.is_set():
            return []
        claimed = self.tick_many(ticks)
        for pipeline in sorted({pipeline for pipeline, _ in claimed}):
            logger.warning("tick.caught_up", pipeline=pipeline,
                           run_ids=sorted(run_id for (p, _), run_id in claimed.items() if p == pipeline))
        return sorted(claimed.values())


class SentMarker:
    """Marks runs sent on a thread of its own, as their confirms arrive: each UPDATE takes every run confirmed
    since the one before, so a run waits for at most one commit in flight, and the publishing thread waits for
    none. Why a thread: marking 50 runs at a time on the publishing thread took 0.15-0.4 s of the 1,000 ticks' send
    (20 commits, each waiting for PostgreSQL's fsync) at load 6-7 (a scratch script)."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions
        self.seconds, self.updates = 0.0, 0
        self._confirmed: queue.SimpleQueue[list[int] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="tick-mark", daemon=True)

    def add(self, run_ids: list[int]) -> None:
        """Runs whose task the broker confirmed."""
        self._confirmed.put(run_ids)

    def _run(self) -> None:
        done = False
        while not done:
            run_ids: list[int] = []
            batch: list[int] | None = self._confirmed.get()
            while batch is not None:
                run_ids.extend(batch)
                try:
                    batch = self._confirmed.get_nowait()
                except queue.Empty:
                    break
            done = batch is None
            if run_ids:
                started = time.monotonic()
                try:
                    with self.sessions.begin() as s:
                        mark_sent(s, run_ids)
                except Exception as exc:  # the ledger is away: the reconciler re-sends these runs (never lost)
                    logger.error("tick.mark_failed", run_ids=run_ids, error=f"{type(exc).__name__}: {exc}")
                self.seconds += time.monotonic() - started
                self.updates += 1

    def __enter__(self) -> SentMarker:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Waits for the last UPDATE."""
        self._confirmed.put(None)
        self._thread.join()


def ticks_to_catch_up(s: Session, schedule: Schedule) -> list[datetime]:
    """``tick_gaps`` of one pipeline."""
    return tick_gaps(s, [schedule]).get(schedule.pipeline, [])


def tick_gaps(s: Session, schedules: Sequence[Schedule]) -> dict[str, list[datetime]]:
    """Per pipeline, the fire times without a run, within the grace time and from the pipeline's first tick
    on, that SCHEDULE_CATCH_UP keeps: ``all`` each of them (each its own run), ``latest`` only the most recent
    one after the pipeline's latest tick, ``none`` nothing. A pipeline that never ticked catches nothing up;
    what is left out is logged ``tick.missed`` (with how many) once, when it is decided. Two queries for all
    the pipelines, and each distinct schedule's fire times computed once."""
    wanted = [schedule for schedule in schedules if schedule.catch_up != "none"]
    if not wanted:
        return {}
    until = now() - timedelta(seconds=SETTLE_SECONDS)
    oldest = until - timedelta(seconds=max(schedule.grace_seconds for schedule in wanted))
    names = [schedule.pipeline for schedule in wanted]
    bounds = {pipeline: (aware(first), aware(last)) for pipeline, first, last in s.execute(
        select(Run.pipeline, func.min(Run.scheduled_for), func.max(Run.scheduled_for))
        .where(Run.pipeline.in_(names), Run.trigger == "schedule", Run.scheduled_for <= until)  # not claimed ahead
        .group_by(Run.pipeline)) if first is not None}
    have = {(pipeline, aware(at)) for pipeline, at in s.execute(
        select(Run.pipeline, Run.scheduled_for).where(Run.pipeline.in_(names), Run.scheduled_for > oldest))}
    fire_times: dict[tuple[str, str, float], list[datetime]] = {}
    due = {}
    for schedule in wanted:
        if schedule.pipeline not in bounds:
            continue  # a pipeline that never ticked has nothing to catch up
        first, last = bounds[schedule.pipeline]
        key = (str(schedule.trigger), str(schedule.trigger.timezone), schedule.grace_seconds)
        if key not in fire_times:
            fire_times[key] = missed_fire_times(schedule.trigger, until - timedelta(seconds=schedule.grace_seconds),
                                                until)
        since = last if schedule.catch_up == "latest" else first  # gaps before the latest tick were decided then
        missing = [t for t in fire_times[key] if t > since and (schedule.pipeline, t) not in have]
        if schedule.catch_up == "latest" and len(missing) > 1:
            logger.warning("tick.missed", pipeline=schedule.pipeline, count=len(missing) - 1, policy="latest",
                           scheduled_for=[t.isoformat() for t in missing[:-1]])
            missing = missing[-1:]
        if missing:
            due[schedule.pipeline] = missing
    return due


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
