"""``factline report``: one day of the ledger (runs, verdicts, publications, failures), as text or JSON."""

from __future__ import annotations

import argparse
from datetime import date, datetime, timedelta
from typing import Any

from config import Deployment, Settings
from config.cron import time_zone
from pipeline.commands.common import add_command, emit, reading_ledger, to_json

NOTES = """\
The day runs from midnight to midnight in SCHEDULE_TIMEZONE (named in the first line). The daemon logs
the same report at REPORT_CRON. Read-only: it never creates or migrates a ledger."""


def day_argument(text: str) -> str:
    """argparse type: 'today', 'yesterday' or a YYYY-MM-DD date (resolved later, in SCHEDULE_TIMEZONE)."""
    if text in ("today", "yesterday"):
        return text
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not today, yesterday or a YYYY-MM-DD date") from None


def resolve_day(text: str, now: datetime) -> date:
    """The date ``text`` names, where ``now`` is the current time in SCHEDULE_TIMEZONE."""
    if text == "today":
        return now.date()
    if text == "yesterday":
        return now.date() - timedelta(days=1)
    return date.fromisoformat(text)


def register(sub: Any) -> None:
    report = add_command(sub, "report", help="one day's runs, verdicts, publications and failures, from the ledger",
                         handler=cmd_report, settings=("DATABASE_URL", "SCHEDULE_TIMEZONE"), notes=NOTES,
                         examples=["factline report                  today",
                                   "factline report --day yesterday --json",
                                   "factline report --day 2026-01-31"])
    report.add_argument("--day", type=day_argument, default="today", metavar="DAY",
                        help="today (default), yesterday, or YYYY-MM-DD")
    report.add_argument("--json", action="store_true", help="print the day as one JSON object (with --pipeline; "
                                                            "otherwise one object per pipeline, by name)")
    report.add_argument("--pipeline", metavar="NAME", help="only this pipeline (default: every pipeline of the "
                                                           "pipelines file, each in its own SCHEDULE_TIMEZONE)")


def cmd_report(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.ledger.daily import day_ledger
    from pipeline.report import format_day

    from config import select

    chosen = [select(args.fleet, args.pipeline)] if args.pipeline else args.fleet
    ledgers = []
    with reading_ledger(deployment.ledger.url) as s:
        for p in chosen:
            tz = time_zone(p.settings.schedule_timezone)
            ledgers.append(day_ledger(s, resolve_day(args.day, datetime.now(tz)), tz, p.name))
    if len(ledgers) == 1:
        emit(to_json(ledgers[0], indent=2) if args.json else format_day(ledgers[0]))
    elif args.json:
        emit("{" + ", ".join(f'"{d.pipeline}": {to_json(d, indent=2)}' for d in ledgers) + "}")
    else:
        emit("\n\n".join(f"== pipeline {d.pipeline} ==\n{format_day(d)}" for d in ledgers))
    return 0
