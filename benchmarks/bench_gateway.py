"""Benchmark 1: the cost of one tool call through the gateway, against a bare SQLite INSERT + COMMIT.

One unit is ``Gateway.dispatch`` of a no-op capability (whitelist, strict schema, dedup, validate,
execute, one tool_calls row written and committed) plus ``pipeline.guard.inspect`` of a short reply.
The baseline is a raw ``sqlite3`` INSERT + COMMIT of a tool_calls row into the same WAL ledger file,
in the same process and run. Both are measured twice: with SQLite's default ``synchronous=FULL`` (what
the ledger ships with: every commit waits for fsync) and with ``synchronous=OFF`` on both connections,
which leaves only CPU. A cProfile of the unit shows where the time goes.

    python -m benchmarks.bench_gateway [--short]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sqlite3
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from sqlalchemy import event

from benchmarks.common import Stats, production_logs_to_devnull, progress, repeat, save, table
from benchmarks.noop import noop_catalog
from capabilities import CATALOG
from capabilities.base import CapabilityContext
from config import load_settings
from config.secrets import Redactor
from pipeline.gateway.budget import RunBudget, RunUsage
from pipeline.gateway.dispatch import Gateway
from pipeline.guard import Evidence, inspect
from pipeline.ledger.journal import RunJournal
from pipeline.ledger.runs import open_run
from pipeline.turns import ToolCallRequest
from pipeline.ledger.db import open_ledger
from pipeline.retry import RetryPolicy

REPLY = ("已完成：选题已确定，草稿已写好。The draft for topic 12 is written and humanized with a score of 82; "
         "next I will publish it to http://127.0.0.1:8765/articles/benchmarks.html and then register it.")
EVIDENCE = [("pick_topic", {"topic_id": 12, "title": "Benchmarks"}),
            ("humanize", {"draft_id": 3, "version_id": 5, "score": 82})]


class Unit:
    """One tool call and the guard's look at a reply, on a fresh ledger; ``bare`` is the baseline commit."""

    def __init__(self, folder: Path, synchronous: str) -> None:
        settings = load_settings(database_url=f"sqlite:///{folder}/ledger.db", openai_base_url="http://127.0.0.1:9/v1",
                                 run_max_tool_calls=10_000, run_max_turns=10_000)  # the largest budgets allowed; a full run makes ~6,600 calls
        production_logs_to_devnull()
        self.sessions = open_ledger(settings.deployment().ledger.url)
        engine = self.sessions.kw["bind"]
        event.listen(engine, "connect", lambda conn, _record: conn.execute(f"PRAGMA synchronous={synchronous}"))
        engine.dispose()
        with self.sessions.begin() as s:
            run_id = open_run(s, trigger="manual")
        self.journal = RunJournal(self.sessions, run_id, Redactor.of(settings.deployment(), settings))
        ctx = CapabilityContext(run_id=run_id, settings=settings, store=SimpleNamespace(run_id=run_id),  # type: ignore[arg-type]
                                http=None, text_model=None, target=None)  # type: ignore[arg-type]
        self.catalog = noop_catalog()
        self.gateway = Gateway(self.catalog, ctx, self.journal, RunUsage(RunBudget.from_settings(settings)),
                               RetryPolicy.from_settings(settings))
        self.calls = 0
        self.raw = sqlite3.connect(f"{folder}/ledger.db", timeout=30, isolation_level=None)
        for pragma in ("journal_mode=WAL", "foreign_keys=ON", "busy_timeout=30000", f"synchronous={synchronous}"):
            self.raw.execute(f"PRAGMA {pragma}")
        self.run_id, self.raw_seq = run_id, 10**8
        self.names = set(self.catalog)

    def dispatch(self) -> Any:
        """A write_draft call with a new topic id each time, so it executes instead of hitting dedup."""
        self.calls += 1
        call = ToolCallRequest(f"call_{self.calls}", "write_draft", f'{{"topic_id": {self.calls}, "angle": null}}')
        return self.gateway.dispatch(1, call)

    def guard(self) -> Any:
        return inspect(REPLY, Evidence.from_results({"pick_topic", "write_draft", "humanize"}, EVIDENCE, CATALOG),
                       self.names)

    def call_and_guard(self) -> None:
        self.dispatch()
        self.guard()

    def bare(self) -> None:
        """The floor: one INSERT of a comparable tool_calls row and a COMMIT, through sqlite3 directly."""
        self.raw_seq += 1
        self.raw.execute("BEGIN")
        self.raw.execute(
            "INSERT INTO tool_calls (run_id, seq, turn, call_id, name, arguments, outcome, result, attempts,"
            " latency_ms, created_at) VALUES (?, ?, 1, ?, 'write_draft', ?, 'ok', ?, 1, 0, CURRENT_TIMESTAMP)",
            (self.run_id, self.raw_seq, f"raw_{self.raw_seq}", '{"topic_id": 1, "angle": null}',
             '{"draft_id": 1, "version_id": 1}'))
        self.raw.execute("COMMIT")


def profile(unit: Unit, number: int, top: int = 15) -> tuple[str, float]:
    """cProfile of ``number`` units: the top entries by own time as text, and the share spent in sqlite3 commit."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(number):
        unit.call_and_guard()
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    entries = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in entries.values())
    commit = sum(entry[2] for key, entry in entries.items() if "commit' of 'sqlite3.Connection" in key[2])
    return out.getvalue(), commit / total


def measure(folder: Path, synchronous: str, runs: int, number: int) -> dict[str, Any]:
    """Every series of one SQLite setting, interleaved so that drift hits them alike; then a profile."""
    unit = Unit(folder, synchronous)
    repeat(unit.call_and_guard, 1, number)  # warm up: imports, statement caches, the WAL file
    repeat(unit.bare, 1, number)
    progress(f"synchronous={synchronous}: {runs} x {number} calls of each series")
    samples: dict[str, list[float]] = {name: [] for name in ("bare", "unit", "dispatch", "guard")}
    for _ in range(runs):
        samples["bare"] += repeat(unit.bare, 1, number)
        samples["unit"] += repeat(unit.call_and_guard, 1, number)
        samples["dispatch"] += repeat(unit.dispatch, 1, number)
        samples["guard"] += repeat(unit.guard, 1, number)
    profile_text, commit_share = profile(unit, number)
    unit.raw.close()
    return {"micros": {name: Stats.of(values).scaled(1e6) for name, values in samples.items()},
            "ratio": Stats.of([u / b for u, b in zip(samples["unit"], samples["bare"], strict=True)]),
            "commit_share": commit_share, "profile": profile_text}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="a few samples: checks that it runs")
    args = parser.parse_args(argv)
    runs, number = (3, 10) if args.short else (15, 200)
    results: dict[str, Any] = {}
    rows = []
    for synchronous in ("FULL", "OFF"):
        with tempfile.TemporaryDirectory() as folder:
            r = results[synchronous] = measure(Path(folder), synchronous, runs, number)
        micros, bare = r["micros"], r["micros"]["bare"].median
        rows += [
            [synchronous, "bare sqlite3 INSERT + COMMIT", micros["bare"].fmt(), "1.00"],
            [synchronous, "Gateway.dispatch (no-op) + guard.inspect", micros["unit"].fmt(), r["ratio"].fmt(2)],
            [synchronous, "  Gateway.dispatch alone", micros["dispatch"].fmt(), f"{micros['dispatch'].median / bare:.2f}"],
            [synchronous, "  guard.inspect alone", micros["guard"].fmt(), f"{micros['guard'].median / bare:.2f}"],
        ]
    print(table(["synchronous", "per tool call", "µs median (p10–p90)", "× bare commit"], rows))
    for synchronous, r in results.items():
        print(f"\nsynchronous={synchronous}: ratio {r['ratio'].median:.2f} (target < 3: "
              f"{'met' if r['ratio'].median < 3 else 'NOT met'}); {r['commit_share']:.0%} of the profiled unit "
              f"is sqlite3 commit\ncProfile, top by own time:\n{r['profile']}")
    save("gateway", {"runs": runs, "number": number, **results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
