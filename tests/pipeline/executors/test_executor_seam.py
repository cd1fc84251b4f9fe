"""The daemon reaches its executor through one small interface: what a tick became is the executor's answer.

A stand-in executor (the seam's edge) on a real ledger; the inline and Celery executors themselves run in
tests/pipeline/test_daemon.py and tests/pipeline/workers."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import get_args

from config import load_settings
from config.deployment import Execution
from config.cron import parse_cron
from pipeline.daemon import Ahead, Daemon, _scheduler, check_schedules
from pipeline.executors import (EXECUTORS, CeleryExecutor, ClaimedElsewhere, Crashed, Executor, InlineExecutor, Queued,
                                Ticked)
from pipeline.ledger.db import open_ledger
from pipeline.metrics import Metrics


class Answers(Executor):
    """Answers each tick with the next of ``answers`` and records what it was asked."""

    name = "answers"

    def __init__(self, db: str, answers: list[Ticked]) -> None:
        self.sessions = open_ledger(db)
        self.answers: list[Ticked] = answers
        self.asked: list[tuple[str, datetime]] = []

    def tick(self, pipeline: str, scheduled_for: datetime) -> Ticked:
        self.asked.append((pipeline, scheduled_for))
        return self.answers.pop(0)


def test_each_tick_is_counted_as_its_executor_answers(tmp_path: Path) -> None:
    """Queued, claimed elsewhere and crashed ticks each count (or log) as the executor said, at the whole second."""
    executor = Answers(f"sqlite:///{tmp_path}/ledger.db", [Queued(7), ClaimedElsewhere("claimed elsewhere"),
                                                           Crashed("the ledger is away")])
    metrics = Metrics()
    daemon = Daemon([load_settings()], executor, metrics, threading.Event())
    fired = datetime(2026, 12, 4, 6, 0, 0, 250_000, tzinfo=UTC)
    for _ in range(3):
        daemon.tick("content", fired)
    assert executor.asked == [("content", fired.replace(microsecond=0))] * 3
    counted = {outcome: metrics.registry.get_sample_value("factline_ticks_total", {"pipeline": "content",
                                                                                  "outcome": outcome})
               for outcome in ("queued", "claimed_elsewhere", "run")}
    assert counted == {"queued": 1.0, "claimed_elsewhere": 1.0, "run": None}
    assert daemon.wait_idle(0)


def test_a_stopped_daemon_hands_its_executor_no_tick(tmp_path: Path) -> None:
    """After SIGTERM no tick reaches the executor."""
    executor = Answers(f"sqlite:///{tmp_path}/ledger.db", [])
    stop = threading.Event()
    stop.set()
    Daemon([load_settings()], executor, Metrics(), stop).tick("content", datetime.now(UTC))
    assert executor.asked == []


def test_every_executor_value_has_its_class() -> None:
    """EXECUTOR's allowed values and the executors' names are the same set, each class named by its value."""
    assert set(EXECUTORS) == set(get_args(Execution.model_fields["kind"].annotation))
    assert {name: cls.name for name, cls in EXECUTORS.items()} == {"inline": "inline", "celery": "celery"}
    assert EXECUTORS["inline"] is InlineExecutor and EXECUTORS["celery"] is CeleryExecutor


class Grouping(Answers):
    """An executor that takes the ticks of pipelines sharing a schedule together; each is queued."""

    groups_ticks = True

    def tick_many(self, pipelines: Sequence[str], scheduled_for: datetime) -> dict[str, Ticked]:
        self.asked.extend((pipeline, scheduled_for) for pipeline in pipelines)
        return {pipeline: Queued(number) for number, pipeline in enumerate(pipelines)}


def test_an_executor_that_groups_ticks_gets_one_job_per_distinct_schedule(tmp_path: Path) -> None:
    """Four pipelines on one cron, one of them in another time zone and one with another grace: three tick jobs,
    one per distinct (cron, time zone, grace); a group's tick reaches tick_many at once and each pipeline counts."""
    pipelines = [load_settings(pipeline="a"), load_settings(pipeline="b"),
                 load_settings(pipeline="c", schedule_timezone="Asia/Shanghai"),
                 load_settings(pipeline="d", schedule_misfire_grace_seconds=5)]
    executor = Grouping(f"sqlite:///{tmp_path}/ledger.db", [])
    metrics = Metrics()
    daemon = Daemon(pipelines, executor, metrics, threading.Event())
    scheduler = _scheduler(pipelines[0].deployment(), daemon, check_schedules(pipelines))
    assert sorted(job.args[0] for job in scheduler.get_jobs() if job.id.startswith("tick")) == [
        ("a", "b"), ("c",), ("d",)]
    fired = datetime(2026, 12, 4, 6, 0, 0, 250_000, tzinfo=UTC)
    daemon.tick_together(("a", "b"), fired)
    assert executor.asked == [("a", fired.replace(microsecond=0)), ("b", fired.replace(microsecond=0))]
    assert [metrics.registry.get_sample_value("factline_ticks_total", {"pipeline": name, "outcome": "queued"})
            for name in ("a", "b", "c")] == [1.0, 1.0, None]


class ClaimingAhead(Grouping):
    """A grouping executor that claims each moment's ticks 5 s ahead (records what it was asked to claim)."""

    claim_ahead_seconds = 5.0

    def __init__(self, db: str) -> None:
        super().__init__(db, [])
        self.ahead: list[tuple[tuple[str, ...], datetime]] = []

    def claim_ahead(self, pipelines: Sequence[str], scheduled_for: datetime) -> None:
        self.ahead.append((tuple(pipelines), scheduled_for))


def test_an_executor_that_claims_ahead_gets_each_moment_its_seconds_before(tmp_path: Path) -> None:
    """One claim-ahead job per distinct schedule, firing 5 s before each tick (in UTC, across a DST change too);
    it hands the executor the moment to come, not its own fire time."""
    pipelines = [load_settings(pipeline="a"), load_settings(pipeline="b"),
                 load_settings(pipeline="c", schedule_timezone="Europe/Berlin", schedule_cron="0 3 * * *")]
    executor = ClaimingAhead(f"sqlite:///{tmp_path}/ledger.db")
    daemon = Daemon(pipelines, executor, Metrics(), threading.Event())
    scheduler = _scheduler(pipelines[0].deployment(), daemon, check_schedules(pipelines))
    ahead = {job.args[0]: job.trigger for job in scheduler.get_jobs() if job.id.startswith("claim-ahead")}
    assert set(ahead) == {("a", "b"), ("c",)}
    tick = check_schedules(pipelines)["c"].schedule.trigger.get_next_fire_time(None, datetime(2026, 3, 28, 12, tzinfo=UTC))
    assert tick.astimezone(UTC) == datetime(2026, 3, 29, 1, tzinfo=UTC)  # 03:00 CEST, the first hour after the change
    assert ahead[("c",)].get_next_fire_time(None, datetime(2026, 3, 28, 12, tzinfo=UTC)) == datetime(
        2026, 3, 29, 0, 59, 55, tzinfo=UTC) != tick - timedelta(seconds=5)  # in local time: 02:59:55, in the gap
    assert Ahead(parse_cron("* * * * *", UTC), 5).get_next_fire_time(
        datetime(2026, 12, 6, 5, 59, 55, tzinfo=UTC), datetime(2026, 12, 6, 5, 59, 55, 1000, tzinfo=UTC)) == datetime(
        2026, 12, 6, 6, 0, 55, tzinfo=UTC)
    daemon.claim_ahead(("a", "b"), 5.0, datetime(2026, 12, 6, 5, 59, 55, 2000, tzinfo=UTC))
    assert executor.ahead == [(("a", "b"), datetime(2026, 12, 6, 6, 0, tzinfo=UTC))]
