"""EXECUTOR=celery: runs per minute with 1, 2 and 4 workers, the scheduler's cost per tick, the ledger's per run.

    python -m benchmarks.bench_celery            full: 4 pipelines, 24 runs per worker, 300 ms per completion
    python -m benchmarks.bench_celery --short    a few runs, to check it still works

1. Throughput: N ``factline worker --concurrency 1`` processes on PostgreSQL + RabbitMQ; the benchmark
   claims and sends ``runs`` ticks at once (the scheduler's cadence is not measured here), then times
   from the first send until every run is closed. The scripted model answers every request (agent
   turns and the two text completions) after a fixed 300 ms, so a run needs >= 9 x 0.3 s of waiting.
2. The scheduler's own cost per tick: TickSender.tick (claim the runs row, publish with confirm,
   mark sent) in this process, wall and CPU time, on PostgreSQL + RabbitMQ.
3. The ledger's cost per run on PostgreSQL: statements, commits and time spent in the database by one
   run executed in this process (SQLAlchemy cursor events), and table bytes added per run.
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchmarks.common import IMAGES, Stats, production_logs_to_devnull, progress, save, table
from testkit.fleet import Fleet
from config import load_settings
from testkit.databases import fresh_pg_database
from testkit.scripted_model import ScriptedModel, happy_path

BROKER = "amqp://guest:guest@127.0.0.1:5672//"
COMPLETION_SECONDS = 0.3


def slow_model() -> ScriptedModel:
    return ScriptedModel(policy=lambda r: dataclasses.replace(happy_path(r), delay=COMPLETION_SECONDS),
                         writer=_slow_writer)


def _slow_writer(request):  # noqa: ANN001, ANN202 - the scripted model's writer signature
    from testkit.scripted_model import default_writer

    time.sleep(COMPLETION_SECONDS)
    return default_writer(request)


def throughput(workers: int, runs: int, pipelines: int) -> dict[str, object]:
    """Runs per minute of ``workers`` single-slot worker processes draining ``runs`` queued ticks."""
    from pipeline.workers.app import make_app
    from pipeline.workers.dispatch import TickSender

    work = Path(tempfile.mkdtemp(prefix="bench-celery-"))
    with fresh_pg_database() as db_url, slow_model() as model:
        fleet = Fleet(db_url, BROKER, model.base_url, work, pipelines=pipelines, cron="0 0 1 1 *",
                      topics=runs, concurrency=1)
        try:
            for _ in range(workers):
                fleet.start_worker()
            settings = load_settings(database_url=db_url, executor="celery", celery_broker_url=BROKER,
                                     celery_queue=fleet.queue)
            from pipeline.ledger.db import open_ledger

            sessions = open_ledger(db_url)
            sender = TickSender(sessions, make_app(settings.deployment().executor, [settings]), fleet.queue, [], reconcile_seconds=60,
                                heartbeat_seconds=10)
            _wait_workers_ready(fleet, workers)
            base = datetime(2030, 1, 1, tzinfo=timezone.utc)
            started = time.monotonic()
            for i in range(runs):
                sender.tick(fleet.names[i % pipelines], base + timedelta(seconds=i))
            fleet.wait_settled(timeout=60 + runs * 20)
            seconds = time.monotonic() - started
            audit = fleet.audit()
            sessions.kw["bind"].dispose()
        finally:
            fleet.stop()
            fleet.delete_queue()
            shutil.rmtree(work, ignore_errors=True)
    return {"workers": workers, "runs": runs, "seconds": round(seconds, 2),
            "runs_per_minute": round(runs / seconds * 60, 1), "verdicts": audit.verdicts,
            "clean": audit.clean}


def _wait_workers_ready(fleet: Fleet, workers: int) -> None:
    """Until each worker has printed that it consumes (its runtime is open)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready = sum("factline worker:" in w.log.read_text(errors="replace") for w in fleet.workers)
        if ready == workers:
            time.sleep(1.0)  # the consumer attaches to the queue just after the line
            return
        time.sleep(0.2)
    raise RuntimeError("workers did not start")


def scheduler_cost(ticks: int) -> dict[str, object]:
    """Wall and CPU milliseconds of claim + confirmed publish + mark sent, per tick."""
    from pipeline.ledger.db import open_ledger
    from pipeline.workers.app import make_app
    from pipeline.workers.dispatch import TickSender

    work = Path(tempfile.mkdtemp(prefix="bench-celery-"))
    queue = f"factline.bench.{int(time.time())}"
    with fresh_pg_database() as db_url:
        settings = load_settings(database_url=db_url, executor="celery", celery_broker_url=BROKER, celery_queue=queue)
        sessions = open_ledger(db_url)
        app = make_app(settings.deployment().executor, [settings])
        sender = TickSender(sessions, app, queue, [], reconcile_seconds=60, heartbeat_seconds=10)
        base = datetime(2030, 1, 1, tzinfo=timezone.utc)
        sender.tick("content", base - timedelta(days=1))  # connects to the broker and the database
        walls, cpus = [], []
        for i in range(ticks):
            wall, cpu = time.perf_counter(), time.process_time()
            sender.tick("content", base + timedelta(seconds=i))
            walls.append((time.perf_counter() - wall) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
        with app.connection_for_write() as conn:
            conn.default_channel.queue_delete(queue)
        sessions.kw["bind"].dispose()
    shutil.rmtree(work, ignore_errors=True)
    return {"ticks": ticks, "wall_ms": Stats.of(walls), "cpu_ms": Stats.of(cpus)}


def ledger_cost(runs: int) -> dict[str, object]:
    """Statements, commits and database milliseconds of one run on PostgreSQL; table bytes per run."""
    from sqlalchemy import event, text

    from pipeline.runner import run_once
    from pipeline.runtime import open_runtime

    work = Path(tempfile.mkdtemp(prefix="bench-celery-"))
    topics = work / "topics.txt"
    topics.write_text("\n".join(f"Ledger cost topic {i}" for i in range(runs + 1)) + "\n", encoding="utf-8")
    with fresh_pg_database() as db_url, ScriptedModel() as model:
        settings = load_settings(database_url=db_url, openai_base_url=model.base_url, factline_model="scripted",
                                 topics_source=str(topics), local_site_dir=work / "site", local_site_port=0)
        with open_runtime(settings) as runtime:
            engine = runtime.sessions.kw["bind"]
            run_once(runtime)  # warm: connections, caches
            def size() -> int:
                with engine.connect() as conn:
                    return conn.execute(text("SELECT sum(pg_total_relation_size(oid)) FROM pg_class "
                                             "WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace")).scalar()

            before = size()
            counts = {"statements": 0, "commits": 0, "db_seconds": 0.0}
            starts: dict[int, float] = {}

            @event.listens_for(engine, "before_cursor_execute")
            def _before(conn, cursor, statement, params, context, many):  # noqa: ANN001, ANN202
                starts[id(cursor)] = time.perf_counter()

            @event.listens_for(engine, "after_cursor_execute")
            def _after(conn, cursor, statement, params, context, many):  # noqa: ANN001, ANN202
                counts["statements"] += 1
                counts["db_seconds"] += time.perf_counter() - starts.pop(id(cursor), time.perf_counter())

            @event.listens_for(engine, "commit")
            def _commit(conn):  # noqa: ANN001, ANN202
                counts["commits"] += 1

            walls = []
            for _ in range(runs):
                started = time.perf_counter()
                assert run_once(runtime).verdict == "success"
                walls.append(time.perf_counter() - started)
            grown = size() - before
            engine.dispose()
    shutil.rmtree(work, ignore_errors=True)
    return {"runs": runs, "statements_per_run": round(counts["statements"] / runs, 1),
            "commits_per_run": round(counts["commits"] / runs, 1),
            "db_ms_per_run": round(counts["db_seconds"] / runs * 1000, 1),
            "run_ms": Stats.of([w * 1000 for w in walls]), "bytes_per_run": round(grown / runs)}


def chart(rows: list[dict[str, object]]) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    workers = [r["workers"] for r in rows]
    rates = [r["runs_per_minute"] for r in rows]
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=110)
    ax.bar([str(w) for w in workers], rates, color="#4c72b0", label="measured")
    ideal = [rates[0] * w for w in workers]
    ax.plot([str(w) for w in workers], ideal, "k--", marker="o", label="linear from 1 worker")
    for x, y in zip([str(w) for w in workers], rates):
        ax.annotate(f"{y:.0f}/min", (x, y / 2), ha="center", va="center", color="white", fontweight="bold")
    ax.set_xlabel("worker processes (1 slot each)")
    ax.set_ylabel("runs per minute")
    ax.set_title(f"Celery workers, scripted model at {COMPLETION_SECONDS * 1000:.0f} ms per completion")
    ax.legend()
    fig.tight_layout()
    IMAGES.mkdir(parents=True, exist_ok=True)
    path = IMAGES / "celery_throughput.png"
    fig.savefig(path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true")
    args = parser.parse_args(argv)
    production_logs_to_devnull()
    per_worker, ticks, ledger_runs = (3, 20, 3) if args.short else (24, 300, 30)
    rows = []
    for workers in (1, 2, 4):
        progress(f"throughput with {workers} worker(s), {per_worker * workers} runs")
        rows.append(throughput(workers, per_worker * workers, pipelines=4))
    progress(f"scheduler: {ticks} ticks")
    sched = scheduler_cost(ticks)
    progress(f"ledger: {ledger_runs} runs")
    ledger = ledger_cost(ledger_runs)
    speedup = rows[-1]["runs_per_minute"] / rows[0]["runs_per_minute"]
    print(table(["workers", "runs", "seconds", "runs/min", "verdicts"],
                [[r["workers"], r["runs"], r["seconds"], r["runs_per_minute"], r["verdicts"]] for r in rows]))
    print(f"\n1 -> 4 workers: {speedup:.2f}x")
    print(f"\nscheduler per tick: wall {sched['wall_ms'].fmt(2)} ms, CPU {sched['cpu_ms'].fmt(2)} ms "
          f"(median (p10-p90) of {ticks})")
    print(f"ledger per run (PostgreSQL): {ledger['statements_per_run']} statements, {ledger['commits_per_run']} "
          f"commits, {ledger['db_ms_per_run']} ms in the database, {ledger['bytes_per_run']} bytes; "
          f"whole run {ledger['run_ms'].fmt(0)} ms")
    save("bench_celery", {"short": args.short, "completion_seconds": COMPLETION_SECONDS, "throughput": rows,
                          "speedup_1_to_4": round(speedup, 2), "scheduler": sched, "ledger": ledger})
    if not args.short:
        print(f"\nchart: {chart(rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
