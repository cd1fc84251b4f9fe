#!/usr/bin/env python3
"""The full-size EXECUTOR=celery trial: ten pipelines ticking every second for 30 s, three workers.

    python scripts/celery_chaos.py                 both phases; prints the table (paste into docs/celery.md)
    python scripts/celery_chaos.py --seconds 10    shorter

Phase "steady": one scheduler, three workers (2 slots each), PostgreSQL, RabbitMQ, the scripted model.
Phase "chaos": the same, while a random worker is SIGKILLed (and a new one started) every 3 s, the
scheduler is SIGKILLed once (restarted 2 s later) and RabbitMQ is restarted once (stop_app/start_app).
After the ticks stop a scheduler keeps reconciling until no run is queued or running; then the ledger
is compared with itself and with the pages the local target holds (testkit.fleet.trial and Audit; the
same phases run in make test as tests/pipeline/workers/test_celery_fleet.py).
Exit 1 unless both phases are clean.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testkit.databases import fresh_pg_database  # noqa: E402
from testkit.fleet import CHAOS, STEADY, trial  # noqa: E402
from testkit.scripted_model import ScriptedModel  # noqa: E402

BROKER = "amqp://guest:guest@127.0.0.1:5672//"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--pipelines", type=int, default=10)
    args = parser.parse_args(argv)
    rows = []
    clean = True
    for name, faults in (("steady", STEADY), ("chaos", CHAOS)):
        started = time.monotonic()
        work = Path(tempfile.mkdtemp(prefix=f"celery-{name}-"))
        with fresh_pg_database() as db_url, ScriptedModel() as model:
            audit, events = trial(db_url, BROKER, model.base_url, work, seconds=args.seconds,
                                  pipelines=args.pipelines, faults=faults,
                                  say=lambda line: print(f"  .. {name}: {line}", file=sys.stderr, flush=True))
        clean &= audit.clean
        rows.append((name, audit, events, time.monotonic() - started))
    print("| phase | ticks (runs) | gaps | verdicts | left queued/running | publications | pages on the target "
          "| topics published twice | duplicate numbers | runs continued after a kill | faults | result |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, a, events, _ in rows:
        faults = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in events.items())
        print(f"| {name} | {a.ticks} | {len(a.gaps)} | {a.verdicts} | {a.unclosed} | {a.publications} | {a.pages} "
              f"({a.pages_without_row} without a row, {a.rows_without_page} rows without a page) | "
              f"{a.topics_published_twice} | {a.duplicate_numbers} | {a.resumed} | {faults} | "
              f"{'clean' if a.clean else 'NOT CLEAN'} |")
    for name, a, _, seconds in rows:
        print(f"{name}: {a.pipelines} pipelines, ticks {a.first_tick:%H:%M:%S}-{a.last_tick:%H:%M:%S} UTC, "
              f"{seconds:.0f} s in all; runs sharing a topic {a.runs_sharing_a_topic}; not successful "
              f"(id, pipeline, verdict, reason, continued after a kill): {a.failed}")
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
