"""``factline runs``: the newest runs as a table (or JSON), or one run's whole record with --run N."""

from __future__ import annotations

import argparse
from typing import Any

from config import Deployment, Settings
from pipeline.commands.common import (
    NoSuchRun,
    add_command,
    emit,
    local_zone,
    positive_int,
    reading_ledger,
    shown_time,
    to_json,
    zone_label,
)

NOTES = """\
Columns: run id, start time, how long it took, trigger (manual or schedule), verdict (or status while it
runs), model, topic and the URL it published. Times are in this machine's time zone, named in the header;
--utc shows UTC. JSON times are ISO 8601 with their UTC offset; durations are seconds.
Read-only: it never creates or migrates a ledger."""

TOPIC_WIDTH = 40


def register(sub: Any) -> None:
    runs = add_command(sub, "runs", help="the newest runs as a table, or one run's calls, claims and nudges",
                       handler=cmd_runs, settings=("DATABASE_URL",), notes=NOTES,
                       examples=["factline runs", "factline runs --limit 5 --utc", "factline runs --run 12",
                                 "factline runs --json | jq '.[0].verdict'"])
    runs.add_argument("--run", type=positive_int, metavar="N", help="show run N: its verdict, every tool call "
                                                                     "with outcome and reason, claims, nudges")
    runs.add_argument("--limit", type=positive_int, default=20, metavar="N",
                      help="how many of the newest runs to list (default 20)")
    runs.add_argument("--json", action="store_true",
                      help="JSON instead of a table: a list of runs, or with --run the run's whole record")
    runs.add_argument("--utc", action="store_true", help="show times in UTC instead of the local time zone")


def duration(seconds: float | None) -> str:
    """53 s, 4 min 12 s, 1 h 02 min; '-' while running."""
    if seconds is None:
        return "-"
    whole = round(seconds)
    if whole < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _cut(text: str | None, width: int) -> str:
    if not text:
        return "-"
    return text if len(text) <= width else text[: width - 1] + "…"


def table(headers: list[str], rows: list[list[str]], right: frozenset[int] = frozenset()) -> list[str]:
    """Aligned columns, two spaces apart; the last column is not padded."""
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        padded = [cell.rjust(w) if i in right else cell.ljust(w) for i, (cell, w) in enumerate(zip(cells, widths))]
        padded[-1] = cells[-1].rjust(widths[-1]) if len(cells) - 1 in right else cells[-1]
        return "  ".join(padded).rstrip()

    return [line(headers), *(line(row) for row in rows)]


def cmd_runs(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.ledger.detail import run_detail
    from pipeline.ledger.listing import recent_runs
    from pipeline.report import format_run

    with reading_ledger(deployment.ledger.url) as s:
        if args.run is not None:
            detail = run_detail(s, args.run)
            if detail is None:
                raise NoSuchRun(args.run)
            emit(to_json(detail.as_json(), indent=2) if args.json else format_run(detail))
            return 0
        rows = recent_runs(s, args.limit)
    if args.json:
        emit(to_json(rows))
        return 0
    if not rows:
        emit("no runs in the ledger yet")
        return 0
    zone = local_zone(args.utc)
    body = [[str(r.run_id), shown_time(r.started_at, zone), duration(r.seconds), r.trigger, r.verdict or r.status,
             r.model or "-", _cut(r.topic, TOPIC_WIDTH), r.url or "-"] for r in rows]
    for line in table(["RUN", f"STARTED ({zone_label(zone)})", "TOOK", "TRIGGER", "VERDICT", "MODEL", "TOPIC", "URL"],
                      body, right=frozenset({0})):
        emit(line)
    return 0
