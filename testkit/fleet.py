"""A fleet of real processes for the Celery executor: one scheduler, N workers, a broker, one ledger.

``Fleet`` writes a pipelines file of ``pipelines`` pipelines ticking on ``cron``, serves the local
target's folder on a fixed port (so a page stays reachable whichever worker wrote it, and after that
worker is killed), and starts ``factline daemon`` and ``factline worker`` processes with EXECUTOR=celery
against the given PostgreSQL ledger and broker, each on a queue of its own. ``audit`` compares the
ledger with itself and with what the target really holds. ``trial`` runs one phase of the end-to-end
trial (steady, or under ``Faults``: workers SIGKILLed, the scheduler SIGKILLed, the broker restarted) for
tests/pipeline/workers/test_celery_fleet.py (in make test) and scripts/celery_chaos.py (figures in docs/celery.md);
benchmarks/bench_celery.py drives a ``Fleet`` itself (docs/benchmarks.md).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from sqlalchemy import create_engine, text

from pipeline.ledger.db import open_ledger
from testkit.daemon_process import STARTUP_SECONDS, DaemonProcess, wait_for

ROOT = Path(__file__).resolve().parent.parent


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        return None


class Process:
    """A `factline worker` process, with its output in a log file."""

    def __init__(self, env: dict[str, str], log: Path, *args: str) -> None:
        self.log = log
        self._out = log.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", *args], env=env, cwd=log.parent,
                                     stdout=self._out, stderr=subprocess.STDOUT, start_new_session=True)

    def signal(self, sig: signal.Signals) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            self._out.close()

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the worker and anything it started
        self.proc.wait(10)
        self._out.close()


@dataclass
class Audit:
    """What the ledger and the target hold after a trial."""

    pipelines: int
    ticks: int  # runs rows of scheduled ticks
    gaps: list[str]  # (pipeline, second) without a run, from its first tick to the window end (or its last tick)
    verdicts: dict[str, int]
    unclosed: int  # runs left queued or running
    publications: int
    topics_published_twice: int
    registrations: int
    duplicate_numbers: int
    pages: int  # HTML files the target holds
    pages_without_row: int
    rows_without_page: int
    resumed: int  # runs continued by another worker after theirs died
    runs_sharing_a_topic: int  # runs whose topic another run also took (the topic claim failed)
    failed: list[tuple] = field(default_factory=list)  # (run id, pipeline, verdict, stop reason, resumed?)
    first_tick: datetime | None = None
    last_tick: datetime | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return (not self.gaps and set(self.verdicts) == {"success"} and self.unclosed == 0
                and self.publications == self.ticks == self.registrations == self.pages
                and self.topics_published_twice == self.duplicate_numbers == self.runs_sharing_a_topic == 0
                and self.pages_without_row == self.rows_without_page == 0)


class Fleet:
    def __init__(self, db_url: str, broker_url: str, model_url: str, workdir: Path, *, pipelines: int = 3,
                 cron: str = "* * * * * *", topics: int = 200, concurrency: int = 2, **env: str) -> None:
        self.db_url, self.workdir, self.concurrency = db_url, workdir, concurrency
        open_ledger(db_url).kw["bind"].dispose()  # migrated once, before processes start together
        self.queue = f"factline.test.{uuid.uuid4().hex[:10]}"
        self.site = workdir / "site"
        self.site.mkdir(parents=True, exist_ok=True)
        self.names = [f"p{i:02d}" for i in range(pipelines)]
        self._write_config(cron, topics)
        self._site_server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(self.site)))
        threading.Thread(target=self._site_server.serve_forever, args=(0.05,), daemon=True).start()  # closes in <= 50 ms
        base = {k: v for k, v in os.environ.items() if not k.startswith(("FACTLINE_", "SCHEDULE_", "REPORT_"))}
        self.env = {**base, "PYTHONPATH": str(ROOT), "FACTLINE_CONFIG": str(workdir / "factline.toml"),
                    "DATABASE_URL": db_url, "EXECUTOR": "celery", "CELERY_BROKER_URL": broker_url,
                    "CELERY_QUEUE": self.queue, "OPENAI_BASE_URL": model_url, "FACTLINE_MODEL": "scripted",
                    "LOCAL_SITE_DIR": str(self.site), "LOCAL_SITE_PORT": str(self._site_server.server_address[1]),
                    "METRICS_PORT": "0", "LOG_FORMAT": "json", "RETRY_BASE_DELAY": "0.05",
                    "HTTP_TIMEOUT_SECONDS": "10", "CELERY_RECONCILE_SECONDS": "2", "RUN_HEARTBEAT_SECONDS": "1",
                    **env}
        self.scheduler: DaemonProcess | None = None
        self.window_end: datetime | None = None  # the trial's last second (stop_ticking)
        self.workers: list[Process] = []
        self._worker_logs = 0
        self._scheduler_logs = 0

    def _write_config(self, cron: str, topics: int) -> None:
        lines = ['[defaults]', f'schedule_cron = "{cron}"', ""]  # the default grace time (300 s) to catch up
        for name in self.names:
            path = self.workdir / f"topics-{name}.txt"
            if topics:
                path.write_text("\n".join(f"{name} topic {i:04d}" for i in range(topics)) + "\n", encoding="utf-8")
            lines += ["[[pipelines]]", f'name = "{name}"', f'topics_source = "{path}"', ""]
        (self.workdir / "factline.toml").write_text("\n".join(lines), encoding="utf-8")

    # processes ----------------------------------------------------------------------------------
    def start_scheduler(self, startup_seconds: float = STARTUP_SECONDS) -> None:
        self._scheduler_logs += 1
        self.scheduler = DaemonProcess(self.env, self.workdir / f"scheduler-{self._scheduler_logs}.log", startup_seconds)

    def stop_ticking(self, timeout: float = 600) -> None:
        """End the ticks but keep a scheduler reconciling: restart it on a schedule that does not fire.

        The trial's window ends now: first wait until the scheduler has claimed every second of it (a
        scheduler restarted after being killed, or one that fell behind on a loaded machine, catches
        up missed seconds in reconcile passes; the one on the new schedule has none to catch up).
        Seconds after the window are not checked for gaps (``audit``); their runs are. Workers rely on
        the scheduler to re-send ticks whose task was lost with a worker or a broker.
        """
        self.window_end = datetime.now(timezone.utc).replace(microsecond=0)
        wait_for(lambda: not self.gaps(until=self.window_end), timeout=timeout, interval=1)
        self.stop_scheduler()
        self._write_config("0 0 1 1 *", 0)
        self.start_scheduler()

    def stop_scheduler(self) -> None:
        if self.scheduler is not None:
            self.scheduler.stop()
            self.scheduler = None

    def kill_scheduler(self) -> None:
        if self.scheduler is not None:
            self.scheduler.kill()
            self.scheduler = None

    def start_worker(self) -> Process:
        self._worker_logs += 1
        worker = Process(self.env, self.workdir / f"worker-{self._worker_logs}.log", "worker",
                         f"--concurrency={self.concurrency}")
        self.workers.append(worker)
        return worker

    def kill_worker(self, worker: Process) -> None:
        worker.kill()
        self.workers.remove(worker)

    def stop(self) -> None:
        """Stop the scheduler, then every worker (warm shutdown: they finish their runs), and the site.

        Whatever does not stop in time is killed: a failed trial must not leave processes behind.
        """
        try:
            self.stop_scheduler()
        except subprocess.TimeoutExpired:
            self.kill_scheduler()
        for worker in self.workers:
            worker.signal(signal.SIGTERM)
        for worker in self.workers:
            try:
                worker.wait(120)
            except subprocess.TimeoutExpired:
                worker.kill()
        self.workers.clear()
        self._site_server.shutdown()
        self._site_server.server_close()

    # the ledger ---------------------------------------------------------------------------------
    def scalar(self, sql: str) -> object:
        engine = create_engine(self.db_url)
        try:
            with engine.connect() as conn:
                return conn.execute(text(sql)).scalar()
        finally:
            engine.dispose()

    def wait_settled(self, timeout: float) -> None:
        """Until no run is queued or running (every claimed tick has been executed)."""
        wait_for(lambda: self.scalar("SELECT count(*) FROM runs WHERE status IN ('queued', 'running')") == 0,
                 timeout=timeout, interval=0.5)

    def gaps(self, until: datetime | None = None) -> list[str]:
        """The (pipeline, second) without a run from the pipeline's first tick to its last, or to ``until``."""
        engine = create_engine(self.db_url)
        try:
            with engine.connect() as conn:
                ticks = [tuple(r) for r in conn.execute(text(
                    "SELECT pipeline, scheduled_for FROM runs WHERE trigger = 'schedule'"))]
        finally:
            engine.dispose()
        return self._gaps(ticks, until)

    def _gaps(self, ticks: list[tuple], until: datetime | None = None) -> list[str]:
        gaps = []
        for name in self.names:
            mine = sorted(_utc(t) for p, t in ticks if p == name)
            if mine:
                last = until or mine[-1]
                expected = {mine[0] + timedelta(seconds=i) for i in range(int((last - mine[0]).total_seconds()) + 1)}
                gaps += [f"{name} {t:%H:%M:%S}" for t in sorted(expected - set(mine))]
        return gaps

    def audit(self) -> Audit:
        engine = create_engine(self.db_url)
        with engine.connect() as conn:
            q = lambda sql: [tuple(r) for r in conn.execute(text(sql))]  # noqa: E731
            ticks = q("SELECT pipeline, scheduled_for FROM runs WHERE trigger = 'schedule' ORDER BY 1, 2")
            verdicts = dict(q("SELECT coalesce(verdict, status), count(*) FROM runs GROUP BY 1"))
            unclosed = q("SELECT count(*) FROM runs WHERE status IN ('queued', 'running')")[0][0]
            pubs = q("SELECT external_id, pipeline, topic_id FROM publications")
            twice = q("SELECT count(*) FROM (SELECT topic_id FROM publications GROUP BY topic_id "
                      "HAVING count(*) > 1) t")[0][0]
            registrations = q("SELECT count(*) FROM registrations")[0][0]
            dup_numbers = q("SELECT count(*) FROM (SELECT number FROM registrations GROUP BY number "
                            "HAVING count(*) > 1) t")[0][0]
            resumed = q("SELECT count(DISTINCT run_id) FROM run_events WHERE kind = 'resumed'")[0][0]
            sharing = q("SELECT count(*) FROM runs WHERE topic_id IN (SELECT topic_id FROM runs "
                        "WHERE topic_id IS NOT NULL GROUP BY topic_id HAVING count(*) > 1)")[0][0]
            failed = q("SELECT id, pipeline, verdict, stop_reason, EXISTS (SELECT 1 FROM run_events e WHERE "
                       "e.run_id = runs.id AND e.kind = 'resumed') FROM runs WHERE verdict IS DISTINCT FROM "
                       "'success' ORDER BY id LIMIT 20")
        engine.dispose()
        gaps = self._gaps(ticks, self.window_end)
        pages = {p.stem for p in self.site.glob("a-*.html")}
        rows = {external_id for external_id, _, _ in pubs}
        all_ticks = sorted(_utc(t) for _, t in ticks)
        return Audit(pipelines=len(self.names), ticks=len(ticks), gaps=gaps, verdicts=verdicts, unclosed=unclosed,
                     publications=len(pubs), topics_published_twice=twice, registrations=registrations,
                     duplicate_numbers=dup_numbers, pages=len(pages), pages_without_row=len(pages - rows),
                     rows_without_page=len(rows - pages), resumed=resumed, runs_sharing_a_topic=sharing,
                     failed=failed,
                     first_tick=all_ticks[0] if all_ticks else None, last_tick=all_ticks[-1] if all_ticks else None)

    def delete_queue(self) -> None:
        """Remove this fleet's queue from the broker (the broker is shared with other runs)."""
        from kombu import Connection

        with Connection(self.env["CELERY_BROKER_URL"], connect_timeout=5) as conn:
            try:
                conn.default_channel.queue_delete(self.queue)
            except Exception:  # the queue may not exist (a Redis list that is empty is gone already)
                pass


def _utc(when: datetime | str) -> datetime:
    if isinstance(when, str):
        when = datetime.fromisoformat(when)
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)


def restart_rabbitmq() -> float:
    """Stop and start the RabbitMQ application (every connection drops); seconds it was down."""
    started = time.monotonic()
    subprocess.run(["rabbitmqctl", "-q", "stop_app"], check=True, capture_output=True, timeout=120)
    subprocess.run(["rabbitmqctl", "-q", "start_app"], check=True, capture_output=True, timeout=120)
    return time.monotonic() - started


@dataclass(frozen=True)
class Faults:
    """What goes wrong during a trial phase: none of it for the steady phase."""

    kill_worker_every: float | None = None  # seconds between SIGKILLing a random worker (and starting another)
    kill_scheduler: bool = False  # SIGKILL the scheduler once, a quarter in; restarted 2 s later
    restart_broker: bool = False  # restart RabbitMQ once, half-way (every connection drops)


STEADY = Faults()
CHAOS = Faults(kill_worker_every=3, kill_scheduler=True, restart_broker=True)


def trial(db_url: str, broker_url: str, model_url: str, workdir: Path, *, seconds: float, pipelines: int,
          faults: Faults = STEADY, workers: int = 3, say: Callable[[str], None] = lambda _: None,
          settle_timeout: float = 600) -> tuple[Audit, dict[str, object]]:
    """One phase: ``pipelines`` pipelines ticking every second for ``seconds`` (longer if a fault is still to
    come), ``workers`` workers, ``faults``.

    After the ticks stop, a scheduler keeps reconciling until no run is queued or running; then the audit,
    and the faults that really happened (counts, seconds the broker was down, seconds to drain).
    """
    if faults.restart_broker and not broker_url.startswith("amqp"):
        raise ValueError("restart_broker needs RabbitMQ (a Redis restart without persistence loses the queue)")
    events: dict[str, object] = {"worker_kills": 0, "scheduler_kills": 0, "broker_restarts": 0}
    # topics for a phase stretched 20-fold: at load 25 the restarts made a 30 s phase last 210 s, and a
    # pipeline out of topics ends its runs `loop` (the agent asks again and again), not `success`
    fleet = Fleet(db_url, broker_url, model_url, workdir, pipelines=pipelines, topics=int(seconds) * 20 + 100)
    try:
        for _ in range(workers):
            fleet.start_worker()
        fleet.start_scheduler()
        rng = random.Random(15)
        started = time.monotonic()

        def pending() -> bool:  # on a loaded machine one restart may take most of the phase: the faults still happen
            return (faults.kill_scheduler and not events["scheduler_kills"]) or (
                faults.restart_broker and not events["broker_restarts"])

        while (elapsed := time.monotonic() - started) < seconds or pending():
            time.sleep(faults.kill_worker_every or 1)
            say(f"{elapsed:.0f}/{seconds:.0f} s, {fleet.scalar('SELECT count(*) FROM runs')} ticks claimed")
            if faults.kill_worker_every:
                fleet.kill_worker(rng.choice(fleet.workers))
                fleet.start_worker()
                events["worker_kills"] += 1
            if faults.kill_scheduler and elapsed > seconds / 4 and not events["scheduler_kills"]:
                fleet.kill_scheduler()
                time.sleep(2)
                fleet.start_scheduler()
                events["scheduler_kills"] = 1
            elif faults.restart_broker and elapsed > seconds / 2 and not events["broker_restarts"]:
                events["broker_down_seconds"] = round(restart_rabbitmq(), 1)
                events["broker_restarts"] = 1
        fleet.stop_ticking()
        drained = time.monotonic()
        fleet.wait_settled(timeout=settle_timeout)
        events["drain_seconds"] = round(time.monotonic() - drained, 1)
        return fleet.audit(), events
    finally:
        fleet.stop()
        fleet.delete_queue()
