"""``factline db upgrade``: create the ledger, or bring it to the latest migration."""

from __future__ import annotations

import argparse
from typing import Any

from config import Settings
from pipeline.commands.common import add_command, emit

NOTES = "Commands that write (run, daemon, probe run) do this by themselves; read-only commands never do."


def register(sub: Any) -> None:
    db = add_command(sub, "db", help="ledger maintenance", settings=("DATABASE_URL",),
                     examples=["factline db upgrade",
                               "DATABASE_URL=postgresql+psycopg://factline@127.0.0.1/factline factline db upgrade"])
    actions = db.add_subparsers(dest="db_command", required=True, metavar="{upgrade}")
    add_command(actions, "upgrade", help="create the ledger or apply the migrations it lacks", handler=cmd_upgrade,
                settings=("DATABASE_URL",), notes=NOTES, examples=["factline db upgrade"])


def cmd_upgrade(settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.ledger.db import open_ledger, shown_url

    open_ledger(settings.database_url)
    emit(f"ledger at {shown_url(settings.database_url)} is at the latest migration")
    return 0
