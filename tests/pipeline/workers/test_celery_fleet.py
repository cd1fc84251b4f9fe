"""EXECUTOR=celery end to end, real processes: one scheduler, three workers, PostgreSQL, a real broker.

Ten pipelines tick every second for 30 s against the scripted model; afterwards the ledger is compared
with itself and with the pages the local target really holds (testkit.fleet.trial, the same phases as
scripts/celery_chaos.py): every (pipeline, tick) has exactly one run and every run succeeds, no topic is
published twice, the target holds exactly the ledger's publications. Then the same while workers are
SIGKILLed, the scheduler is SIGKILLed and RabbitMQ is restarted. Redis is checked in a shorter steady phase.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit.fleet import CHAOS, STEADY, Audit, Faults, trial
from testkit.scripted_model import ScriptedModel

pytestmark = [pytest.mark.slow, pytest.mark.external]  # RabbitMQ and Redis

RABBITMQ = "amqp://guest:guest@127.0.0.1:5672//"
REDIS = "redis://127.0.0.1:6379/0"
PIPELINES = 10
SECONDS = 30
LATE_START = 5  # seconds of a phase that may pass before the scheduler's first tick (process start on a busy CI)


def assert_exactly_once(audit: Audit, pipelines: int, seconds: float) -> None:
    """One run per (pipeline, tick), each a success, one publication, registration and page each."""
    assert audit.ticks >= pipelines * (seconds - LATE_START), audit
    assert audit.gaps == [], "ticks without a run"
    assert audit.verdicts == {"success": audit.ticks}, audit.failed
    assert audit.unclosed == 0, "runs left queued or running"
    assert audit.runs_sharing_a_topic == 0
    assert audit.topics_published_twice == 0
    assert audit.publications == audit.registrations == audit.ticks
    assert audit.duplicate_numbers == 0
    assert (audit.pages, audit.pages_without_row, audit.rows_without_page) == (audit.publications, 0, 0)
    assert audit.clean


def test_ten_pipelines_on_three_workers_run_every_tick_exactly_once(pg_url: str, model: ScriptedModel,
                                                                    tmp_path: Path) -> None:
    audit, _ = trial(pg_url, RABBITMQ, model.base_url, tmp_path, seconds=SECONDS, pipelines=PIPELINES, faults=STEADY)
    assert_exactly_once(audit, PIPELINES, SECONDS)


def test_killed_workers_a_killed_scheduler_and_a_restarted_broker_lose_nothing_and_repeat_nothing(
        pg_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    audit, events = trial(pg_url, RABBITMQ, model.base_url, tmp_path, seconds=SECONDS, pipelines=PIPELINES,
                          faults=CHAOS)
    assert events["worker_kills"] >= 3, events  # the faults really happened (fewer kills when a restart is slow)
    assert (events["scheduler_kills"], events["broker_restarts"]) == (1, 1), events
    assert_exactly_once(audit, PIPELINES, SECONDS)


def test_the_redis_broker_runs_every_tick_exactly_once_while_workers_are_killed(
        pg_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    seconds = 12
    audit, events = trial(pg_url, REDIS, model.base_url, tmp_path, seconds=seconds, pipelines=PIPELINES,
                          faults=Faults(kill_worker_every=3))
    assert events["worker_kills"] >= 3, events
    assert_exactly_once(audit, PIPELINES, seconds)
