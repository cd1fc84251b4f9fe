"""Tick lateness (scheduled time -> run start, or -> sent and taken on Celery) in the ledger, /metrics and the
dashboard; and SCHEDULE_CATCH_UP, what happens to ticks missed while no scheduler ran."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from config import Settings, load_settings
from config.cron import parse_cron, tick_time
from pipeline.ledger.db import open_ledger
from pipeline.ledger.detail import run_detail
from pipeline.ledger.models import Run
from pipeline.ledger.runs import RunStamp
from pipeline.metrics import Metrics
from pipeline.runner import run_once
from pipeline.runtime import Runtime
from pipeline.web import WebServer, build_app, read_only_ledger
from pipeline.workers.dispatch import Schedule, ticks_to_catch_up
from pipeline.ledger.runs import claim_tick, mark_sent, take
from testkit.daemon_process import DaemonProcess, LedgerProbe, daemon_env, wait_for
from testkit.scripted_model import ScriptedModel


def _histogram(metrics: Metrics, stage: str) -> tuple[float, float]:
    """(count, sum) of factline_tick_lateness_seconds for ``stage``."""
    found = {}
    for family in text_string_to_metric_families(metrics.render().decode()):
        for sample in family.samples:
            if sample.name.startswith("factline_tick_lateness_seconds_") and sample.labels.get("stage") == stage:
                found[sample.name.rsplit("_", 1)[1]] = sample.value
    return found.get("count", 0.0), found.get("sum", 0.0)


def test_an_inline_tick_s_lateness_is_in_the_ledger_metrics_and_dashboard(runtime: Runtime) -> None:
    """A tick run 3 s after its time: the ledger says start 3 s late, /metrics has it in the histogram, the Today
    page and the run page show it."""
    scheduled = tick_time(datetime.now(timezone.utc) - timedelta(seconds=3))
    result = run_once(runtime, trigger="schedule", scheduled_for=scheduled)
    with runtime.sessions() as s:
        detail = run_detail(s, result.run_id)
    late = detail.lateness()["start"]
    assert 3 <= late < 10 and set(detail.lateness()) == {"start"}
    metrics = Metrics()
    metrics.observe_run(detail, result.seconds)
    assert _histogram(metrics, "start") == (1.0, pytest.approx(late))
    settings = runtime.settings
    with WebServer(build_app(settings.deployment(), settings, read_only_ledger(settings.deployment().ledger.url)), "127.0.0.1", 0) as server:
        today = httpx.get(f"{server.url}/").text
        page = httpx.get(f"{server.url}/runs/{result.run_id}").text
    assert f'<td class="late">{late:.1f} s</td>' in today
    assert f"start {late:.1f} s late" in page


def test_a_celery_tick_s_lateness_is_sent_and_taken(settings: Settings) -> None:
    """A tick claimed and sent by the scheduler and taken by a worker: both stages, from the runs row."""
    sessions = open_ledger(settings.deployment().ledger.url)
    scheduled = tick_time(datetime.now(timezone.utc) - timedelta(seconds=5))
    run_id = claim_tick(sessions, pipeline="content", scheduled_for=scheduled)
    assert run_id is not None
    with sessions.begin() as s:
        mark_sent(s, run_id)
    with sessions.begin() as s:
        take(s, run_id, 10, RunStamp("scripted", "native", "p", "c"))
    with sessions() as s:
        lateness = run_detail(s, run_id).lateness()
    assert set(lateness) == {"sent", "taken"} and 5 <= lateness["sent"] <= lateness["taken"] < 15


def _seed(settings: Settings, *ticks: datetime) -> None:
    with open_ledger(settings.deployment().ledger.url).begin() as s:
        s.add_all(Run(pipeline="content", trigger="schedule", scheduled_for=t, status="finished", verdict="success")
                  for t in ticks)


def test_the_catch_up_policy_decides_which_missed_ticks_run(settings: Settings) -> None:
    """Every 10 s, the pipeline last ticked a minute ago: ``all`` catches up each missed tick, ``latest`` only the
    most recent (and, once that one has a run, nothing more), ``none`` nothing."""
    every_10s = parse_cron("*/10 * * * * *", timezone.utc)
    last = tick_time(datetime.now(timezone.utc) - timedelta(seconds=65))
    last -= timedelta(seconds=last.second % 10)
    _seed(settings, last - timedelta(seconds=10), last)
    sessions = open_ledger(settings.deployment().ledger.url)

    def due(policy: str) -> list[datetime]:
        with sessions() as s:
            return ticks_to_catch_up(s, Schedule("content", every_10s, 600, policy))

    every = due("all")
    assert len(every) >= 5 and every == sorted(every) and all(t > last for t in every)
    assert due("latest") == every[-1:]
    assert due("none") == []
    claim_tick(sessions, pipeline="content", scheduled_for=every[-1])
    assert due("latest") == []
    assert due("all") == every[:-1]  # all also fills the gaps before the latest tick


@pytest.mark.slow  # a daemon process, after waiting up to 17 s for a minute to turn
def test_an_inline_daemon_catches_up_the_latest_tick_missed_while_it_was_down(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """SCHEDULE_CATCH_UP=latest: a daemon started four minutes after the pipeline's last tick (every minute) runs
    the most recent missed tick at once, logs the two older ones as missed, and runs no other past tick."""
    if datetime.now(timezone.utc).second > 45:  # no minute may turn while the daemon starts
        time.sleep(62 - datetime.now(timezone.utc).second)
    started = datetime.now(timezone.utc)
    latest = started.replace(second=0, microsecond=0)
    last = latest - timedelta(minutes=3)
    _seed(load_settings(database_url=db_url), last)
    env = daemon_env(db_url, model.base_url, tmp_path, SCHEDULE_CRON="* * * * *",
                     SCHEDULE_MISFIRE_GRACE_SECONDS="3600", SCHEDULE_CATCH_UP="latest", LOG_FORMAT="json")
    probe = LedgerProbe(db_url)
    daemon = DaemonProcess(env, tmp_path / "daemon.log")

    def after_last() -> list[tuple[datetime, str | None]]:
        rows = probe.rows("SELECT scheduled_for, verdict FROM runs WHERE trigger = 'schedule'")
        return [(_utc(when), verdict) for when, verdict in rows if _utc(when) > last]

    try:
        wait_for(lambda: [r for r in after_last() if r[1] is not None], timeout=60)
        past = after_last()
    finally:
        assert daemon.stop() == 0
        probe.close()
    assert past == [(latest, "success")]
    missed = next(json.loads(line)["record"]["extra"] for line in daemon.logs().splitlines()
                  if line.startswith("{") and '"tick.missed"' in line)
    assert (missed["count"], missed["policy"]) == (2, "latest")


def _utc(value: object) -> datetime:
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)
