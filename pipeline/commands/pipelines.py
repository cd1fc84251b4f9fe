"""`factline pipelines` and `factline config show`: what is configured, and where each value came from.

Both read the pipelines file (config.pipelines) and, for the last verdict, the ledger without
migrating or creating it.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timezone
from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError

from config import Deployment, Pipeline, Settings
from config.pipelines import config_path, select as select_pipeline
from config.cron import cron_trigger, time_zone
from pipeline.ledger.db import LedgerError, read_ledger
from pipeline.ledger.models import Run
from pipeline.outcome import CLOSED


def register_pipelines(sub: Any) -> None:
    from pipeline.commands.common import add_command

    listing = add_command(sub, "pipelines", help="the configured pipelines, their next fire time and last verdict",
                          handler=cmd_pipelines, settings=("DATABASE_URL", "SCHEDULE_CRON", "SCHEDULE_TIMEZONE"),
                          notes="The pipelines come from FACTLINE_CONFIG (or ./factline.toml); without a file there is "
                                "one, 'content', configured by the environment (docs/celery.md). Read-only.",
                          examples=["factline pipelines", "FACTLINE_CONFIG=/etc/factline/factline.toml factline "
                                                          "pipelines --json"])
    listing.add_argument("--json", action="store_true", help="one JSON array instead of a table")


def register_config(sub: Any) -> None:
    from pipeline.commands.common import add_command

    config = add_command(sub, "config", help="the effective settings", settings=("*",),
                         examples=["factline config show", "factline config show --pipeline blog-zh --json"])
    config_sub = config.add_subparsers(dest="config_command", required=True)
    show = add_command(config_sub, "show", help="each pipeline's effective settings, secrets masked, with their source",
                       handler=cmd_config_show, settings=("*",),
                       notes="Sources, highest first: the pipeline's table > [defaults] > environment > .env > "
                             "built-in default.",
                       examples=["factline config show", "factline config show --pipeline blog-zh --json"])
    show.add_argument("--pipeline", metavar="NAME", help="only this pipeline")
    show.add_argument("--json", action="store_true", help="{pipeline: {setting: {value, source}}}")


def cmd_pipelines(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    rows = [_row(p, last) for p, last in zip(args.fleet, _last_runs(deployment, args.fleet))]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    source = config_path() or "environment (no pipelines file)"
    print(f"{len(rows)} pipeline(s) from {source}; executor {deployment.executor.kind}")
    header = f"{'NAME':<20} {'SCHEDULE':<18} {'TIMEZONE':<16} {'NEXT FIRE TIME':<26} {'LAST VERDICT':<13} LAST RUN"
    print(header)
    for r in rows:
        print(f"{r['name']:<20} {r['schedule_cron']:<18} {r['schedule_timezone']:<16} {r['next_fire_time']:<26} "
              f"{r['last_verdict'] or '-':<13} {r['last_run_at'] or '-'}")
    return 0


def cmd_config_show(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    chosen = [select_pipeline(args.fleet, args.pipeline)] if args.pipeline else args.fleet
    tables = {p.name: args.config.rows(p) for p in chosen}  # each pipeline's settings with the deployment's
    if args.json:
        print(json.dumps({name: {k: {"value": value, "source": source} for k, (value, source) in rows.items()}
                          for name, rows in tables.items()}, ensure_ascii=False))
        return 0
    for i, (name, rows) in enumerate(tables.items()):
        if i:
            print()
        print(f"[pipeline {name}]")
        width = max(map(len, rows))
        for key, (value, source) in rows.items():
            print(f"{key:<{width}} = {value:<40} # {source}")
    return 0


def _row(p: Pipeline, last: tuple[str | None, datetime | None]) -> dict[str, Any]:
    s = p.settings
    tz = time_zone(s.schedule_timezone)
    trigger = cron_trigger(s.schedule_cron, tz, "SCHEDULE_CRON")
    fire = trigger.get_next_fire_time(None, datetime.now(tz))
    verdict, at = last
    return {"name": p.name, "schedule_cron": s.schedule_cron, "schedule_timezone": s.schedule_timezone,
            "next_fire_time": fire.isoformat() if fire else "never", "last_verdict": verdict,
            "last_run_at": at.isoformat() if at else None, "publish_target": s.publish_target,
            "language": s.language}


def _last_runs(deployment: Deployment, fleet: Sequence[Pipeline]) -> list[tuple[str | None, datetime | None]]:
    """Each pipeline's latest closed run (verdict, start time in UTC); nothing when there is no ledger yet."""
    try:
        sessions = read_ledger(deployment.ledger.url)
        with sessions() as s:
            latest = select(Run.pipeline, func.max(Run.id).label("id")).where(
                Run.status.in_(CLOSED)).group_by(Run.pipeline).subquery()
            rows = s.execute(select(Run.pipeline, Run.verdict, Run.started_at).join(latest, latest.c.id == Run.id))
            found = {r.pipeline: (r.verdict, _utc(r.started_at)) for r in rows}
    except (SQLAlchemyError, LedgerError):
        found = {}
    return [found.get(p.name, (None, None)) for p in fleet]


def _utc(when: datetime) -> datetime:
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when
