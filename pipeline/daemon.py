"""The daemon: APScheduler 3 fires each pipeline's ticks; each tick is claimed in the ledger, then run.

    start: check every pipeline's SCHEDULE_CRON / REPORT_CRON / SCHEDULE_TIMEZONE (parsed once)
           -> the executor EXECUTOR names (pipeline.executors: inline opens the runtimes, celery checks the broker)
           -> mark dead runs interrupted -> /metrics + /healthz (+ the dashboard when WEB_PORT is not 0)
           -> scheduler (in-memory job store, one report job per pipeline, one tick job per pipeline or, when
              the executor groups_ticks, per distinct schedule; coalesce, max_instances=1), plus the executor's
              catch-up jobs (inline) or reconcile job (celery)
    tick(pipeline, fire time): the executor claims (pipeline, fire time in UTC) by opening the runs row, then
           inline: run_once -> metrics, alert; celery: send the task (pipeline.workers.dispatch)
    tick_together(pipelines, fire time), when the executor groups_ticks (celery): one job per distinct
           schedule; the executor claims the moment's ticks in one INSERT and sends them together
    claim_ahead(pipelines, fire time), when the executor has claim_ahead_seconds (celery): a job per distinct
           schedule that fires that long before each moment (``Ahead``); the executor claims the moment's ticks
           then, and tick_together finds them claimed and only sends them
           a replica that loses the claim skips the tick and logs it
    report(pipeline, fire time): log the day's report; alert when nothing was published online that day
    prune(fire time), when PRUNE_AFTER_DAYS is set: clear the bulky texts of older runs (pipeline.ledger.prune),
           archived first to PRUNE_ARCHIVE_DIR/prune-<UTC date>.jsonl when that is set
    alerts: queued to pipeline.webhook's own thread (one deadline per POST), never sent from a job's thread
    SIGTERM/SIGINT: no new run starts; an inline run in flight is cut off where it waits (every HTTP request
                    of the run ends at its next chunk: pipeline.http) and closed as `interrupted`; jobs get
                    STOP_GRACE_SECONDS to end, after which the runs still open in this process are closed as
                    `interrupted` (stop reason `shutdown`) and the process exits 1 without waiting for them;
                    alerts in flight get ALERT_GRACE_SECONDS, then are cancelled

Several replicas may share one PostgreSQL ledger: the unique constraint on the tick is the only
coordination, so the fire time must be the same everywhere (the trigger's, never "now").
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, EVENT_JOB_MISSED, JobExecutionEvent, JobSubmissionEvent
from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.job import Job
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from loguru import logger
from sqlalchemy.orm import Session, sessionmaker

from config import ConfigError, Deployment, Settings
from config.cron import cron_trigger, tick_time, time_zone
from pipeline.alerts import Alert, no_publication_alert, review_alert, run_alert
from pipeline.executors import ClaimedElsewhere, Crashed, Executor, Queued, Ran, Ticked, open_executor
from pipeline.ledger.daily import day_ledger, last_publication_time
from pipeline.ledger.detail import run_detail
from pipeline.ledger.prune import prune
from pipeline.ledger.runs import interrupt_own_runs, interrupt_stale_runs
from pipeline.metrics import Metrics, MetricsServer
from pipeline.outcome import one_line
from pipeline.report import format_day
from pipeline.stopping import on_stop_signals, wait_for_stop
from pipeline.web import WebServer, build_app, check_exposure
from pipeline.webhook import WebhookSender
from pipeline.workers.dispatch import Schedule


ALERT_GRACE_SECONDS = 2.0
STOP_GRACE_SECONDS = 15.0
JOB_GRACE_SECONDS = 300  # a deployment job (prune, catch-up, reconcile) still runs this late; a pipeline's own jobs
# (tick, report) take its SCHEDULE_MISFIRE_GRACE_SECONDS
FIRE_TIME = object()
"""Job argument placeholder that TickExecutor replaces with the job's scheduled fire time."""


class _FiredJob:
    """A job as the executor runs it, with FIRE_TIME in its arguments replaced by the fire time."""

    def __init__(self, job: Job, fire_time: datetime) -> None:
        self._job, self.fire_time = job, fire_time

    def __getattr__(self, name: str) -> Any:
        return getattr(self._job, name)

    @property
    def args(self) -> tuple[Any, ...]:
        return tuple(self.fire_time if arg is FIRE_TIME else arg for arg in self._job.args)

    def __str__(self) -> str:
        return f"{self._job.name} (fire time {self.fire_time.isoformat()})"


class TickExecutor(ThreadPoolExecutor):
    """A thread pool that passes each job the fire time it was scheduled for (APScheduler 3 does not)."""

    def _do_submit_job(self, job: Job, run_times: list[datetime]) -> None:
        super()._do_submit_job(_FiredJob(job, run_times[-1]), run_times[-1:])


class Ahead(BaseTrigger):
    """Fires ``seconds`` before each fire time of ``trigger`` (the executor's claim ahead of a moment). The
    arithmetic is in UTC: a local time minus a few seconds can fall in a DST gap."""

    def __init__(self, trigger: BaseTrigger, seconds: float) -> None:
        self.trigger, self.lead = trigger, timedelta(seconds=seconds)

    def get_next_fire_time(self, previous_fire_time: datetime | None, now: datetime) -> datetime | None:
        previous = None if previous_fire_time is None else previous_fire_time.astimezone(UTC) + self.lead
        fire = self.trigger.get_next_fire_time(previous, now.astimezone(UTC) + self.lead)
        return None if fire is None else fire.astimezone(UTC) - self.lead

    def __str__(self) -> str:
        return f"{self.lead.total_seconds():g} s before {self.trigger}"


class Daemon:
    """The jobs of one daemon process over all its pipelines; ``stop`` is set by SIGTERM/SIGINT.

    What happens to a tick is its executor's (pipeline.executors); the daemon counts it, alerts, reports."""

    def __init__(self, pipelines: Sequence[Settings], executor: Executor, metrics: Metrics,
                 stop: threading.Event, alerts: dict[str, WebhookSender] | None = None) -> None:
        self.pipelines = {p.pipeline: p for p in pipelines}
        self.executor, self.sessions = executor, executor.sessions
        self.metrics, self.stop, self.alerts = metrics, stop, alerts or {}
        self.in_flight = 0
        self.idle = threading.Condition()

    @contextmanager
    def job(self) -> Iterator[None]:
        """Counts the jobs running now, so that a stop can wait for them (``wait_idle``)."""
        with self.idle:
            self.in_flight += 1
        try:
            yield
        finally:
            with self.idle:
                self.in_flight -= 1
                self.idle.notify_all()

    def wait_idle(self, seconds: float) -> bool:
        with self.idle:
            return self.idle.wait_for(lambda: self.in_flight == 0, timeout=seconds)

    def tick(self, pipeline: str, fire_time: datetime) -> None:
        """Hand the tick to the executor (which claims it in the ledger), then count what became of it."""
        scheduled_for = tick_time(fire_time)
        if self.stop.is_set():
            return
        with self.job(), logger.contextualize(pipeline=pipeline):
            self._count(pipeline, scheduled_for, self.executor.tick(pipeline, scheduled_for))

    def tick_together(self, pipelines: tuple[str, ...], fire_time: datetime) -> None:
        """The ticks of the pipelines sharing one schedule, handed to the executor at once (``groups_ticks``)."""
        scheduled_for = tick_time(fire_time)
        if self.stop.is_set():
            return
        with self.job():
            for pipeline, ticked in self.executor.tick_many(pipelines, scheduled_for).items():
                with logger.contextualize(pipeline=pipeline):
                    self._count(pipeline, scheduled_for, ticked)

    def claim_ahead(self, pipelines: tuple[str, ...], seconds: float, fire_time: datetime) -> None:
        """Let the executor claim the ticks of the moment ``seconds`` after ``fire_time`` (``claim_ahead_seconds``)."""
        if self.stop.is_set():
            return
        with self.job():
            try:
                self.executor.claim_ahead(pipelines, tick_time(fire_time + timedelta(seconds=seconds)))
            except Exception as exc:  # the ledger is away: the tick's own job claims them at their time
                logger.error("tick.claim_ahead_failed", error=one_line(exc))

    def _count(self, pipeline: str, scheduled_for: datetime, ticked: Ticked) -> None:
        match ticked:
            case Ran(run_id, seconds):
                self.metrics.ticks.labels(pipeline, "run").inc()
                self.after_run(run_id, seconds)
            case Queued():
                self.metrics.ticks.labels(pipeline, "queued").inc()
            case ClaimedElsewhere(reason):
                self.metrics.ticks.labels(pipeline, "claimed_elsewhere").inc()
                logger.info("tick.skipped", scheduled_for=scheduled_for.isoformat(), reason=reason)
            case Crashed(error):
                logger.error("tick.crashed", scheduled_for=scheduled_for.isoformat(), error=error)

    def catch_up(self, pipeline: str, fire_times: list[datetime]) -> None:
        """Run the ticks missed while no scheduler ran, one after the other, until a stop."""
        logger.warning("tick.caught_up", pipeline=pipeline, scheduled_for=[t.isoformat() for t in fire_times])
        for fire_time in fire_times:
            if self.stop.is_set():
                return
            self.tick(pipeline, fire_time)

    def after_run(self, run_id: int, seconds: float) -> None:
        """Count the run from its ledger rows and alert if its verdict calls for it."""
        with self.sessions() as s:
            detail = run_detail(s, run_id)
            pipeline = detail.pipeline if detail else "content"
            published = last_publication_time(s, pipeline)
        assert detail is not None
        self.metrics.observe_run(detail, seconds)
        self.metrics.published_at(pipeline, published)
        self._alert(pipeline, run_alert(detail))

    def reconcile(self) -> None:
        """The executor's periodic pass, then count the runs it says ended elsewhere."""
        try:
            with self.job():
                finished = self.executor.reconcile()
        except Exception as exc:  # the broker or the ledger is away: the next pass tries again
            logger.error("reconcile.failed", error=one_line(exc))
            logger.opt(exception=exc).debug("reconcile.failed.traceback")
            return
        for run in finished:
            self.after_run(run.run_id, run.seconds)

    def daily_report(self, pipeline: str, fire_time: datetime) -> None:
        """Log the report of the day the report tick falls on (in the pipeline's SCHEDULE_TIMEZONE)."""
        tz = time_zone(self.pipelines[pipeline].schedule_timezone)
        day = fire_time.astimezone(tz).date()
        with self.sessions() as s:
            ledger = day_ledger(s, day, tz, pipeline)
        logger.info("report.daily", pipeline=pipeline, day=day.isoformat(), report=format_day(ledger))
        self._alert(pipeline, no_publication_alert(ledger))
        self._alert(pipeline, review_alert(ledger, datetime.now(UTC)))

    def prune(self, days: int, archive_dir: Path | None, fire_time: datetime) -> None:
        """Clear the bulky texts of runs started more than ``days`` days before the fire time (PRUNE_AFTER_DAYS;
        pipeline.ledger.prune), batch by batch, first appending them to ``archive_dir``/prune-<UTC date>.jsonl
        (PRUNE_ARCHIVE_DIR) when set; a stop ends it after the batch in hand."""
        before = fire_time - timedelta(days=days)
        archive = None if archive_dir is None else archive_dir / f"prune-{fire_time.astimezone(UTC):%Y-%m-%d}.jsonl"
        logger.info("prune.started", before=before.isoformat(), archive=str(archive) if archive else None)
        with self.job():
            try:
                if archive is not None:
                    archive.parent.mkdir(parents=True, exist_ok=True)
                done = prune(self.sessions, before, archive, stop=self.stop)
            except Exception as exc:  # the ledger or the archive's disk is away: the next PRUNE_CRON tries again
                logger.error("prune.failed", error=one_line(exc))
                logger.opt(exception=exc).debug("prune.failed.traceback")
                return
        logger.info("prune.finished", before=before.isoformat(), runs=done.runs, texts=done.texts,
                    archived=done.archived)

    def _alert(self, pipeline: str, alert: Alert | None) -> None:
        """Queue the alert on the pipeline's webhook (its own thread sends it; this thread never waits)."""
        if alert is not None and (sender := self.alerts.get(pipeline)) is not None:
            sender.submit(alert.key, alert.body)


@dataclass(frozen=True)
class Triggers:
    """One pipeline's schedule, parsed once: what the executor catches up with, and its report trigger."""

    schedule: Schedule
    report: CronTrigger


def check_schedules(pipelines: Sequence[Settings]) -> dict[str, Triggers]:
    """Each pipeline's triggers; a ConfigError naming the pipeline and setting if one is bad."""
    triggers = {}
    for p in pipelines:
        suffix = "" if len(pipelines) == 1 else f" (pipeline {p.pipeline!r})"
        try:
            tz = time_zone(p.schedule_timezone)
            tick = cron_trigger(p.schedule_cron, tz, "SCHEDULE_CRON")
            report = cron_trigger(p.report_cron, tz, "REPORT_CRON")
        except ConfigError as exc:
            raise ConfigError(f"{exc}{suffix}") from None
        triggers[p.pipeline] = Triggers(Schedule(p.pipeline, tick, p.schedule_misfire_grace_seconds,
                                                 p.schedule_catch_up), report)
    return triggers


def run_daemon(deployment: Deployment, pipelines: Sequence[Settings], announce: Callable[[str], None] = print) -> int:
    """Run until SIGTERM/SIGINT; 0 after a clean stop. Bad schedules raise ConfigError before anything starts."""
    triggers = check_schedules(pipelines)
    if deployment.web.port:
        check_exposure(deployment.web.host, deployment.web)
    stop = threading.Event()
    on_stop_signals(stop, before=lambda signum: logger.warning("daemon.signal", signal=signum.name))
    with ExitStack() as stack:
        executor = stack.enter_context(open_executor(deployment, pipelines, [t.schedule for t in triggers.values()],
                                                     stop))
        metrics = _metrics(executor, pipelines)
        alerts = {p.pipeline: WebhookSender(p.alert_webhook_url, p.alert_deadline_seconds, p.http_trust_env)
                  for p in pipelines if p.alert_webhook_url is not None}
        for sender in alerts.values():
            stack.callback(sender.close, grace=ALERT_GRACE_SECONDS)
        daemon = Daemon(pipelines, executor, metrics, stop, alerts)
        healthy = threading.Event()
        _serve(stack, deployment, pipelines[0], executor, metrics, healthy, announce)
        scheduler = _scheduler(deployment, daemon, triggers)
        scheduler.start()
        healthy.set()
        logger.info("daemon.started", executor=executor.name, pipelines=[p.pipeline for p in pipelines],
                    next_ticks=_next_ticks(scheduler))
        wait_for_stop(stop)
        healthy.clear()
        logger.info("daemon.stopping")
        scheduler.shutdown(wait=False)
        if not daemon.wait_idle(STOP_GRACE_SECONDS):
            _abandon(executor.sessions)
    logger.info("daemon.stopped")
    return 0


def _metrics(executor: Executor, pipelines: Sequence[Settings]) -> Metrics:
    """Close the runs dead processes left open, then the metrics with each pipeline's last publication."""
    with executor.sessions.begin() as s:
        if stale := interrupt_stale_runs(s):
            logger.warning("daemon.interrupted_stale_runs", run_ids=stale)
        published = {p.pipeline: last_publication_time(s, p.pipeline) for p in pipelines}
    metrics = Metrics()
    if executor.tracing is not None:
        metrics.watch_spans(executor.tracing)
    for name, when in published.items():
        metrics.published_at(name, when)
    return metrics


def _serve(stack: ExitStack, deployment: Deployment, first: Settings, executor: Executor, metrics: Metrics,
           healthy: threading.Event, announce: Callable[[str], None]) -> None:
    """/metrics and /healthz, the dashboard when WEB_PORT is not 0, and say where the local site is.

    The dashboard shows times in the first pipeline's SCHEDULE_TIMEZONE (a pipeline's choice, not the deployment's:
    one dashboard over several pipelines in different zones would need its own setting)."""
    server = stack.enter_context(MetricsServer(metrics, deployment.metrics.host, deployment.metrics.port, healthy))
    announce(f"factline daemon: metrics at {server.url}/metrics, health at {server.url}/healthz")
    web = deployment.web
    if web.port:
        dashboard = stack.enter_context(WebServer(build_app(deployment, first, executor.sessions), web.host, web.port))
        announce(f"factline daemon: dashboard at {dashboard.url}/")
    for site in executor.sites:
        if site.serving:
            announce(f"factline daemon: local site at {site.base_url} ({site.site_dir})")


def _abandon(sessions: sessionmaker[Session]) -> None:
    """Jobs still running after STOP_GRACE_SECONDS: close this process's open runs and exit without them."""
    with sessions.begin() as s:
        closed = interrupt_own_runs(s, "shutdown", f"the daemon stopped; the run did not end within "
                                                   f"{STOP_GRACE_SECONDS:g} s")
    logger.error("daemon.abandoned_runs", run_ids=closed, grace_s=STOP_GRACE_SECONDS)
    logging.shutdown()
    os._exit(1)  # the scheduler's threads are not daemon threads: a normal exit would wait for them


def _scheduler(deployment: Deployment, daemon: Daemon, triggers: dict[str, Triggers]) -> BackgroundScheduler:
    """The tick jobs (one per pipeline, or one per distinct schedule when the executor ``groups_ticks``, with
    its claim-ahead job when the executor has ``claim_ahead_seconds``), each
    pipeline's report job, the executor's catch-up (at once) and reconcile (at once, then every interval)
    jobs, and the prune at PRUNE_CRON when PRUNE_AFTER_DAYS is set."""
    logging.getLogger("apscheduler").setLevel(logging.ERROR)  # its events are logged below, through loguru
    groups = _tick_groups(triggers) if daemon.executor.groups_ticks else [(name,) for name in triggers]
    jobs_per_group = 1 if daemon.executor.claim_ahead_seconds is None else 2
    scheduler = BackgroundScheduler(  # a thread per tick job (one tick at once each), reports, reconcile, prune
        executors={"default": TickExecutor(max_workers=jobs_per_group * len(groups) + 3)}, timezone="UTC",
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": JOB_GRACE_SECONDS})
    scheduler.add_listener(_log_skipped, EVENT_JOB_MISSED | EVENT_JOB_MAX_INSTANCES)
    for number, names in enumerate(groups):
        schedule = triggers[names[0]].schedule
        if daemon.executor.groups_ticks:
            scheduler.add_job(daemon.tick_together, schedule.trigger, args=[names, FIRE_TIME], id=f"ticks:{number}",
                              name=f"ticks of {len(names)} pipeline(s)", misfire_grace_time=schedule.grace_seconds)
            if (ahead := daemon.executor.claim_ahead_seconds) is not None:  # pointless once the moment has come
                scheduler.add_job(daemon.claim_ahead, Ahead(schedule.trigger, ahead), args=[names, ahead, FIRE_TIME],
                                  id=f"claim-ahead:{number}", name=f"claim ahead the ticks of {len(names)} pipeline(s)",
                                  misfire_grace_time=max(1, int(ahead)))
        else:
            scheduler.add_job(daemon.tick, schedule.trigger, args=[names[0], FIRE_TIME], id=f"tick:{names[0]}",
                              name=f"{names[0]} tick", misfire_grace_time=schedule.grace_seconds)
    for name, t in triggers.items():
        scheduler.add_job(daemon.daily_report, t.report, args=[name, FIRE_TIME], id=f"report:{name}",
                          name=f"{name} daily report", misfire_grace_time=t.schedule.grace_seconds)
    prune = deployment.prune
    if prune.after_days:
        scheduler.add_job(daemon.prune, cron_trigger(prune.cron, time_zone("UTC"), "PRUNE_CRON"),
                          args=[prune.after_days, prune.archive_dir, FIRE_TIME], id="prune",
                          name="prune old runs' texts")
    executor = daemon.executor
    for name, times in executor.missed_ticks().items():
        scheduler.add_job(daemon.catch_up, args=[name, times], id=f"catch-up:{name}", name=f"{name} catch-up",
                          next_run_time=datetime.now(UTC))
    if executor.reconcile_seconds is not None:
        scheduler.add_job(daemon.reconcile, IntervalTrigger(seconds=executor.reconcile_seconds),
                          id="reconcile", name="reconcile lost ticks", next_run_time=datetime.now(UTC))
    return scheduler


def _tick_groups(triggers: dict[str, Triggers]) -> list[tuple[str, ...]]:
    """The pipelines by distinct schedule (cron, time zone, misfire grace): each group ticks at the same moments."""
    groups: dict[tuple[str, str, float], list[str]] = {}
    for name, t in triggers.items():
        trigger = t.schedule.trigger
        groups.setdefault((str(trigger), str(trigger.timezone), t.schedule.grace_seconds), []).append(name)
    return [tuple(names) for names in groups.values()]


def _next_ticks(scheduler: BackgroundScheduler) -> dict[str, str]:
    """Each pipeline's next tick, from its tick job or its group's."""
    return {name: str(job.next_run_time) for job in scheduler.get_jobs() if job.id.startswith("tick")
            for name in (job.args[0] if isinstance(job.args[0], tuple) else (job.args[0],))}


def _log_skipped(event: JobExecutionEvent | JobSubmissionEvent) -> None:
    if event.code == EVENT_JOB_MISSED:
        logger.warning("tick.missed", job=event.job_id, scheduled_for=str(event.scheduled_run_time))
    else:
        logger.warning("tick.busy", job=event.job_id, scheduled_for=str(event.scheduled_run_times[-1]),
                       reason="the previous run of this job is still going")
