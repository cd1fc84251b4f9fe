"""Benchmark 11: the everyday reads on a ledger of 1 million runs and 10 million tool calls, SQLite and PostgreSQL.

The ledger is benchmarks/dashboard_ledger.py's (10 tool calls, 3 turns, 2 claims, a source read, 2 events per
run; 85% published and registered; 1,000 runs a day), bulk-loaded with executemany (SQLite) or COPY
(PostgreSQL). On it, each timed at the median of ``--samples``:

    diff --last 20     `factline diff --last 20`: its ledger reads (queries.last_run_ids + diffs, a fresh session
                       each time), and the whole command run in-process (parse, settings, open, query, print)
    report --day       `factline report --day D --pipeline content` for random days: day_ledger + format_day, and
                       the command in-process
    runs               `factline runs` (the newest 20): listing.recent_runs, and the command in-process
    Today              the dashboard's /?day=D for random days, over HTTP from a real `factline web` process
    Run                the dashboard's /runs/N for random runs, over HTTP

and, for reference, `factline diff --last 20` as a new process (interpreter start and imports included). A
command in-process adds what every start costs whatever the ledger (argparse, settings, an engine): the
ledger reads are what grows with the ledger. Target: every median under 200 ms.

    python -m benchmarks.bench_ledger_scale                  1,000,000 runs (10M tool calls), both backends
    python -m benchmarks.bench_ledger_scale --short          10,000 runs (100k tool calls): CI
    python -m benchmarks.bench_ledger_scale --runs 300000 --keep-sqlite /tmp/l.db   keep (or reuse) a ledger

A kept ledger is reused when it already holds the asked number of runs; then nothing is generated.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo
from pathlib import Path
from typing import Any

import httpx
import psycopg
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session

from benchmarks.bench_dashboard import factline_web, timed
from benchmarks.bench_ledger_diff import ledger
from benchmarks.common import ROOT, Stats, machine, progress, save, table
from benchmarks.dashboard_ledger import generate
from pipeline.ledger import queries
from pipeline.ledger.daily import day_ledger
from pipeline.ledger.listing import recent_runs
from pipeline.report import format_day
from pipeline.web import read_only_ledger

TARGET_MS = 200
PER_DAY = 1_000


def held_runs(url: str) -> int:
    """How many runs the ledger at ``url`` holds (0 when it is not there yet)."""
    if url.startswith("sqlite") and not Path(url.split("///", 1)[1]).is_file():
        return 0
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM runs")).scalar() or 0)
    except Exception:  # no ledger tables yet
        return 0
    finally:
        engine.dispose()


def size_bytes(url: str) -> int:
    """The ledger's size on disk: the SQLite file (with its WAL), or pg_database_size."""
    if url.startswith("sqlite"):
        path = Path(url.split("///", 1)[1])
        return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.is_file())
    engine = create_engine(url)
    with engine.connect() as conn:
        size = int(conn.execute(text("SELECT pg_database_size(current_database())")).scalar() or 0)
    engine.dispose()
    return size


@contextmanager
def kept_postgres(name: str) -> Iterator[tuple[str, str]]:
    """A PostgreSQL database that outlives the benchmark (created when missing)."""
    from benchmarks.common import PG_ADMIN

    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    dsn = f"{PG_ADMIN.rsplit('/', 1)[0]}/{name}"
    yield dsn.replace("postgresql://", "postgresql+psycopg://"), dsn


def in_process(url: str, argv: list[str], samples: Callable[[], list[str]] | int) -> Stats:
    """Milliseconds of ``factline ARGV`` run by pipeline.cli.main in this process, its output discarded."""
    from pipeline.cli import main

    os.environ["DATABASE_URL"] = url
    runs: list[list[str]] = [argv] * samples if isinstance(samples, int) else [argv + extra for extra in samples()]
    timings = []
    for args in runs:
        started = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(args)
        timings.append(time.perf_counter() - started)
        assert code in (0, 1), (args, code)  # diff exits 1 when a listed run hallucinated
    return Stats.of(timings).scaled(1e3)


def ledger_reads(url: str, read: Callable[[Session, int], object], samples: int) -> Stats:
    """Milliseconds of ``read(session, i)`` in a fresh session each time, as one command does it."""
    sessions = read_only_ledger(url)
    timings = []
    for i in range(samples + 1):
        started = time.perf_counter()
        with sessions() as s:
            read(s, i)
        timings.append(time.perf_counter() - started)
    sessions.kw["bind"].dispose()
    return Stats.of(timings[1:]).scaled(1e3)  # the first one warms the engine


def as_process(url: str, argv: list[str], repeats: int) -> Stats:
    timings = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pipeline.cli", *argv], cwd=ROOT, capture_output=True, check=False,
                       env={**os.environ, "DATABASE_URL": url, "PYTHONPATH": str(ROOT)})
        timings.append(time.perf_counter() - started)
    return Stats.of(timings).scaled(1e3)


def measure(backend: str, url: str, runs: int, samples: int, generated_s: float | None) -> dict[str, Any]:
    rng = random.Random(11)
    today = datetime.now(timezone.utc).date()
    days = [(today - timedelta(days=d)).isoformat() for d in range(max(runs // PER_DAY, 1))]

    def some_days() -> list[list[str]]:
        return [["--day", rng.choice(days), "--pipeline", "content"] for _ in range(samples)]

    def report(s: Session, _: int) -> str:
        return format_day(day_ledger(s, date.fromisoformat(rng.choice(days)), ZoneInfo("UTC"), "content"))

    progress(f"{backend}: timing the ledger reads and the commands on {runs:,} runs")
    in_process(url, ["runs"], 2)  # warm imports and caches
    row: dict[str, Any] = {
        "backend": backend, "runs": runs, "tool_calls": runs * 10, "generate_s": generated_s,
        "size_bytes": size_bytes(url),
        "diff_ms": ledger_reads(url, lambda s, _: queries.diffs(s, queries.last_run_ids(s, 20)), samples),
        "report_ms": ledger_reads(url, report, samples),
        "runs_ms": ledger_reads(url, lambda s, _: recent_runs(s, 20), samples),
        "diff_command_ms": in_process(url, ["diff", "--last", "20"], samples),
        "report_command_ms": in_process(url, ["report"], some_days),
        "runs_command_ms": in_process(url, ["runs"], samples),
        "diff_process_ms": as_process(url, ["diff", "--last", "20"], 3),
    }
    progress(f"{backend}: timing the dashboard")
    nodelay = httpx.HTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
    with factline_web(url) as base, httpx.Client(base_url=base, timeout=60, transport=nodelay) as client:
        timed(client, ["/", f"/runs/{runs}"] * 2)
        row["today_ms"] = timed(client, [f"/?day={rng.choice(days)}" for _ in range(samples)])
        row["run_ms"] = timed(client, [f"/runs/{rng.randint(1, runs)}" for _ in range(samples)])
    return row


def bench_backend(backend: str, runs: int, samples: int, keep: str | None) -> dict[str, Any]:
    if keep is None:
        place = ledger(backend)
    elif backend == "sqlite":
        place = contextlib.nullcontext((f"sqlite:///{Path(keep).resolve()}", str(Path(keep).resolve())))
    else:
        place = kept_postgres(keep)
    with place as (url, _):
        generated_s = None
        held = held_runs(url)
        if held != runs:
            if held:
                raise SystemExit(f"{keep} holds {held:,} runs, not {runs:,}: remove it or ask for {held:,}")
            progress(f"{backend}: generating {runs:,} runs / {runs * 10:,} tool calls")
            started = time.perf_counter()
            generate(url, runs, PER_DAY)
            generated_s = time.perf_counter() - started
        else:
            progress(f"{backend}: reusing {keep} ({held:,} runs)")
        return measure(backend, url, runs, samples, generated_s)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="10,000 runs (100k tool calls), 5 samples: CI")
    parser.add_argument("--runs", type=int, help="runs in the ledger (default 1,000,000; --short 10,000)")
    parser.add_argument("--samples", type=int, help="samples per figure (default 30; --short 5)")
    parser.add_argument("--backend", choices=("sqlite", "postgresql"), action="append",
                        help="only this backend (default both)")
    parser.add_argument("--keep-sqlite", metavar="FILE", help="generate the SQLite ledger here, or reuse it")
    parser.add_argument("--keep-postgres", metavar="DBNAME", help="the same, as a PostgreSQL database")
    args = parser.parse_args(argv)
    runs = args.runs or (10_000 if args.short else 1_000_000)
    samples = args.samples or (5 if args.short else 30)
    results = [bench_backend(b, runs, samples, args.keep_sqlite if b == "sqlite" else args.keep_postgres)
               for b in args.backend or ("sqlite", "postgresql")]
    columns = ("diff_ms", "report_ms", "runs_ms", "today_ms", "run_ms")
    print(table(["backend", "runs", "tool calls", "on disk", "generated in", "diff --last 20 ms", "report --day ms",
                 "runs ms", "Today ms", "Run ms"],
                [[r["backend"], f"{r['runs']:,}", f"{r['tool_calls']:,}", f"{r['size_bytes'] / 2**30:.2f} GiB",
                  f"{r['generate_s']:.0f} s" if r["generate_s"] is not None else "reused",
                  *(r[c].fmt(1) for c in columns)] for r in results]))
    print("\nthe commands run whole, in-process, and diff as a new process:\n")
    print(table(["backend", "diff --last 20 ms", "report --day ms", "runs ms", "diff as a process ms"],
                [[r["backend"], r["diff_command_ms"].fmt(1), r["report_command_ms"].fmt(1), r["runs_command_ms"].fmt(1),
                  r["diff_process_ms"].fmt(0)] for r in results]))
    print(f"\nmedian (p10-p90) of {samples} samples each; load average {os.getloadavg()}")
    worst = max(r[c].median for r in results for c in columns)
    print(f"slowest median of the ledger reads and pages {worst:.1f} ms: target < {TARGET_MS} ms "
          f"{'met' if worst < TARGET_MS else 'NOT met'}")
    save("ledger_scale", {"runs": runs, "samples": samples, "machine": machine(), "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
