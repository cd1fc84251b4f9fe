"""A Celery worker's edges (issue #26): poison messages, ticks of a pipeline that left the file, a run stuck past
its deadline, a broker that is down at start.

The task is the real Celery task object run in this process (``apply``: what a worker does with a delivered
message, acked when it returns); the broker-down cases are `factline worker` and `factline daemon` processes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from loguru import logger
from sqlalchemy import create_engine, text, update

from pipeline.ledger.models import Run
from pipeline.runtime import open_runtimes
from pipeline.workers.app import make_app
from pipeline.ledger.runs import Take, claim_tick, now
from pipeline.workers.worker import TickRunner, register_task
from testkit.scripted_model import ScriptedModel
from tests.cli_helpers import factline, user_env
from tests.conftest import make_settings
from tests.pipeline.test_daemon import free_port


@pytest.fixture
def runner(db_url: str, model: ScriptedModel, tmp_path: Path) -> Iterator[TickRunner]:
    settings = make_settings(db_url, model.base_url, tmp_path, executor="celery", run_max_seconds=1.0)
    with open_runtimes(settings.deployment(), [settings]) as runtimes:
        yield TickRunner(runtimes, heartbeat_seconds=0.1)


@pytest.fixture
def errors() -> Iterator[list[str]]:
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(str(m)), level="ERROR", format="{message} {extra} {exception}")
    yield lines
    logger.remove(sink)


POISON = [((), {}), (("not-a-number",), {}), ((10**30,), {}), (("x" * 2_000_000,), {}), ((True,), {}),
          ((1, 2), {}), ((), {"run": 1})]


def test_poison_tasks_are_rejected_in_one_line_each_and_acked(runner: TickRunner, errors: list[str]) -> None:
    """No argument, a string, 10^30, a 2 MB string, a bool, two ids, a wrong keyword: each task returns `rejected`
    (so it is acked, never redelivered) with one short log line, no traceback."""
    settings = runner.runtimes["content"].settings
    task = register_task(make_app(settings.deployment().executor, [settings]), runner)
    for args, kwargs in POISON:
        result = task.apply(args=args, kwargs=kwargs)
        assert result.successful() and result.get() == "rejected", (args, kwargs, result.traceback)
    assert len(errors) == len(POISON) and all(e.startswith("worker.poison_task") for e in errors), errors
    assert all(len(e) < 600 and "Traceback" not in e for e in errors)


def test_a_tick_whose_pipeline_left_the_pipelines_file_is_closed_with_a_reason(runner: TickRunner) -> None:
    """A queued tick of pipeline `gone` (no longer configured): closed `interrupted` (orphaned) naming it, not retried."""
    run_id = claim_tick(runner.sessions, pipeline="gone", scheduled_for=now().replace(microsecond=0))
    assert run_id is not None
    assert runner.execute(run_id) is Take.DONE
    with runner.sessions() as s:
        run = s.get(Run, run_id)
        assert (run.status, run.verdict, run.stop_reason) == ("interrupted", "interrupted", "orphaned")
        assert "'gone' is not in the pipelines file" in (run.error or "")


def test_a_run_stuck_past_its_deadline_stops_beating_and_is_closed(runner: TickRunner) -> None:
    """A run this worker holds 1 s past RUN_MAX_SECONDS=1 plus three beats: not beaten any more, closed `budget`."""
    run_id = claim_tick(runner.sessions, pipeline="content", scheduled_for=now().replace(microsecond=0))
    assert run_id is not None
    stale = now()
    with runner.sessions.begin() as s:
        s.execute(update(Run).where(Run.id == run_id).values(status="running", heartbeat_at=stale))
    runner.owned.add(run_id)
    runner.started[run_id] = (time.monotonic() - 2.0, 1.0)  # started 2 s ago, RUN_MAX_SECONDS=1, beats of 0.1 s
    runner.beat_once()
    with runner.sessions() as s:
        run = s.get(Run, run_id)
        assert (run.status, run.verdict, run.stop_reason) == ("finished", "budget", "max_seconds")
    assert run_id not in runner.owned
    runner.beat_once()  # and it is not beaten again
    with runner.sessions() as s:
        assert s.get(Run, run_id).status == "finished"


@pytest.mark.parametrize("command", ["worker", "daemon"])
def test_a_broker_down_at_start_is_one_line_and_exit_2(tmp_path: Path, command: str) -> None:
    """CELERY_BROKER_URL names a port nobody listens on: one line naming it (password hidden), exit 2, and the
    daemon claimed no tick it could not send."""
    url = f"sqlite:///{tmp_path}/ledger.db"
    port = free_port()
    env = user_env(EXECUTOR="celery", CELERY_BROKER_URL=f"amqp://guest:hunter22secret@127.0.0.1:{port}//",
                   DATABASE_URL=url, SCHEDULE_CRON="* * * * * *", OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    done = factline(env, command, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"factline: the broker at amqp://guest:***@127.0.0.1:{port}// (CELERY_BROKER_URL) "
                           "is not reachable: OperationalError\n")
    if (tmp_path / "ledger.db").exists():
        with create_engine(url).connect() as conn:
            tables = conn.execute(text("SELECT name FROM sqlite_master WHERE name = 'runs'")).all()
            assert not tables or conn.execute(text("SELECT count(*) FROM runs")).scalar() == 0
