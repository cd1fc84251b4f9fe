"""Benchmark 3: ledger_diff (the last run, and ``--last 100``) as the ledger grows, on SQLite and PostgreSQL.

The ledger is grown in stages to 10k, 100k and 1M tool_calls rows (10 calls and 3 claims per run,
so 1k, 10k and 100k runs), bulk-loaded with executemany (SQLite) or COPY (PostgreSQL). At each stage
``queries.last_run_ids`` + ``queries.diffs`` are timed in-process, and ``scripts/ledger_diff.py`` is
timed end to end (interpreter start, migrations check, query, print) as a subprocess (not with --short). A PNG of
ledger size against time goes to docs/img/ledger_diff.png.

    python -m benchmarks.bench_ledger_diff [--short]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker

from benchmarks.common import IMAGES, PG_ADMIN, ROOT, Stats, progress, save, table
from pipeline.ledger import queries
from pipeline.ledger.db import open_ledger

CALLS_PER_RUN, CLAIMS_PER_RUN, BATCH_RUNS = 10, 3, 5_000
NAMES = ["pick_topic", "write_draft", "humanize", "publish", "register", "report",
         "publish", "pubilsh", "register", "report"]
OUTCOMES = ["ok"] * 6 + ["dedup", "rejected", "failed", "ok"]
CLAIMS = [("claim", "publish", "已发布"), ("claim", "register", "registered"), ("ungrounded", None, "http://x/1")]
STAMP = "2026-01-01 00:00:00.000000+00:00"
RUN_COLUMNS = ("id", "pipeline", "trigger", "started_at", "finished_at", "status", "verdict", "tokens_used")
CALL_COLUMNS = ("run_id", "seq", "turn", "call_id", "name", "arguments", "outcome", "result", "attempts",
                "latency_ms", "created_at")
CLAIM_COLUMNS = ("run_id", "turn", "kind", "capability", "span", "backed", "created_at")


def rows_for(first: int, last: int) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """Runs first..last with their tool calls and claims, as tuples in the *_COLUMNS order."""
    runs, calls, claims = [], [], []
    for run_id in range(first, last + 1):
        runs.append((run_id, "content", "schedule", STAMP, STAMP, "finished", "success", 700))
        for seq in range(1, CALLS_PER_RUN + 1):
            calls.append((run_id, seq, seq, f"call_{seq}", NAMES[seq - 1], '{"draft_id": 12}', OUTCOMES[seq - 1],
                          '{"draft_id": 12, "version_id": 13}', 1, 3, STAMP))
        for turn, (kind, capability, span) in enumerate(CLAIMS, start=1):
            claims.append((run_id, turn, kind, capability, span, capability is not None, STAMP))
    return runs, calls, claims


def _insert_sql(table_name: str, columns: tuple[str, ...]) -> str:
    return f"INSERT INTO {table_name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


def load_sqlite(path: str, first: int, last: int) -> None:
    with sqlite3.connect(path) as conn:
        for start in range(first, last + 1, BATCH_RUNS):
            runs, calls, claims = rows_for(start, min(start + BATCH_RUNS - 1, last))
            conn.executemany(_insert_sql("runs", RUN_COLUMNS), runs)
            conn.executemany(_insert_sql("tool_calls", CALL_COLUMNS), calls)
            conn.executemany(_insert_sql("claims", CLAIM_COLUMNS), claims)
            conn.commit()
            progress(f"sqlite: {min(start + BATCH_RUNS - 1, last) * CALLS_PER_RUN:,} tool_calls rows")


def load_postgres(dsn: str, first: int, last: int) -> None:
    with psycopg.connect(dsn) as conn:
        for start in range(first, last + 1, BATCH_RUNS):
            runs, calls, claims = rows_for(start, min(start + BATCH_RUNS - 1, last))
            with conn.cursor() as cur:
                for table_name, columns, rows in (("runs", RUN_COLUMNS, runs), ("tool_calls", CALL_COLUMNS, calls),
                                                  ("claims", CLAIM_COLUMNS, claims)):
                    with cur.copy(f"COPY {table_name} ({', '.join(columns)}) FROM STDIN") as copy:
                        for row in rows:
                            copy.write_row(row)
            conn.commit()
            progress(f"postgresql: {min(start + BATCH_RUNS - 1, last) * CALLS_PER_RUN:,} tool_calls rows")
        conn.execute("ANALYZE")
        conn.execute("SELECT setval(pg_get_serial_sequence('runs', 'id'), (SELECT max(id) FROM runs))")
        conn.commit()


@contextmanager
def ledger(backend: str) -> Iterator[tuple[str, str]]:
    """A fresh, migrated ledger: (SQLAlchemy URL, DBAPI address); dropped afterwards."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{folder}/ledger.db", f"{folder}/ledger.db"
        return
    name = f"factline_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    dsn = f"{PG_ADMIN.rsplit('/', 1)[0]}/{name}"
    try:
        yield dsn.replace("postgresql://", "postgresql+psycopg://"), dsn
    finally:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def time_diff(sessions: sessionmaker[Session], last: int, repeats: int) -> Stats:
    """Milliseconds for last_run_ids + diffs in a fresh session, as ledger_diff.py does."""
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        with sessions() as s:
            rows = queries.diffs(s, queries.last_run_ids(s, last))
        samples.append(time.perf_counter() - started)
        assert len(rows) == last
    return Stats.of(samples).scaled(1e3)


def time_cli(url: str, last: int, repeats: int) -> Stats:
    """Milliseconds for ``python scripts/ledger_diff.py --last N`` end to end."""
    samples = []
    env = {**os.environ, "DATABASE_URL": url}
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "scripts/ledger_diff.py", "--last", str(last)], cwd=ROOT, env=env,
                       capture_output=True, check=False)
        samples.append(time.perf_counter() - started)
    return Stats.of(samples).scaled(1e3)


def query_plan(sessions: sessionmaker[Session], backend: str) -> str:
    """The plan of the heaviest statement of diffs(): the ok tool calls of 100 runs."""
    sql = ("SELECT DISTINCT run_id, name FROM tool_calls WHERE run_id IN (SELECT id FROM runs ORDER BY id DESC "
           "LIMIT 100) AND outcome = 'ok'")
    prefix = "EXPLAIN QUERY PLAN " if backend == "sqlite" else "EXPLAIN "
    with sessions() as s:
        return "\n".join(" ".join(str(c) for c in row) for row in s.execute(text(prefix + sql)))


def bench_backend(backend: str, stages: list[int], repeats: int, cli: bool) -> list[dict[str, Any]]:
    results = []
    with ledger(backend) as (url, address):
        sessions = open_ledger(url)
        loaded = 0
        for calls in stages:
            runs = calls // CALLS_PER_RUN
            progress(f"{backend}: growing the ledger to {runs:,} runs / {calls:,} tool_calls rows")
            (load_sqlite if backend == "sqlite" else load_postgres)(address, loaded + 1, runs)
            loaded = runs
            progress(f"{backend}: timing ledger_diff at {calls:,} rows")
            row = {"backend": backend, "tool_calls": calls, "runs": runs,
                   "last_1_ms": time_diff(sessions, 1, repeats), "last_100_ms": time_diff(sessions, 100, repeats)}
            if cli:
                row["cli_last_1_ms"] = time_cli(url, 1, repeats // 5)
                row["cli_last_100_ms"] = time_cli(url, 100, repeats // 5)
            results.append(row)
        results[-1]["plan"] = query_plan(sessions, backend)
        sessions.kw["bind"].dispose()
    return results


def chart(results: list[dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for backend in ("sqlite", "postgresql"):
        points = [r for r in results if r["backend"] == backend]
        for key, label in (("last_1_ms", "last run"), ("last_100_ms", "--last 100")):
            ax.plot([r["tool_calls"] for r in points], [r[key].median for r in points], marker="o",
                    label=f"{backend}, {label}")
    ax.set(xscale="log", xlabel="tool_calls rows in the ledger", ylabel="ms (median, in-process)",
           title="ledger_diff time vs ledger size")
    ax.set_ylim(bottom=0)
    ax.legend()
    ax.grid(alpha=0.3)
    IMAGES.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(IMAGES / "ledger_diff.png", dpi=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="small ledgers, no chart: checks that it runs")
    args = parser.parse_args(argv)
    stages, repeats = ([1_000], 2) if args.short else ([10_000, 100_000, 1_000_000], 15)
    results = [r for backend in ("sqlite", "postgresql") for r in bench_backend(backend, stages, repeats, not args.short)]
    print(table(["backend", "tool_calls rows", "runs", "last run ms", "--last 100 ms", "CLI last run ms",
                 "CLI --last 100 ms"],
                [[r["backend"], f"{r['tool_calls']:,}", f"{r['runs']:,}", r["last_1_ms"].fmt(2),
                  r["last_100_ms"].fmt(2), r["cli_last_1_ms"].fmt(0) if "cli_last_1_ms" in r else "-",
                  r["cli_last_100_ms"].fmt(0) if "cli_last_100_ms" in r else "-"] for r in results]))
    for r in results:
        if "plan" in r:
            print(f"\n{r['backend']} plan of the tool_calls query at {r['tool_calls']:,} rows:\n{r['plan']}")
    worst = max(max(r["last_1_ms"].median, r["last_100_ms"].median) for r in results)
    print(f"\nslowest in-process median {worst:.1f} ms: target < 1000 ms {'met' if worst < 1000 else 'NOT met'}")
    if not args.short:
        chart(results)
    save("ledger_diff", {"stages": stages, "repeats": repeats, "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
