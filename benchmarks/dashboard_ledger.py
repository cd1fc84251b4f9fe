"""A large ledger for the dashboard benchmark: N runs spread over the days ending today, bulk-loaded.

    python -m benchmarks.dashboard_ledger --runs 100000 sqlite:////tmp/big.db
    python -m benchmarks.dashboard_ledger --runs 100000 postgresql+psycopg://postgres@127.0.0.1:5432/big

Per run: 10 tool calls (with a dedup, a shadow and a retried call among them), 3 model turns with text,
2 claims, a topic, one source read (with its extracted text); 85% of runs succeed with a draft (a first
version and its humanized one, published), a verified publication and a registration; the rest
end hallucinated (with 2 nudges), unverified, incomplete or unavailable. Two pipelines, three models,
1,000 runs a day by default. So 100,000 runs make 1,000,000 tool_calls rows.

Rows are written with sqlite3 ``executemany`` (SQLite) or ``COPY`` (PostgreSQL) in batches of 5,000 runs,
after the migrations created the schema; a progress line per batch goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Callable
from datetime import datetime, time, timedelta, timezone
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

from benchmarks.common import progress
from pipeline.ledger.db import open_ledger

CALLS_PER_RUN, BATCH = 10, 5_000
STEPS = ["pick_topic", "pick_topic", "write_draft", "humanize", "publish_article", "publish", "publish", "register",
         "report", "report"]
OUTCOMES = ["ok", "dedup", "ok", "ok", "rejected", "ok", "dedup", "ok", "ok", "dedup"]
MODELS = ["qwen2.5-coder-0.5b-instruct", "gpt-4o-mini", "llama-3.1-8b"]
FAILURES = ["hallucinated", "unverified", "incomplete", "unavailable"]
SOURCE_SENTENCE = "Ledgers record what a system executed. "
TEXTS = ["", "Published the article and registered it.",
         "Done. The post is live at http://127.0.0.1:8765/a.html, registration CT-20260101-001, score 82."]

TABLES: dict[str, tuple[str, ...]] = {
    "topics": ("id", "title", "first_seen_at"),
    "runs": ("id", "pipeline", "trigger", "started_at", "finished_at", "status", "verdict", "stop_reason", "error",
             "model", "prompt_version", "catalog_version", "tool_call_mode", "topic_id", "tokens_used"),
    "tool_calls": ("run_id", "seq", "turn", "call_id", "name", "arguments", "outcome", "reason", "shadow_of", "result",
                   "attempts", "latency_ms", "created_at"),
    "turns": ("run_id", "turn", "text", "calls", "tokens", "created_at"),
    "claims": ("run_id", "turn", "kind", "capability", "span", "backed", "created_at"),
    "nudges": ("run_id", "turn", "kind", "detail", "created_at"),
    "run_events": ("run_id", "kind", "detail", "created_at"),
    "sources": ("run_id", "topic_id", "number", "source", "final_url", "status", "ok", "title", "digest", "text",
                "fetched_at"),
    "drafts": ("id", "run_id", "topic_id", "created_at"),
    "draft_versions": ("id", "draft_id", "version", "kind", "title", "body", "score", "scorer", "created_at"),
    "publications": ("id", "run_id", "topic_id", "draft_version_id", "target", "external_id", "url",
                     "idempotency_key", "http_status", "verified_at", "created_at"),
    "registrations": ("id", "run_id", "publication_id", "number", "created_at"),
}


def start_of(run_id: int, runs: int, per_day: int, today: datetime) -> datetime:
    """Run ids run oldest to newest; the last ``per_day`` start on ``today``."""
    days_back = (runs - run_id) // per_day
    within = (run_id - 1) % per_day
    return today - timedelta(days=days_back) + timedelta(seconds=within * 86_000 / per_day)


def batch(first: int, last: int, runs: int, per_day: int, today: datetime,
          stamp: Callable[[datetime], Any], source_chars: int = 600) -> dict[str, list[tuple[Any, ...]]]:
    """The rows of runs first..last, per table, in TABLES' column order."""
    out: dict[str, list[tuple[Any, ...]]] = {name: [] for name in TABLES}
    source_text = (SOURCE_SENTENCE * (source_chars // len(SOURCE_SENTENCE) + 1))[:source_chars]
    for run_id in range(first, last + 1):
        started = start_of(run_id, runs, per_day, today)
        at = stamp(started)
        done = stamp(started + timedelta(seconds=40 + run_id % 30))
        ok = run_id % 20 not in (3, 7, 11)  # 85% success
        verdict = "success" if ok else FAILURES[run_id % 4]
        stop = "nudges_exhausted" if verdict == "hallucinated" else None
        out["topics"].append((run_id, f"Topic number {run_id}: why ledgers beat logs", at))
        out["runs"].append((run_id, "content" if run_id % 5 else "digest", "schedule", at, done, "finished", verdict,
                            stop, "claimed but not executed" if stop else None, MODELS[run_id % 3], "9f1e6043a44b",
                            "7da43b7870a5", "native", run_id, 1400))
        for seq in range(1, CALLS_PER_RUN + 1):
            name, outcome = STEPS[seq - 1], OUTCOMES[seq - 1]
            out["tool_calls"].append((
                run_id, seq, (seq + 2) // 3, f"call_{seq}", name, json.dumps({"version_id": run_id}), outcome,
                "shadow" if name == "publish_article" else ("duplicate_call" if outcome == "dedup" else None),
                "publish" if name == "publish_article" else None,
                json.dumps({"publication_id": run_id, "url": f"http://127.0.0.1:8765/a-{run_id}.html"}),
                3 if seq == 6 else 1, 40 + seq, at))
        for turn in (1, 2, 3):
            out["turns"].append((run_id, turn, TEXTS[turn - 1] * (1 if turn < 3 else 4), 3, 470, at))
        out["claims"].append((run_id, 2, "claim", "publish", "Published", ok, at))
        out["claims"].append((run_id, 3, "ungrounded", None, "CT-20260101-001", ok, at))
        out["run_events"].append((run_id, "tool_retry", json.dumps({"tool": "publish", "attempt": 1, "wait": 0.5}), at))
        out["run_events"].append((run_id, "tool_retry", json.dumps({"tool": "publish", "attempt": 2, "wait": 1.0}), at))
        if verdict == "hallucinated":
            out["nudges"] += [(run_id, 2, "hallucination", "claim:publish", at),
                              (run_id, 3, "hallucination", "ungrounded:CT-20260101-001", at)]
        out["sources"].append((run_id, run_id, 1, f"http://127.0.0.1:8765/src-{run_id}.html", None, 200, True,
                               "A source", "0" * 64, source_text, at))
        if ok:  # version ids 2n-1 (the draft) and 2n (humanized, published)
            out["drafts"].append((run_id, run_id, run_id, at))
            out["draft_versions"].append((2 * run_id - 1, run_id, 1, "draft", f"Topic {run_id}", "Draft. " * 40, None,
                                          None, at))
            out["draft_versions"].append((2 * run_id, run_id, 2, "humanized", f"Topic {run_id}", "Body. " * 40, 82,
                                          "textscore", at))
            out["publications"].append((run_id, run_id, run_id, 2 * run_id, "local", f"a-{run_id}",
                                        f"http://127.0.0.1:8765/a-{run_id}.html", f"publish:local:topic-{run_id}",
                                        200, done, at))
            out["registrations"].append((run_id, run_id, run_id, f"CT-{started:%Y%m%d}-{run_id:06d}", done))
    return out


def _sqlite_stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S.%f")  # as SQLAlchemy stores DateTime in SQLite


def load_sqlite(path: str, runs: int, per_day: int, today: datetime, source_chars: int) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA synchronous=OFF")
        for first in range(1, runs + 1, BATCH):
            last = min(first + BATCH - 1, runs)
            for name, rows in batch(first, last, runs, per_day, today, _sqlite_stamp, source_chars).items():
                if rows:
                    columns = TABLES[name]
                    conn.executemany(f"INSERT INTO {name} ({', '.join(columns)}) VALUES "
                                     f"({', '.join('?' * len(columns))})", rows)
            conn.commit()
            progress(f"sqlite: {last:,} runs / {last * CALLS_PER_RUN:,} tool calls")
        conn.execute("ANALYZE")


def load_postgres(dsn: str, runs: int, per_day: int, today: datetime, source_chars: int) -> None:
    with psycopg.connect(dsn) as conn:
        for first in range(1, runs + 1, BATCH):
            last = min(first + BATCH - 1, runs)
            with conn.cursor() as cur:
                for name, rows in batch(first, last, runs, per_day, today, lambda when: when, source_chars).items():
                    with cur.copy(f"COPY {name} ({', '.join(TABLES[name])}) FROM STDIN") as copy:
                        for row in rows:
                            copy.write_row(row)
            conn.commit()
            progress(f"postgresql: {last:,} runs / {last * CALLS_PER_RUN:,} tool calls")
        for name in ("topics", "runs", "drafts", "draft_versions", "publications", "registrations"):
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), (SELECT max(id) FROM {name}))")
        conn.commit()
        conn.autocommit = True
        conn.execute("VACUUM ANALYZE")


def generate(url: str, runs: int, per_day: int = 1_000, source_chars: int = 600) -> datetime:
    """Migrate ``url`` and load ``runs`` runs ending today (UTC); returns the first moment of today."""
    open_ledger(url).kw["bind"].dispose()
    today = datetime.combine(datetime.now(timezone.utc).date(), time(), tzinfo=timezone.utc)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        load_sqlite(str(parsed.database), runs, per_day, today, source_chars)
    else:
        load_postgres(parsed.set(drivername="postgresql").render_as_string(hide_password=False), runs, per_day,
                      today, source_chars)
    return today


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", help="an empty ledger's DATABASE_URL (sqlite:///... or postgresql+psycopg://...)")
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--per-day", type=int, default=1_000)
    parser.add_argument("--source-chars", type=int, default=600, help="the length of each source's extracted text")
    args = parser.parse_args(argv)
    generate(args.url, args.runs, args.per_day, args.source_chars)
    return 0


if __name__ == "__main__":
    sys.exit(main())
