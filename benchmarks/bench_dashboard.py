"""Benchmark 7: the dashboard's pages on a large ledger, SQLite and PostgreSQL, over real HTTP.

The ledger (benchmarks/dashboard_ledger.py) holds 100,000 runs and 1,000,000 tool calls, 1,000 runs a
day over 100 days. The dashboard is a real `factline web` process; httpx (TCP_NODELAY, as browsers and
curl set it) asks for whole HTML pages, one at a time, timed from request to last byte:

    Today          /?day=D for random days (1,000 runs each: totals, options, the first 50 rows)
    Today, page 10 /?day=D&page=10
    Today, filter  /?day=D&verdict=hallucinated&model=...
    Run            /runs/N for random runs (10 calls, 3 turns, claims, events, publication)
    Publications   /publications (newest 50)

Target: Today and Run under 200 ms at the median. ``--short``: 2,000 runs and a few samples (CI).

    python -m benchmarks.bench_dashboard [--short]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import httpx

from benchmarks.bench_ledger_diff import ledger
from benchmarks.common import ROOT, Stats, progress, save, table
from benchmarks.dashboard_ledger import MODELS, generate
from pipeline.web import read_only_ledger

TARGET_MS = 200


def timed(client: httpx.Client, paths: list[str]) -> Stats:
    samples = []
    for path in paths:
        started = time.perf_counter()
        answer = client.get(path)
        samples.append(time.perf_counter() - started)
        assert answer.status_code == 200, (path, answer.status_code, answer.text[:300])
    return Stats.of(samples).scaled(1e3)


@contextmanager
def factline_web(url: str) -> Iterator[str]:
    """`factline web --port 0` on the ledger at ``url``, in its own process; yields its base URL."""
    env = {**os.environ, "DATABASE_URL": url, "LOG_LEVEL": "WARNING", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "web", "--port", "0"], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        yield line.split("factline web: ", 1)[1].split()[0].rstrip("/")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def plan(sessions: Any, backend: str, day: str) -> str:
    """The plan of the Today page's list query: the day's range must come from ix_runs_started_at."""
    from sqlalchemy import text

    sql = (f"SELECT id FROM runs WHERE started_at >= '{day}' AND started_at < '{day} 23:59:59' "
           "ORDER BY pipeline, CASE WHEN verdict IS NULL THEN 1 WHEN verdict = 'success' THEN 2 ELSE 0 END, id DESC "
           "LIMIT 51")
    prefix = "EXPLAIN QUERY PLAN " if backend == "sqlite" else "EXPLAIN "
    with sessions() as s:
        return "\n".join(" ".join(str(c) for c in row) for row in s.execute(text(prefix + sql)))


def bench_backend(backend: str, runs: int, samples: int) -> dict[str, Any]:
    rng = random.Random(7)
    with ledger(backend) as (url, _):
        progress(f"{backend}: generating {runs:,} runs / {runs * 10:,} tool calls")
        started = time.perf_counter()
        today = generate(url, runs)
        generated = time.perf_counter() - started
        progress(f"{backend}: generated in {generated:.0f} s; timing the pages")
        days = [(today - timedelta(days=d)).date().isoformat() for d in range(max(runs // 1000, 1))]
        sessions = read_only_ledger(url)
        nodelay = httpx.HTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)])
        with factline_web(url) as base, httpx.Client(base_url=base, timeout=30, transport=nodelay) as client:
            timed(client, ["/", f"/runs/{runs}", "/publications"] * 2)  # warm the caches
            row = {
                "backend": backend, "runs": runs, "tool_calls": runs * 10, "generate_s": generated,
                "today_ms": timed(client, [f"/?day={rng.choice(days)}" for _ in range(samples)]),
                "today_page10_ms": timed(client, [f"/?day={rng.choice(days)}&page=10" for _ in range(samples)]),
                "today_filtered_ms": timed(client, [f"/?day={rng.choice(days)}&verdict=hallucinated&model={MODELS[1]}"
                                                    for _ in range(samples)]),
                "run_ms": timed(client, [f"/runs/{rng.randint(1, runs)}" for _ in range(samples)]),
                "publications_ms": timed(client, ["/publications"] * samples),
                "plan": plan(sessions, backend, days[0]),
            }
        sessions.kw["bind"].dispose()
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="2,000 runs, 5 samples: checks that it runs")
    args = parser.parse_args(argv)
    runs, samples = (2_000, 5) if args.short else (100_000, 40)
    results = [bench_backend(backend, runs, samples) for backend in ("sqlite", "postgresql")]
    columns = ("today_ms", "today_page10_ms", "today_filtered_ms", "run_ms", "publications_ms")
    print(table(["backend", "runs", "tool calls", "generated in", "Today ms", "Today p.10 ms", "Today filtered ms",
                 "Run ms", "Publications ms"],
                [[r["backend"], f"{r['runs']:,}", f"{r['tool_calls']:,}", f"{r['generate_s']:.0f} s",
                  *(r[c].fmt(1) for c in columns)] for r in results]))
    print("\nmedian (p10-p90) of", samples, "requests each, whole HTML page over HTTP")
    for r in results:
        print(f"\n{r['backend']} plan of the Today list query:\n{r['plan']}")
    worst = max(max(r["today_ms"].median, r["run_ms"].median) for r in results)
    print(f"\nslowest Today/Run median {worst:.1f} ms: target < {TARGET_MS} ms {'met' if worst < TARGET_MS else 'NOT met'}")
    save("dashboard", {"runs": runs, "samples": samples, "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
