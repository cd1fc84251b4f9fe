"""Where the daemon's ticks run: the ``Executor`` seam and its two implementations (docs/architecture.md)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from config import Deployment, Settings
from pipeline.executors.base import ClaimedElsewhere, Crashed, Executor, Queued, Ran, Ticked
from pipeline.executors.celery import CeleryExecutor
from pipeline.executors.inline import InlineExecutor
from pipeline.workers.dispatch import Schedule

__all__ = ["EXECUTORS", "CeleryExecutor", "ClaimedElsewhere", "Crashed", "Executor", "InlineExecutor", "Queued", "Ran",
           "Ticked", "open_executor"]


EXECUTORS: dict[str, type[Executor]] = {"inline": InlineExecutor, "celery": CeleryExecutor}
"""An implementation by EXECUTOR's value (config checks the value is one of these)."""


def open_executor(deployment: Deployment, pipelines: Sequence[Settings], schedules: Sequence[Schedule],
                  stop: threading.Event) -> Executor:
    """The executor EXECUTOR names, started (close it, or use it as a context manager)."""
    return EXECUTORS[deployment.executor.kind](deployment, pipelines, schedules, stop)
