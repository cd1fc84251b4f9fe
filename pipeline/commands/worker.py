"""`factline worker`: a Celery worker executing the ticks the daemon claimed (EXECUTOR=celery)."""

from __future__ import annotations

import argparse
from typing import Any

from config import Deployment, Settings
from pipeline.commands.common import CommandError, add_command


def register(sub: Any) -> None:
    worker = add_command(
        sub, "worker", help="run claimed ticks from the broker (EXECUTOR=celery)", handler=cmd_worker,
        settings=("EXECUTOR", "CELERY_*", "RUN_HEARTBEAT_SECONDS", "DATABASE_URL", "OPENAI_BASE_URL", "RUN_MAX_SECONDS"),
        notes="A Celery worker for every pipeline of the pipelines file: it takes the ticks `factline daemon` claimed "
              "and sent to CELERY_BROKER_URL and runs them. Uses each pipeline's OPENAI_BASE_URL, or starts one "
              "embedded model server for itself. SIGTERM: finish the runs in flight, then exit (docs/celery.md).",
        examples=["factline worker --concurrency 2     (with EXECUTOR=celery in the environment)"])
    worker.add_argument("--concurrency", type=int, default=1, metavar="N",
                        help="runs executed at once by this process (threads; default 1)")


def cmd_worker(deployment: Deployment, settings: Settings, args: argparse.Namespace) -> int:
    from pipeline.workers.worker import run_worker  # imported when it runs: --help stays fast

    if args.concurrency < 1:
        raise CommandError("worker: --concurrency must be at least 1")  # a usage error: exit 2, as every other
    return run_worker(deployment, [p.settings for p in args.fleet], args.concurrency, announce=lambda line: print(line, flush=True))
