"""The review gate's modes (required, flagged), a review expiring, a rejection, an unknown run, and what the
report, the alert and `review show` say of a held run: `factline` run in the test process (factline_here), a
real ledger (SQLite and PostgreSQL), the scripted model over HTTP. Approving is in test_review.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select, update

from pipeline.ledger.db import open_ledger
from pipeline.ledger.models import Publication, Review, Run
from testkit.scripted_model import ScriptedModel, say, script
from tests.cli_helpers import factline_here, factline_read
from tests.pipeline.review.editor import env_for, held_run, pages


def test_reject_publishes_nothing_and_holds_the_topic_unless_requeued(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """reject: verdict rejected, no page; a later run takes another topic; approving it then is refused (exit 1)."""
    env = env_for(db_url, model, tmp_path)
    first = held_run(env)
    done = factline_here(env, "review", "reject", str(first), "--reason", "wrong year", "--by", "bob")
    assert done.returncode == 0, done.stderr
    late = factline_here(env, "review", "approve", str(first), "--by", "alice")
    assert late.returncode == 1 and "rejected by bob" in late.stderr and "wrong year" in late.stderr
    sessions = open_ledger(db_url)
    with sessions() as s:
        run = s.get_one(Run, first)
        assert run.verdict == "rejected"
        rejected_topic = run.topic_id
    second = held_run(env)
    with sessions() as s:
        assert s.get_one(Run, second).topic_id != rejected_topic
    factline_here(env, "review", "reject", str(second), "--reason", "later", "--requeue")
    third = held_run(env)
    with sessions() as s:
        assert s.get_one(Run, third).topic_id == s.get_one(Run, second).topic_id  # requeued: taken again
    assert pages(tmp_path) == []


def test_a_review_past_its_hours_expires_and_cannot_be_approved(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """A request older than REVIEW_EXPIRE_HOURS closes `expired`; approving it answers one line, exit 1."""
    env = env_for(db_url, model, tmp_path)
    run_id = held_run(env)
    sessions = open_ledger(db_url)
    with sessions.begin() as s:
        s.execute(update(Review).where(Review.run_id == run_id).values(
            created_at=s.scalar(select(Run.started_at).where(Run.id == run_id)).replace(year=2020)))
    late = factline_here(env, "review", "approve", str(run_id))
    assert late.returncode == 1 and "expired" in late.stderr
    with sessions() as s:
        assert s.get_one(Run, run_id).verdict == "expired"
        assert s.scalar(select(Publication.id)) is None


def test_flagged_mode_holds_only_runs_the_guard_flagged(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """REVIEW_MODE=flagged: a clean run publishes at once (success, exit 0)."""
    env = env_for(db_url, model, tmp_path, REVIEW_MODE="flagged")
    done = factline_here(env, "run")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "awaits review" not in done.stdout
    assert len(pages(tmp_path)) == 1


@pytest.mark.parametrize("action", ["approve", "reject"])
def test_an_unknown_run_is_a_usage_error(action: str, db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """A run that does not exist: one line, exit 2."""
    env = env_for(db_url, model, tmp_path)
    held_run(env)
    extra = ["--reason", "x"] if action == "reject" else []
    done = factline_here(env, "review", action, "999", *extra)
    assert done.returncode == 2 and "no run 999" in done.stderr


def test_flagged_mode_holds_a_run_the_guard_flagged(db_url: str, tmp_path: Path) -> None:
    """REVIEW_MODE=flagged: a run whose model claimed a publish it had not made waits, naming the finding."""
    with ScriptedModel(policy=script(say("The article is published and live."))) as model:
        env = env_for(db_url, model, tmp_path, REVIEW_MODE="flagged")
        run_id = held_run(env)
        listed = json.loads(factline_read(env, "review", "list", "--json").stdout)
    assert [r["run_id"] for r in listed] == [run_id]
    assert any("publish" in flag for flag in listed[0]["flags"])
    assert pages(tmp_path) == []


def test_the_daily_report_and_the_alert_name_what_waits_and_for_how_long(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """report --day lists the held run with its hours; the review alert names it with its title and age."""
    from datetime import datetime, timezone
    from zoneinfo import ZoneInfo

    from pipeline.alerts import review_alert
    from pipeline.ledger.daily import day_ledger

    env = env_for(db_url, model, tmp_path)
    run_id = held_run(env)
    report = factline_read(env, "report")
    assert report.returncode == 0, report.stderr
    assert "awaiting review" in report.stdout and f"run {run_id}:" in report.stdout and " h)" in report.stdout
    with open_ledger(db_url)() as s:
        day = day_ledger(s, datetime.now(timezone.utc).date(), ZoneInfo("UTC"), "content")
    alert = review_alert(day, datetime.now(timezone.utc))
    assert alert is not None and alert.body["waiting"][0]["run_id"] == run_id
    assert "awaiting review" in alert.body["text"] and " h" in alert.body["text"]


def test_show_prints_the_article_its_fact_check_and_what_humanize_changed(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """review show: the held title and body, the fact check line, the draft-to-humanized diff, the trail."""
    env = env_for(db_url, model, tmp_path)
    run_id = held_run(env)
    shown = factline_read(env, "review", "show", str(run_id))
    assert shown.returncode == 0, shown.stderr
    assert "fact check:" in shown.stdout and "what humanize changed" in shown.stdout
    assert "review trail:" in shown.stdout and "requested" in shown.stdout
