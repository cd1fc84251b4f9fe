"""A thousand pipelines on one scheduler: tick lateness, the scheduler's CPU and memory, ticks lost or doubled.

    python -m benchmarks.bench_scheduler             full: 1,000 pipelines ticking every minute for 12 minutes
    python -m benchmarks.bench_scheduler --short     50 pipelines ticking every 15 s for 60 s (CI)
    python -m benchmarks.bench_scheduler --pipelines 1000 --minutes 15 --workers 2 --concurrency 2
    python -m benchmarks.bench_scheduler --minutes 10 --pin  the scheduler on CPU 0, the workers on the others

One real ``factline daemon`` (EXECUTOR=celery, PostgreSQL, RabbitMQ on 127.0.0.1) with every pipeline in
one pipelines file, all on the same cron (the worst case: every tick of the minute falls in the same
second), and ``factline worker`` processes running the pipelines for real against the scripted model
(testkit/scripted_model.py) and the local target. What it measures is the scheduler: for each tick, the
ledger's ``sent`` lateness (the broker confirmed the task, against the tick's scheduled time), the
scheduler process's CPU time and RSS (/proc, sampled every second), the ticks of the window that have no
run or no confirmed send (lost) or more than one run (doubled), and the rows the whole deployment wrote
(rows counted in every table before and after), per hour. The workers do what two loaded cores allow: 1,000 runs a minute
is more than they can execute, so their backlog grows; ``taken`` lateness (a worker took the run) is
printed for the runs they took, and measures the workers' capacity, not the scheduler.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from apscheduler.triggers.cron import CronTrigger
from sqlalchemy import create_engine, text

from benchmarks.common import machine, progress, save, table
from testkit.databases import fresh_pg_database
from testkit.fleet import Fleet
from testkit.scripted_model import ScriptedModel

BROKER = "amqp://guest:guest@127.0.0.1:5672//"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclasses.dataclass(frozen=True)
class Plan:
    pipelines: int
    cron: str  # every pipeline's schedule_cron
    window_seconds: float  # how long the scheduler ticks once it is up
    workers: int
    concurrency: int
    pin: bool = False  # the scheduler's threads on CPU 0, the workers' on the other CPUs (sched_setaffinity)


FULL = Plan(pipelines=1000, cron="* * * * *", window_seconds=12 * 60, workers=2, concurrency=2)
SHORT = Plan(pipelines=50, cron="*/15 * * * * *", window_seconds=60, workers=1, concurrency=2)


class ProcessSampler:
    """CPU seconds and RSS of one process, read from /proc every ``interval`` seconds in a thread."""

    def __init__(self, pid: int, interval: float = 1.0) -> None:
        self.pid, self.interval = pid, interval
        self.rss: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime

    def rss_bytes(self) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.rss.append(self.rss_bytes())
            except FileNotFoundError:
                return

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def pin(pid: int, cpus: set[int]) -> None:
    """Every thread of ``pid`` on ``cpus`` (threads it starts later inherit it)."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        os.sched_setaffinity(int(task.name), cpus)


def row_counts(db_url: str) -> dict[str, int]:
    """Rows in each ledger table (they only grow during the benchmark: the difference is what was written)."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            tables = [name for (name,) in conn.execute(text(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'alembic_version'"))]
            return {name: conn.execute(text(f'SELECT count(*) FROM "{name}"')).scalar() for name in tables}
    finally:
        engine.dispose()


def expected_ticks(cron: str, after: datetime, until: datetime) -> list[datetime]:
    """The cron's fire times in (after, until]: the ticks every pipeline owes the window."""
    fields = cron.split()
    trigger = (CronTrigger(second=fields[0], minute=fields[1], hour=fields[2], day=fields[3], month=fields[4],
                           day_of_week=fields[5], timezone=UTC) if len(fields) == 6
               else CronTrigger.from_crontab(cron, timezone=UTC))
    times, previous = [], after
    while (fire := trigger.get_next_fire_time(previous, previous + timedelta(microseconds=1))) and fire <= until:
        if fire > after:
            times.append(fire)
        previous = fire
    return times


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def ledger_ticks(db_url: str) -> list[tuple]:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(
                "SELECT pipeline, scheduled_for, sent_at, started_at, status FROM runs WHERE trigger = 'schedule'"))]
    finally:
        engine.dispose()


def utc(when: datetime) -> datetime:
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def measure(plan: Plan) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(prefix="bench-scheduler-"))
    try:
        with fresh_pg_database() as db_url, ScriptedModel() as model:
            progress(f"writing a pipelines file of {plan.pipelines} pipelines ({plan.cron!r})")
            fleet = Fleet(db_url, BROKER, model.base_url, work, pipelines=plan.pipelines, cron=plan.cron, topics=30,
                          concurrency=plan.concurrency, CELERY_RECONCILE_SECONDS="15", RUN_HEARTBEAT_SECONDS="10")
            try:
                return _trial(plan, fleet, db_url)
            finally:
                progress("stopping the workers")
                fleet.stop()
                fleet.delete_queue()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _trial(plan: Plan, fleet: Fleet, db_url: str) -> dict[str, object]:
    scheduler_cpus, worker_cpus = {0}, set(range(1, os.cpu_count() or 1)) or {0}
    for _ in range(plan.workers):  # at nice 10: the scheduler is measured, the workers take what CPU is left
        worker = fleet.start_worker().proc.pid
        os.setpriority(os.PRIO_PROCESS, worker, 10)
        if plan.pin:
            pin(worker, worker_cpus)
    progress(f"{plan.workers} worker(s) x {plan.concurrency} slots started; starting the scheduler")
    fleet.start_scheduler(startup_seconds=600)  # reading 1,000 pipelines takes a while on a loaded machine
    assert fleet.scheduler is not None
    if plan.pin:
        pin(fleet.scheduler.proc.pid, scheduler_cpus)
        progress(f"scheduler pinned to CPU {sorted(scheduler_cpus)}, workers to CPUs {sorted(worker_cpus)}")
    sampler = ProcessSampler(fleet.scheduler.proc.pid)
    window_start = datetime.now(UTC)  # ticks after this are the scheduler's own (none to catch up: a new ledger)
    inserted_before, cpu_before, mono_start = row_counts(db_url), sampler.cpu_seconds(), time.monotonic()
    rss_start = sampler.rss_bytes()
    sampler.start()
    while (elapsed := time.monotonic() - mono_start) < plan.window_seconds:
        time.sleep(min(15.0, plan.window_seconds - elapsed))
        claimed = fleet.scalar("SELECT count(*) FROM runs")
        done = fleet.scalar("SELECT count(*) FROM runs WHERE status = 'finished'")
        progress(f"{time.monotonic() - mono_start:.0f}/{plan.window_seconds:.0f} s: {claimed} ticks claimed, "
                 f"{done} runs finished by the workers, scheduler RSS {sampler.rss_bytes() / 2**20:.0f} MB, "
                 f"load {os.getloadavg()[0]:.1f}")
    window_end = datetime.now(UTC)
    cpu_seconds, wall = sampler.cpu_seconds() - cpu_before, time.monotonic() - mono_start
    inserted_after = row_counts(db_url)
    # ticks due before the window's end get the misfire grace to be claimed and sent; then stop
    due = expected_ticks(plan.cron, window_start, window_end - timedelta(seconds=2))
    settle = time.monotonic()
    while time.monotonic() - settle < 60:
        sent = fleet.scalar(f"SELECT count(*) FROM runs WHERE trigger = 'schedule' AND sent_at IS NOT NULL "
                            f"AND scheduled_for <= '{due[-1].isoformat()}'") if due else 0
        if sent >= len(due) * plan.pipelines:
            break
        time.sleep(1)
    sampler.stop()
    log = fleet.scheduler.log
    fleet.stop_scheduler()
    result = _figures(plan, db_url, due, window_start, window_end, wall, cpu_seconds, sampler.rss, rss_start,
                      inserted_before, inserted_after)
    return {**result, "batches": batches(log)}


def batches(log: Path) -> dict[str, object]:
    """The scheduler's ``tick.sent`` lines (one per batch of ticks): how many, how big, and the seconds of each
    phase (late: its oldest tick when the batch began; claim: the INSERT of the ticks not claimed ahead; send:
    the publishes until the last confirm; mark: the UPDATEs, beside the publishes; last_mark: the wait for the
    last one), and of its ``tick.claimed_ahead`` lines (ahead_claim: the INSERT, seconds before the moment), at
    the 50th and 100th percentile."""
    found: dict[str, list[dict[str, object]]] = {'"tick.sent"': [], '"tick.claimed_ahead"': []}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        for event, records in found.items():
            if event in line:
                record = json.loads(line)
                records.append(record.get("record", record).get("extra", record))
    sent, ahead = found['"tick.sent"'], found['"tick.claimed_ahead"']
    if not sent:
        return {"count": 0}
    summary: dict[str, object] = {"count": len(sent)}
    for name, records, key in [*((key, sent, key) for key in ("ticks", "ahead", "late_s", "claim_s", "send_s",
                                                               "mark_s", "marks", "last_mark_s")),
                               ("ahead_claim_s", ahead, "claim_s")]:
        values = [float(b[key]) for b in records if key in b]
        if values:
            summary[name] = {"p50": round(statistics.median(values), 3), "max": round(max(values), 3)}
    return summary


def _figures(plan: Plan, db_url: str, due: list[datetime], window_start: datetime, window_end: datetime,
             wall: float, cpu_seconds: float, rss: list[int], rss_start: int, inserted_before: dict[str, int],
             inserted_after: dict[str, int]) -> dict[str, object]:
    rows = ledger_ticks(db_url)
    due_set = {t.replace(microsecond=0) for t in due}
    by_tick: dict[tuple[str, datetime], list[tuple]] = {}
    for row in rows:
        by_tick.setdefault((row[0], utc(row[1])), []).append(row)
    expected = [(f"p{i:02d}", t) for i in range(plan.pipelines) for t in sorted(due_set)]
    lost = [key for key in expected if not any(r[2] is not None for r in by_tick.get(key, []))]
    doubled = sum(len(v) - 1 for v in by_tick.values() if len(v) > 1)
    in_window = [r for key in expected for r in by_tick.get(key, [])]
    sent = [(utc(r[2]) - utc(r[1])).total_seconds() for r in in_window if r[2] is not None]
    taken = [(utc(r[3]) - utc(r[1])).total_seconds() for r in in_window
             if r[3] is not None and r[4] != "queued"]
    finished = sum(1 for r in in_window if r[4] == "finished")
    written = {name: inserted_after.get(name, 0) - inserted_before.get(name, 0) for name in inserted_after}
    rows_written = sum(written.values())
    return {
        "plan": dataclasses.asdict(plan), "window": [window_start.isoformat(), window_end.isoformat()],
        "ticks_expected": len(expected), "ticks_lost": len(lost), "lost_examples": [f"{p} {t:%H:%M:%S}" for p, t in lost[:5]],
        "ticks_doubled": doubled,
        "sent_lateness_s": {"p50": statistics.median(sent), "p99": percentile(sent, 0.99), "max": max(sent)} if sent else {},
        "taken_lateness_s": ({"n": len(taken), "p50": statistics.median(taken), "p99": percentile(taken, 0.99),
                              "max": max(taken)} if taken else {"n": 0}),
        "runs_finished": finished,
        "scheduler_cpu_s": round(cpu_seconds, 1), "scheduler_cpu_percent": round(100 * cpu_seconds / wall, 1),
        "scheduler_cpu_ms_per_tick": round(1000 * cpu_seconds / max(1, len(expected)), 2),
        "scheduler_rss_mb": {"start": round(rss_start / 2**20, 1), "max": round(max(rss or [rss_start]) / 2**20, 1),
                             "end": round((rss or [rss_start])[-1] / 2**20, 1)},
        "rows_written": rows_written, "rows_written_per_hour": round(rows_written / wall * 3600),
        "rows_by_table": {k: v for k, v in sorted(written.items()) if v},
    }


def report(result: dict[str, object]) -> None:
    plan = result["plan"]
    late, taken, rss = result["sent_lateness_s"], result["taken_lateness_s"], result["scheduler_rss_mb"]
    print(f"\n{plan['pipelines']} pipelines on {plan['cron']!r}, {plan['window_seconds']:.0f} s of ticks, "
          f"{plan['workers']} worker(s) x {plan['concurrency']} slots\n")
    print(table(["figure", "value"], [
        ["ticks due in the window", result["ticks_expected"]],
        ["ticks lost (no run, or never confirmed sent)", result["ticks_lost"]],
        ["ticks doubled (a second run of one tick)", result["ticks_doubled"]],
        ["sent lateness p50 / p99 / max (s)", f"{late.get('p50', 0):.3f} / {late.get('p99', 0):.3f} / "
                                               f"{late.get('max', 0):.3f}" if late else "no tick sent"],
        ["scheduler CPU", f"{result['scheduler_cpu_s']} s = {result['scheduler_cpu_percent']} % of one core, "
                          f"{result['scheduler_cpu_ms_per_tick']} ms per tick"],
        ["scheduler RSS start / max / end (MB)", f"{rss['start']} / {rss['max']} / {rss['end']}"],
        ["ledger rows written (whole deployment)", f"{result['rows_written']}, {result['rows_written_per_hour']:,} per hour"],
        ["runs the workers finished", result["runs_finished"]],
        ["taken lateness p50 / p99 / max (s, the workers' backlog)",
         f"{taken['p50']:.1f} / {taken['p99']:.1f} / {taken['max']:.1f} over {taken['n']} runs" if taken["n"] else "none"],
    ]))
    print(f"\nrows by table: {result['rows_by_table']}")
    if result["batches"]["count"]:  # a scheduler that sends ticks in batches logs each (tick.sent)
        print(f"the scheduler's batches of ticks (tick.sent: median and max): {result['batches']}")
    goal = (result["ticks_lost"] == 0 and result["ticks_doubled"] == 0 and late and late["p99"] < 1.0
            and rss["max"] < 200)
    print(f"goal (p99 < 1 s, nothing lost or doubled, RSS < 200 MB): {'met' if goal else 'NOT met'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="50 pipelines every 15 s for 60 s: checks that it runs")
    parser.add_argument("--pipelines", type=int)
    parser.add_argument("--minutes", type=float, help="how long the scheduler ticks")
    parser.add_argument("--workers", type=int)
    parser.add_argument("--concurrency", type=int)
    parser.add_argument("--pin", action="store_true",
                        help="the scheduler's threads on CPU 0, the workers' on the other CPUs")
    args = parser.parse_args(argv)
    plan = SHORT if args.short else FULL
    plan = dataclasses.replace(plan, pipelines=args.pipelines or plan.pipelines,
                               window_seconds=args.minutes * 60 if args.minutes else plan.window_seconds,
                               workers=plan.workers if args.workers is None else args.workers,
                               concurrency=args.concurrency or plan.concurrency, pin=args.pin)
    result = measure(plan)
    report(result)
    save("scheduler", {**result, "machine": machine()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
