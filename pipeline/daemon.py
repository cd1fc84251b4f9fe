"""The daemon: APScheduler 3 fires ticks; each tick is claimed in the ledger, then run like `factline run`.

    start: check SCHEDULE_CRON / REPORT_CRON / SCHEDULE_TIMEZONE -> open runtime -> mark dead runs interrupted
           -> /metrics + /healthz (+ the dashboard when WEB_PORT is not 0)
           -> scheduler (in-memory job store, coalesce, max_instances=1)
    tick(fire time): claim (pipeline, fire time in UTC) by opening the runs row -> run_once -> metrics, alert
                     a replica that loses the claim (TickAlreadyClaimed) skips the tick and logs it
    report(fire time): log the day's report; alert when nothing was published online that day
    alerts: queued to pipeline.webhook's own thread (one deadline per POST), never sent from a job's thread
    SIGTERM/SIGINT: no new run starts; the run in flight stops before its next step as `interrupted`;
                    alerts in flight get ALERT_GRACE_SECONDS, then are cancelled

Several replicas may share one PostgreSQL ledger: the unique constraint on the tick is the only
coordination, so the fire time must be the same everywhere (the trigger's, never "now").
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from contextlib import ExitStack
from datetime import datetime
from types import FrameType
from typing import Any

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, EVENT_JOB_MISSED, JobExecutionEvent, JobSubmissionEvent
from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.job import Job
from apscheduler.schedulers.background import BackgroundScheduler
from loguru import logger

from config import Settings
from pipeline.alerts import Alert, no_publication_alert, run_alert
from config.cron import cron_trigger, tick_time, time_zone
from pipeline.ledger.daily import day_ledger, last_publication_time
from pipeline.ledger.detail import run_detail
from pipeline.ledger.journal import interrupt_stale_runs
from pipeline.metrics import Metrics, MetricsServer
from pipeline.report import format_day
from pipeline.runner import TickAlreadyClaimed, run_once
from pipeline.runtime import Runtime, open_runtime
from pipeline.web import WebServer, build_app, check_exposure
from pipeline.webhook import WebhookSender


ALERT_GRACE_SECONDS = 2.0
"""At SIGTERM, how long alerts still in flight may finish before they are cancelled."""

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


class Daemon:
    """The jobs of one daemon process; ``stop`` is set by SIGTERM/SIGINT."""

    def __init__(self, runtime: Runtime, metrics: Metrics, stop: threading.Event,
                 alerts: WebhookSender | None = None) -> None:
        self.runtime, self.metrics, self.stop, self.alerts = runtime, metrics, stop, alerts
        self.settings = runtime.settings
        self.tz = time_zone(self.settings.schedule_timezone)

    def tick(self, fire_time: datetime) -> None:
        """Claim this tick in the ledger and run the pipeline, unless another replica holds it."""
        scheduled_for = tick_time(fire_time)
        if self.stop.is_set():
            return
        try:
            result = run_once(self.runtime, trigger="schedule", scheduled_for=scheduled_for, cancel=self.stop,
                              sleep=self._sleep)
        except TickAlreadyClaimed:
            self.metrics.ticks.labels("claimed_elsewhere").inc()
            logger.info("tick.skipped", scheduled_for=scheduled_for.isoformat(), reason="claimed by another replica")
            return
        except Exception:
            logger.exception("tick.crashed", scheduled_for=scheduled_for.isoformat())
            return
        self.metrics.ticks.labels("run").inc()
        self.after_run(result.run_id, result.seconds)

    def after_run(self, run_id: int, seconds: float) -> None:
        """Count the run from its ledger rows and alert if its verdict calls for it."""
        with self.runtime.sessions() as s:
            detail = run_detail(s, run_id)
            published = last_publication_time(s)
        assert detail is not None
        self.metrics.observe_run(detail, seconds)
        self.metrics.published_at(published)
        self._alert(run_alert(detail))

    def daily_report(self, fire_time: datetime) -> None:
        """Log the report of the day the report tick falls on (in SCHEDULE_TIMEZONE); alert if nothing went online."""
        day = fire_time.astimezone(self.tz).date()
        with self.runtime.sessions() as s:
            ledger = day_ledger(s, day, self.tz)
        logger.info("report.daily", day=day.isoformat(), report=format_day(ledger))
        self._alert(no_publication_alert(ledger))

    def _alert(self, alert: Alert | None) -> None:
        """Queue the alert (the webhook's own thread sends it; this thread never waits)."""
        if alert is not None and self.alerts is not None:
            self.alerts.submit(alert.key, alert.body)

    def _sleep(self, seconds: float) -> None:
        """Retry waits end early when a stop is requested; the loop then stops before its next step."""
        self.stop.wait(seconds)


def run_daemon(settings: Settings, announce: Callable[[str], None] = print) -> int:
    """Run until SIGTERM/SIGINT; 0 after a clean stop. Bad schedules raise ConfigError before anything starts."""
    tz = time_zone(settings.schedule_timezone)
    schedule = cron_trigger(settings.schedule_cron, tz, "SCHEDULE_CRON")
    report = cron_trigger(settings.report_cron, tz, "REPORT_CRON")
    if settings.web_port:
        check_exposure(settings.web_host, settings)
    stop = threading.Event()
    _on_signals(stop)
    with open_runtime(settings) as runtime, ExitStack() as web:
        with runtime.sessions.begin() as s:
            if stale := interrupt_stale_runs(s):
                logger.warning("daemon.interrupted_stale_runs", run_ids=stale)
            published = last_publication_time(s)
        metrics = Metrics()
        metrics.published_at(published)
        healthy = threading.Event()
        alerts = _alerts(settings)
        daemon = Daemon(runtime, metrics, stop, alerts)
        with MetricsServer(metrics, settings.metrics_host, settings.metrics_port, healthy) as server:
            announce(f"factline daemon: metrics at {server.url}/metrics, health at {server.url}/healthz")
            if settings.web_port:
                dashboard = web.enter_context(WebServer(build_app(settings, runtime.sessions), settings.web_host,
                                                        settings.web_port))
                announce(f"factline daemon: dashboard at {dashboard.url}/")
            scheduler = _scheduler(settings, tz)
            scheduler.add_job(daemon.tick, schedule, args=[FIRE_TIME], id="pipeline", name="pipeline tick")
            scheduler.add_job(daemon.daily_report, report, args=[FIRE_TIME], id="report", name="daily report")
            scheduler.start()
            healthy.set()
            logger.info("daemon.started", schedule=settings.schedule_cron, report=settings.report_cron,
                        timezone=str(tz), next_tick=str(scheduler.get_job("pipeline").next_run_time))
            stop.wait()
            healthy.clear()
            logger.info("daemon.stopping")
            scheduler.shutdown(wait=True)
        if alerts is not None:
            alerts.close(grace=ALERT_GRACE_SECONDS)
    logger.info("daemon.stopped")
    return 0


def _alerts(settings: Settings) -> WebhookSender | None:
    if settings.alert_webhook_url is None:
        return None
    return WebhookSender(settings.alert_webhook_url, settings.alert_deadline_seconds)


def _scheduler(settings: Settings, tz: Any) -> BackgroundScheduler:
    logging.getLogger("apscheduler").setLevel(logging.ERROR)  # its events are logged below, through loguru
    scheduler = BackgroundScheduler(
        executors={"default": TickExecutor(max_workers=2)}, timezone=tz,
        job_defaults={"coalesce": True, "max_instances": 1,
                      "misfire_grace_time": settings.schedule_misfire_grace_seconds})
    scheduler.add_listener(_log_skipped, EVENT_JOB_MISSED | EVENT_JOB_MAX_INSTANCES)
    return scheduler


def _log_skipped(event: JobExecutionEvent | JobSubmissionEvent) -> None:
    if event.code == EVENT_JOB_MISSED:
        logger.warning("tick.missed", job=event.job_id, scheduled_for=str(event.scheduled_run_time))
    else:
        logger.warning("tick.busy", job=event.job_id, scheduled_for=str(event.scheduled_run_times[-1]),
                       reason="the previous run of this job is still going")


def _on_signals(stop: threading.Event) -> None:
    def handle(signum: int, _frame: FrameType | None) -> None:
        logger.warning("daemon.signal", signal=signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)
