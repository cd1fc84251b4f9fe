"""The daily report from ledger rows, and cron expressions read as crontab reads them."""

from __future__ import annotations

from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

import pytest
from loguru import logger

from config import ConfigError, Settings
from config.cron import cron_trigger, tick_time
from pipeline.cli import main
from pipeline.ledger.daily import day_ledger
from pipeline.ledger.db import open_ledger
from pipeline.report import format_day
from pipeline.runner import run_once
from pipeline.runtime import Runtime
from testkit.scripted_model import ScriptedModel, say, script

UTC = ZoneInfo("UTC")


def test_report_of_a_day_without_publications_says_so_first(settings: Settings, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """`factline report --day` for an empty day of a ledger: the first line says there were no publications."""
    monkeypatch.setenv("DATABASE_URL", settings.deployment().ledger.url)
    open_ledger(settings.deployment().ledger.url)  # report only reads: the ledger must be there
    try:
        assert main(["report", "--day", "2026-01-01"]) == 0
    finally:  # main() sent the log to capsys's stream, closed after this test: a later test's events would fail
        logger.remove()  # there, and print a loguru traceback on its stderr (test_bad_links checks it has none)
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "2026-01-01 (UTC): no publications"


def test_report_lists_publications_registrations_and_failures_from_the_ledger(runtime: Runtime,
                                                                              model: ScriptedModel) -> None:
    """A day with one success and one hallucinated run: counts, URL, registration number and the failure reason."""
    good = run_once(runtime)
    model.policy = script(say("已发布，登记号 CT-20260101-001"), say("已发布"), say("已发布"))
    bad = run_once(runtime)
    today = datetime.now(timezone.utc).date()
    with runtime.sessions() as s:
        text = format_day(day_ledger(s, today, UTC))
    lines = text.splitlines()
    assert lines[0] == f"{today} (UTC): 1 publications, 1 verified, 1 registered"
    assert lines[1] == "runs: 2 (hallucinated 1, success 1)"
    assert lines[2] == "hallucinations caught: 3"
    assert f"run {good.run_id}: http://127.0.0.1:" in text and "registration CT-" in text
    assert f"run {bad.run_id}: hallucinated: nudges_exhausted" in text


def test_report_counts_only_the_asked_day(runtime: Runtime) -> None:
    """Runs of today do not appear in yesterday's report."""
    run_once(runtime)
    with runtime.sessions() as s:
        day = day_ledger(s, date(2020, 1, 1), UTC)
    assert (day.runs, day.publications, day.failures) == (0, [], [])


def test_crontab_weekday_zero_is_sunday() -> None:
    """SCHEDULE_CRON is standard crontab: weekday 0 (and 7) is Sunday, 1-5 is Monday to Friday."""
    after = datetime(2026, 1, 1, tzinfo=timezone.utc)  # a Thursday
    sunday = cron_trigger("0 6 * * 0", UTC, "SCHEDULE_CRON").get_next_fire_time(None, after)
    also_sunday = cron_trigger("0 6 * * 7", UTC, "SCHEDULE_CRON").get_next_fire_time(None, after)
    weekday = cron_trigger("0 6 * * 1-5", UTC, "SCHEDULE_CRON").get_next_fire_time(None, datetime(
        2026, 1, 3, 7, tzinfo=timezone.utc))
    assert sunday == also_sunday == datetime(2026, 1, 4, 6, tzinfo=UTC)
    assert weekday == datetime(2026, 1, 5, 6, tzinfo=UTC)


def test_six_fields_schedule_seconds_in_the_given_time_zone() -> None:
    """A leading seconds field is accepted, and the schedule follows SCHEDULE_TIMEZONE."""
    shanghai = ZoneInfo("Asia/Shanghai")
    fire = cron_trigger("30 0 6 * * *", shanghai, "SCHEDULE_CRON").get_next_fire_time(
        None, datetime(2026, 1, 1, tzinfo=timezone.utc))
    assert tick_time(fire) == datetime(2026, 1, 1, 22, 0, 30, tzinfo=timezone.utc)


def test_tick_time_is_utc_without_microseconds() -> None:
    """The stored tick is the same instant on every replica: UTC, whole seconds."""
    fire = datetime(2026, 1, 1, 14, 0, 0, 999, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert tick_time(fire) == datetime(2026, 1, 1, 6, 0, 0, tzinfo=timezone.utc)
    assert tick_time(fire).tzinfo == timezone.utc


def test_bad_cron_names_its_variable() -> None:
    """An invalid field value is a ConfigError that names the variable."""
    with pytest.raises(ConfigError, match="^invalid setting REPORT_CRON: '0 6 32 \\* \\*'"):
        cron_trigger("0 6 32 * *", UTC, "REPORT_CRON")
