"""Registration numbers under concurrency: N processes registering publications on one day, on PostgreSQL.

    python -m benchmarks.bench_registrations            8 processes x 1250 = 10,000 registrations
    python -m benchmarks.bench_registrations --short    4 x 50

Each process opens a run and registers publications one after another through LedgerStore (one
transaction each: the day's counter row, incremented under its lock, and the registration row). Prints
the rate, the collisions (IntegrityErrors retried: 0 expected, the counter never hands out a number
twice) and whether the numbers are exactly 1..N.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time

from benchmarks.common import progress, save, table
from testkit.databases import fresh_pg_database


def _register(db_url: str, worker: int, count: int, start: multiprocessing.synchronize.Event,  # type: ignore[name-defined]
              results: multiprocessing.Queue) -> None:
    from sqlalchemy import text

    from pipeline.ledger import runs
    from pipeline.ledger.db import make_engine, session_factory
    from pipeline.ledger.store import LedgerStore

    sessions = session_factory(make_engine(db_url))
    pipeline = f"bench{worker}"
    with sessions.begin() as s:
        run_id = runs.open_run(s, trigger="manual", pipeline=pipeline)
        topic_id = s.execute(text("INSERT INTO topics (pipeline, title, first_seen_at) VALUES (:p, 't', now()) "
                                  "RETURNING id"), {"p": pipeline}).scalar()
        draft_id = s.execute(text("INSERT INTO drafts (run_id, topic_id, created_at) VALUES (:r, :t, now()) "
                                  "RETURNING id"), {"r": run_id, "t": topic_id}).scalar()
        version_id = s.execute(text("INSERT INTO draft_versions (draft_id, version, kind, title, body, created_at) "
                                    "VALUES (:d, 1, 'humanized', 't', 'b', now()) RETURNING id"),
                               {"d": draft_id}).scalar()
    store = LedgerStore(sessions, run_id, pipeline)
    publications = []
    for i in range(count):
        store.intend_publication(topic_id=topic_id, draft_version_id=version_id, target="local",
                                 key=f"bench:{pipeline}:{i}", digest="0" * 64)
        publications.append(store.complete_publication(key=f"bench:{pipeline}:{i}", external_id=f"{pipeline}-{i}",
                                                       url=f"http://127.0.0.1/{pipeline}/{i}").id)
    results.put(("ready", worker))
    start.wait()
    began = time.perf_counter()
    for publication_id in publications:
        store.add_registration(publication_id)
    results.put((worker, time.perf_counter() - began))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true")
    args = parser.parse_args(argv)
    processes, each = (4, 50) if args.short else (8, 1250)
    from sqlalchemy import text

    from pipeline.ledger.db import open_ledger

    ctx = multiprocessing.get_context("spawn")
    with fresh_pg_database() as db_url:
        open_ledger(db_url).kw["bind"].dispose()
        start, results = ctx.Event(), ctx.Queue()
        procs = [ctx.Process(target=_register, args=(db_url, i, each, start, results)) for i in range(processes)]
        for p in procs:
            p.start()
        progress(f"{processes} processes x {each} registrations")
        for _ in procs:  # every process has prepared its run and publications
            results.get(timeout=600)
        began = time.perf_counter()
        start.set()
        times = [results.get(timeout=1800) for _ in procs]
        wall = time.perf_counter() - began
        for p in procs:
            p.join(60)
        engine = open_ledger(db_url).kw["bind"]
        with engine.connect() as conn:
            numbers = [r[0] for r in conn.execute(text("SELECT number FROM registrations"))]
            counter = conn.execute(text("SELECT day, last FROM registration_counters")).all()
        engine.dispose()
    total = processes * each
    sequence = sorted(int(n.rsplit("-", 1)[1]) for n in numbers)
    duplicates = len(numbers) - len(set(numbers))
    row = [processes, total, len(numbers), duplicates, sequence == list(range(1, total + 1)), f"{wall:.1f}",
           f"{total / wall:.0f}", f"{max(t for _, t in times):.1f}"]
    print(table(["processes", "registrations", "rows", "duplicate numbers", "numbers are 1..N", "seconds",
                 "registrations/s", "slowest process (s)"], [row]))
    print(f"\ncounter rows: {counter}; highest number {max(numbers, key=lambda n: int(n.rsplit('-', 1)[1]))}")
    save("bench_registrations", {"short": args.short, "processes": processes, "registrations": total,
                                 "rows": len(numbers), "duplicates": duplicates,
                                 "consecutive": sequence == list(range(1, total + 1)), "seconds": round(wall, 2),
                                 "per_second": round(total / wall, 1)})
    return 0 if duplicates == 0 and len(numbers) == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
