"""EXECUTOR=inline: a tick runs its pipeline in the daemon's process, one Runtime per pipeline."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from contextlib import ExitStack
from datetime import datetime

from loguru import logger

from capabilities.targets import LocalTarget
from config import Deployment, Settings
from pipeline.executors.base import ClaimedElsewhere, Crashed, Executor, Ran, Ticked
from pipeline.outcome import one_line
from pipeline.runner import TickAlreadyClaimed, run_once
from pipeline.runtime import open_runtimes
from pipeline.workers.dispatch import Schedule, ticks_to_catch_up


class InlineExecutor(Executor):
    """Runs each tick here (``run_once``); ``stop`` (the daemon's SIGTERM) cuts a run off where it waits."""

    name = "inline"

    def __init__(self, deployment: Deployment, pipelines: Sequence[Settings], schedules: Sequence[Schedule],
                 stop: threading.Event) -> None:
        self.schedules, self.stop = list(schedules), stop
        self._stack = ExitStack()
        with self._stack as stack:
            self.runtimes = stack.enter_context(open_runtimes(deployment, pipelines, stop))
            self._stack = stack.pop_all()
        first = next(iter(self.runtimes.values()))
        self.sessions, self.tracing = first.sessions, first.tracing  # one ledger, one tracing per process
        self.sites = tuple({id(r.target): r.target for r in self.runtimes.values()
                            if isinstance(r.target, LocalTarget)}.values())

    def tick(self, pipeline: str, scheduled_for: datetime) -> Ticked:
        try:
            result = run_once(self.runtimes[pipeline], trigger="schedule", scheduled_for=scheduled_for,
                              cancel=self.stop, sleep=self.stop.wait)  # retry waits end early on a stop
        except TickAlreadyClaimed:
            return ClaimedElsewhere("claimed by another replica")
        except Exception as exc:  # run_once closes its row on a crash; this is the ledger failing as it opens or closes
            logger.opt(exception=exc).debug("tick.crashed.traceback")
            return Crashed(one_line(exc))
        return Ran(result.run_id, result.seconds)

    def missed_ticks(self) -> dict[str, list[datetime]]:
        """The ticks missed while no scheduler ran, as each pipeline's SCHEDULE_CATCH_UP says."""
        with self.sessions() as s:
            due = {schedule.pipeline: ticks_to_catch_up(s, schedule) for schedule in self.schedules}
        return {pipeline: times for pipeline, times in due.items() if times}

    def close(self) -> None:
        self._stack.close()
