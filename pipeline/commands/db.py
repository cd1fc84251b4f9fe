"""``factline db upgrade``: create the ledger, or bring it to the latest migration. ``factline db prune``: clear
the bulky texts of old runs (pipeline.ledger.prune), archiving them first when asked."""

from __future__ import annotations

import argparse
from datetime import date, datetime, time, timezone
from pathlib import Path
from typing import Any

from config import Deployment, Settings
from pipeline.commands.common import CommandError, add_command, emit

NOTES = "Commands that write (run, daemon, probe run) do this by themselves; read-only commands never do."
PRUNE_NOTES = """\
Clears, for every finished or interrupted run that started before DATE (midnight UTC): the model's text
of each turn, tool call arguments and result fields longer than 200 characters, the sources' extracted
texts (not of runs that published: `factline correct` checks against them), and the bodies of draft
versions no publication, correction, outbox intent or review names. Runs queued, running, awaiting review
or approved are never touched, nor are publications, registrations, retractions and corrections: the
published text stays. `factline diff`, `report`, `runs` and the dashboard still answer for those days,
showing "text pruned" where text was (docs/cli.md, "Retention").
In batches of 500 runs, each one transaction: safe to interrupt (even kill -9) and to run again, and
beside a running daemon. --archive appends each batch's texts to FILE as JSON Lines (one object per run),
fsynced before the batch's texts are cleared. The daemon prunes by itself with PRUNE_AFTER_DAYS."""


def register(sub: Any) -> None:
    db = add_command(sub, "db", help="ledger maintenance", settings=("DATABASE_URL",),
                     examples=["factline db upgrade",
                               "DATABASE_URL=postgresql+psycopg://factline@127.0.0.1/factline factline db upgrade",
                               "factline db prune --before 2026-06-01 --archive texts-2026-05.jsonl"])
    actions = db.add_subparsers(dest="db_command", required=True, metavar="{upgrade,prune}")
    add_command(actions, "upgrade", help="create the ledger or apply the migrations it lacks", handler=cmd_upgrade,
                settings=("DATABASE_URL",), notes=NOTES, examples=["factline db upgrade"])
    prune = add_command(actions, "prune", help="clear the bulky texts of runs started before a date",
                        handler=cmd_prune, settings=("DATABASE_URL", "PRUNE_*"), notes=PRUNE_NOTES,
                        examples=["factline db prune --before 2026-06-01",
                                  "factline db prune --before 2026-06-01 --archive var/pruned-2026-05.jsonl",
                                  "factline db prune --before 2026-06-01 --vacuum   and shrink the file"])
    prune.add_argument("--before", type=day, required=True, metavar="DATE",
                       help="prune runs started before this day (YYYY-MM-DD, from midnight UTC)")
    prune.add_argument("--archive", type=Path, metavar="FILE",
                       help="append the texts to FILE as JSON Lines before clearing them")
    prune.add_argument("--vacuum", action="store_true",
                       help="then compact the ledger: SQLite VACUUM (the file shrinks; writers wait meanwhile; needs "
                            "free disk the size of the file), PostgreSQL VACUUM ANALYZE")


def day(text: str) -> date:
    """argparse type: a YYYY-MM-DD date."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a YYYY-MM-DD date") from None


def cmd_upgrade(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.ledger.db import open_ledger, shown_url

    open_ledger(deployment.ledger.url)
    emit(f"ledger at {shown_url(deployment.ledger.url)} is at the latest migration")
    return 0


def cmd_prune(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.ledger.db import open_ledger, shown_url
    from pipeline.ledger.prune import ledger_size, prune, vacuum
    from pipeline.progress import Progress

    if args.before > datetime.now(timezone.utc).date():
        raise CommandError(f"--before {args.before} is in the future; name a day up to today")
    if args.archive is not None and not args.archive.parent.is_dir():
        raise CommandError(f"--archive {args.archive}: no folder {args.archive.parent}")
    sessions = open_ledger(deployment.ledger.url)
    engine = sessions.kw["bind"]
    before = datetime.combine(args.before, time(), tzinfo=timezone.utc)
    size = ledger_size(engine)
    with Progress("prune runs") as bar:
        done = prune(sessions, before, args.archive, progress=bar)
    if args.vacuum:
        emit("vacuuming the ledger ...")
        vacuum(engine)
    archived = f"; {done.archived:,} lines appended to {args.archive}" if args.archive is not None else ""
    emit(f"pruned {done.runs:,} runs started before {args.before} ({done.texts:,} texts cleared{archived}); "
         f"the ledger at {shown_url(deployment.ledger.url)}: {_mib(size)} -> {_mib(ledger_size(engine))}")
    return 0


def _mib(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB"
