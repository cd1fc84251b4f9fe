"""``factline diff``: the claim-vs-fact audit (also ``python scripts/ledger_diff.py``, a one-line wrapper)."""

from __future__ import annotations

import argparse
from typing import Any

from config import Deployment, Settings
from pipeline.commands.common import NoSuchRun, add_command, emit, positive_int, reading_ledger, to_json

SUMMARY = "what the model claimed, what the system executed, and the difference"
NOTES = """\
One line per run: verdict, claimed, called, hallucinated (= claimed - called), ungrounded (URLs or
registration numbers no tool result holds), prose_calls (tool calls written as text), then counts of
rejected/failed/dedup calls, shadow attempts, retries, escalations and stops.
Read-only: it never creates or migrates a ledger. Exit 1 when a listed run has hallucinations."""


def register(sub: Any) -> None:
    diff = add_command(sub, "diff", help=SUMMARY, handler=cmd_diff, settings=("DATABASE_URL",), notes=NOTES,
                       examples=["factline diff                 the last run",
                                 "factline diff --run 12        one run",
                                 "factline diff --last 20 --json",
                                 "python scripts/ledger_diff.py --last 5   the same, as a script"])
    which = diff.add_mutually_exclusive_group()
    which.add_argument("--run", type=positive_int, metavar="N", help="audit run N")
    which.add_argument("--last", type=positive_int, metavar="N", help="audit the N newest runs (default 1)")
    diff.add_argument("--json", action="store_true",
                      help="a JSON list of {run_id, verdict, claimed, called, hallucinated, ungrounded, "
                           "prose_calls, counts}")


def cmd_diff(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.ledger import listing, queries

    with reading_ledger(deployment.ledger.url) as s:
        ids = [args.run] if args.run is not None else queries.last_run_ids(s, args.last or 1)
        if args.run is not None and not listing.run_exists(s, args.run):
            raise NoSuchRun(args.run)
        rows = queries.diffs(s, ids)
    if args.json:
        emit(to_json([r.as_dict() for r in rows]))
        return 1 if any(r.has_hallucinations for r in rows) else 0
    if not rows:
        emit("no runs in the ledger")
    for r in rows:
        emit(r.line())
    return 1 if any(r.has_hallucinations for r in rows) else 0
