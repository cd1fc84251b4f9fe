"""``factline daemon``: run the pipeline on SCHEDULE_CRON until SIGTERM/SIGINT (docs/daemon.md)."""

from __future__ import annotations

import argparse
from typing import Any

from config import Deployment, Settings
from pipeline.commands.common import add_command, emit

NOTES = """\
Each tick is claimed in the ledger, so several daemons may share one PostgreSQL ledger. At REPORT_CRON it
logs the day's report and alerts ALERT_WEBHOOK_URL when the day has no publication; every run whose verdict
is not success alerts too. /metrics and /healthz are served on METRICS_HOST:METRICS_PORT. SIGTERM or
SIGINT: no new run starts, the run in flight stops before its next step, exit 0.
With PRUNE_AFTER_DAYS set it clears, at PRUNE_CRON (UTC), the bulky texts of runs older than that many
days, as `factline db prune` does; with PRUNE_ARCHIVE_DIR it first appends them to prune-<UTC date>.jsonl
in that folder.
Without OPENAI_BASE_URL it starts the embedded model first (see `factline run --help`)."""


def register(sub: Any) -> None:
    add_command(sub, "daemon", help="run the pipeline on SCHEDULE_CRON until SIGTERM/SIGINT", handler=cmd_daemon,
                settings=("*", "!PROBE_*"), notes=NOTES,
                examples=["factline daemon",
                          "SCHEDULE_CRON='0 6 * * 1-5' SCHEDULE_TIMEZONE=Asia/Shanghai factline daemon",
                          "ALERT_WEBHOOK_URL=https://hooks.slack.com/services/... factline daemon",
                          "PRUNE_AFTER_DAYS=90 factline daemon   keep 90 days of the model's texts"])


def cmd_daemon(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.daemon import run_daemon

    return run_daemon(deployment, [p.settings for p in args.fleet], announce=emit)
