"""The command line: argument parsing and exit codes only; the work lives in pipeline.*.

Exit codes: 0 verified success, 1 unexpected error, 2 usage/config error, 3 hallucination,
4 verification failed (unverified, unavailable, incomplete), 5 budget or loop stop, 6 authentication.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from datetime import date

from loguru import logger

from config import ConfigError, Settings, load_settings
from pipeline import logs
from config.cron import time_zone
from pipeline.daemon import run_daemon
from pipeline.guard.cli import add_subcommands as add_guard_subcommands
from pipeline.ledger import queries
from pipeline.ledger.daily import day_ledger
from pipeline.ledger.db import open_ledger
from pipeline.ledger.detail import RunDetail, run_detail
from pipeline.localmodel import LocalModelError
from pipeline.localmodel.cli import add_subcommands as add_model_subcommands
from pipeline.outcome import StopRun
from pipeline.probe.cli import add_subcommands as add_probe_subcommands
from pipeline.report import format_day
from pipeline.runner import run_once
from pipeline.runtime import open_runtime

Handler = Callable[[Settings, argparse.Namespace], int]


def cmd_run(settings: Settings, args: argparse.Namespace) -> int:
    with open_runtime(settings) as runtime:
        result = run_once(runtime, topic=args.topic)
        with runtime.sessions() as s:
            detail = run_detail(s, result.run_id)
    assert detail is not None
    print(format_run_report(detail, result.seconds))
    return result.exit_code


def format_run_report(detail: RunDetail, seconds: float) -> str:
    """A short report, every figure from the ledger."""
    verdict = detail.verdict
    state = f"{verdict} (exit {verdict.exit_code})" if verdict else f"{detail.status} (no verdict yet)"
    lines = [f"run {detail.run_id}: {state} in {seconds:.1f} s, "
             f"model {detail.model} ({detail.tool_call_mode}), {detail.tokens} tokens"]
    for call in detail.tool_calls:
        reason = f" [{call.reason}]" if call.reason else ""
        lines.append(f"  {call.seq:>2}. {call.name:<12} {call.outcome}{reason}")
    for reg in detail.registrations:
        lines.append(f"  registered {reg.number} for {reg.url}")
    if detail.nudges:
        lines.append(f"  nudges: {len(detail.nudges)} ({', '.join(n.kind for n in detail.nudges)})")
    unbacked = [c for c in detail.claims if not c.backed]
    if unbacked:
        kinds = dict.fromkeys(f"{c.kind}:{c.capability or c.span}" for c in unbacked)
        lines.append(f"  unbacked claims: {', '.join(kinds)} (in {detail.hallucinations_caught()} turn(s))")
    if detail.error:
        lines.append(f"  stopped: {detail.stop_reason}: {detail.error}")
    return "\n".join(lines)


def cmd_runs(settings: Settings, args: argparse.Namespace) -> int:
    sessions = open_ledger(settings.database_url)
    with sessions() as s:
        if args.run is not None:
            detail = run_detail(s, args.run)
            if detail is None:
                print(f"no run {args.run}", file=sys.stderr)
                return 2
            print(json.dumps(detail.as_json(), indent=2, ensure_ascii=False) if args.json
                  else format_run_report(detail, 0.0))
            return 0
        rows = queries.recent_runs(s, args.limit)
    if args.json:
        print(json.dumps([r.__dict__ for r in rows], default=str, ensure_ascii=False))
        return 0
    for r in rows:
        print(f"{r.id:>5}  {r.started_at:%Y-%m-%d %H:%M:%S}  {r.trigger:<8} {r.status:<11} {r.verdict or '-':<12} "
              f"{r.stop_reason or ''}")
    return 0


def cmd_daemon(settings: Settings, args: argparse.Namespace) -> int:
    return run_daemon(settings, announce=lambda line: print(line, flush=True))


def cmd_report(settings: Settings, args: argparse.Namespace) -> int:
    tz = time_zone(settings.schedule_timezone)
    sessions = open_ledger(settings.database_url)
    with sessions() as s:
        print(format_day(day_ledger(s, args.day, tz)))
    return 0


def cmd_db_upgrade(settings: Settings, args: argparse.Namespace) -> int:
    open_ledger(settings.database_url)
    print("ledger is at the latest migration")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="factline", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="A scheduled LLM content pipeline whose success is judged by the ledger of what really ran.",
        epilog="\n".join(__doc__.splitlines()[2:]))
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run the pipeline once now")
    run.add_argument("--topic", help="use this topic instead of the next unused one")
    run.set_defaults(handler=cmd_run)

    runs = sub.add_parser("runs", help="recent runs, or one run's tool calls, claims and nudges")
    runs.add_argument("--run", type=int, help="show this run")
    runs.add_argument("--limit", type=int, default=20)
    runs.add_argument("--json", action="store_true")
    runs.set_defaults(handler=cmd_runs)

    daemon = sub.add_parser("daemon", help="run the pipeline on SCHEDULE_CRON until SIGTERM/SIGINT")
    daemon.set_defaults(handler=cmd_daemon)

    report = sub.add_parser("report", help="one day's runs, verdicts, publications and failures, from the ledger")
    report.add_argument("--day", type=date.fromisoformat, required=True, help="YYYY-MM-DD in SCHEDULE_TIMEZONE")
    report.set_defaults(handler=cmd_report)

    add_model_subcommands(sub)

    db = sub.add_parser("db", help="ledger maintenance")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_sub.add_parser("upgrade", help="apply migrations").set_defaults(handler=cmd_db_upgrade)

    add_probe_subcommands(sub)
    add_guard_subcommands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
    except ConfigError as exc:
        for line in exc.problems:
            print(f"factline: {line}", file=sys.stderr)
        return 2
    logs.configure(settings)
    return run_command(settings, args)


def run_command(settings: Settings, args: argparse.Namespace) -> int:
    """Run the parsed command; every exception that ends a command becomes its exit code here, and only here."""
    handler: Handler = args.handler
    try:
        return handler(settings, args)
    except ConfigError as exc:
        print(f"factline: {exc}", file=sys.stderr)
        return 2
    except StopRun as stop:  # a command outside a run (the probe suite) stopped by the endpoint
        print(f"factline: {stop.detail}", file=sys.stderr)
        return stop.verdict.exit_code
    except LocalModelError as exc:
        print(f"factline: local model: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception:
        logger.exception("factline.crashed")
        return 1


if __name__ == "__main__":
    sys.exit(main())
