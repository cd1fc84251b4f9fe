"""The review gate and the editor's commands, as an editor uses them: real `factline` processes, a real ledger
(SQLite and PostgreSQL), the scripted model over HTTP, the local site served for real."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import select, update

from pipeline.ledger.db import open_ledger
from pipeline.ledger.models import Publication, Registration, Review, Run, ToolCall
from testkit.scripted_model import ScriptedModel, say, script
from tests.cli_helpers import FACTLINE, ROOT, factline, factline_read, user_env


def env_for(db_url: str, model: ScriptedModel, tmp_path: Path, **values: str) -> dict[str, str]:
    return user_env(DATABASE_URL=db_url, OPENAI_BASE_URL=model.base_url, FACTLINE_MODEL="scripted",
                    LOCAL_SITE_DIR=str(tmp_path / "site"), LOCAL_SITE_PORT="0", RETRY_BASE_DELAY="0.01",
                    PREVIEW_DIR=str(tmp_path / "preview"), **{"REVIEW_MODE": "required", **values})


def held_run(env: dict[str, str], *args: str) -> int:
    done = factline(env, "run", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "awaits review" in done.stdout and "factline review approve" in done.stdout
    return int(done.stdout.split("run ", 1)[1].split(":", 1)[0])


def answer(done: subprocess.CompletedProcess[str]) -> list[str]:
    """What the command said to the editor on stderr (its lines starting factline:, not the log events)."""
    return [line for line in done.stderr.splitlines() if line.startswith("factline:")]


def pages(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "site").glob("a-*.html"))


def test_a_required_review_holds_the_run_before_publish_and_keeps_its_topic(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """REVIEW_MODE=required: exit 0, verdict awaiting_review, publish recorded held, no page, topic held."""
    env = env_for(db_url, model, tmp_path)
    run_id = held_run(env)
    sessions = open_ledger(db_url)
    with sessions() as s:
        run = s.get_one(Run, run_id)
        assert (run.status, run.verdict) == ("awaiting_review", "awaiting_review")
        calls = {c.name: c.outcome for c in s.scalars(select(ToolCall).where(ToolCall.run_id == run_id))}
        assert calls["publish"] == "held" and "register" not in calls
        assert s.scalar(select(Publication.id)) is None
        topic = run.topic_id
    assert pages(tmp_path) == []
    second = held_run(env)
    with sessions() as s:
        assert s.get_one(Run, second).topic_id != topic  # the held run keeps its topic
    listed = factline_read(env, "review", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [r["run_id"] for r in rows] == [run_id, second]
    assert Path(rows[0]["preview"]).is_file()


def test_approve_publishes_the_held_version_in_the_same_run_once(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """approve: the same run publishes, registers, reports (success); a second approve is refused with exit 1."""
    env = env_for(db_url, model, tmp_path)
    run_id = held_run(env)
    done = factline(env, "review", "approve", str(run_id), "--by", "alice")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "success" in done.stdout
    again = factline(env, "review", "approve", str(run_id), "--by", "bob")
    assert again.returncode == 1
    assert [line for line in again.stderr.splitlines() if line.startswith("factline:")] == [
        line for line in again.stderr.splitlines() if "already approved by alice" in line and "INFO" not in line]
    assert "Traceback" not in again.stderr
    sessions = open_ledger(db_url)
    with sessions() as s:
        assert s.get_one(Run, run_id).verdict == "success"
        assert len(s.scalars(select(Publication)).all()) == 1
        assert len(s.scalars(select(Registration)).all()) == 1
        trail = [(r.action, r.editor, r.accepted) for r in s.scalars(select(Review).order_by(Review.id))]
    assert trail == [("requested", None, True), ("approve", "alice", True), ("approve", "bob", False)]
    assert len(pages(tmp_path)) == 1


def test_an_edit_is_published_as_its_own_version(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """approve --edit FILE: a new version (kind edited) is what the page shows; the held version is not."""
    env = env_for(db_url, model, tmp_path)
    run_id = held_run(env)
    edit = tmp_path / "edit.md"
    edit.write_text("# An editor's title\n\nThe editor rewrote this paragraph about heat pumps entirely.\n")
    done = factline(env, "review", "approve", str(run_id), "--edit", str(edit), "--by", "alice")
    assert done.returncode == 0, done.stdout + done.stderr
    sessions = open_ledger(db_url)
    with sessions() as s:
        publication = s.scalars(select(Publication)).one()
        approved = s.scalars(select(Review).where(Review.action == "approve")).one()
        assert publication.draft_version_id == approved.version_id
        assert publication.verified_at is not None
    page = pages(tmp_path)[0].read_text()
    assert "The editor rewrote this paragraph" in page and "An editor&#39;s title" in page or "An editor's title" in page


def test_an_edit_that_fails_the_checks_is_refused_and_the_run_still_waits(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """An edited text with a control character is refused (exit 1); nothing published; the run awaits review."""
    env = env_for(db_url, model, tmp_path)
    run_id = held_run(env)
    edit = tmp_path / "edit.md"
    edit.write_text("# Title\n\nbad \x07 bell\n")
    done = factline(env, "review", "approve", str(run_id), "--edit", str(edit))
    assert done.returncode == 1 and "refused" in done.stderr
    with open_ledger(db_url)() as s:
        assert s.get_one(Run, run_id).status == "awaiting_review"
        assert s.scalar(select(Publication.id)) is None


@pytest.mark.slow  # nine `factline` processes
def test_reject_publishes_nothing_and_holds_the_topic_unless_requeued(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """reject: verdict rejected, no page; a later run takes another topic; approving it then is refused (exit 1)."""
    env = env_for(db_url, model, tmp_path)
    first = held_run(env)
    done = factline(env, "review", "reject", str(first), "--reason", "wrong year", "--by", "bob")
    assert done.returncode == 0, done.stderr
    late = factline(env, "review", "approve", str(first), "--by", "alice")
    assert late.returncode == 1 and "rejected by bob" in late.stderr and "wrong year" in late.stderr
    sessions = open_ledger(db_url)
    with sessions() as s:
        run = s.get_one(Run, first)
        assert run.verdict == "rejected"
        rejected_topic = run.topic_id
    second = held_run(env)
    with sessions() as s:
        assert s.get_one(Run, second).topic_id != rejected_topic
    factline(env, "review", "reject", str(second), "--reason", "later", "--requeue")
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
    late = factline(env, "review", "approve", str(run_id))
    assert late.returncode == 1 and "expired" in late.stderr
    with sessions() as s:
        assert s.get_one(Run, run_id).verdict == "expired"
        assert s.scalar(select(Publication.id)) is None


def test_two_concurrent_approvals_publish_once(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """Two `factline review approve` processes at once: one exits 0, the other 1 with one line; one page, one row."""
    env = env_for(db_url, model, tmp_path)
    run_id = held_run(env)
    procs = [subprocess.Popen([*FACTLINE, "review", "approve", str(run_id), "--by", name], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in ("ann", "ben")]
    results = [(p.wait(timeout=180), *p.communicate()) for p in procs]
    codes = sorted(code for code, _, _ in results)
    assert codes == [0, 1], results
    loser = next(err for code, _, err in results if code == 1)
    assert "already approved by" in loser and "Traceback" not in loser
    with open_ledger(db_url)() as s:
        assert len(s.scalars(select(Publication)).all()) == 1
        assert len(s.scalars(select(Registration)).all()) == 1
        assert sorted(r.accepted for r in s.scalars(select(Review).where(Review.action == "approve"))) == [False, True]
    assert len(pages(tmp_path)) == 1


def test_flagged_mode_holds_only_runs_the_guard_flagged(db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """REVIEW_MODE=flagged: a clean run publishes at once (success, exit 0)."""
    env = env_for(db_url, model, tmp_path, REVIEW_MODE="flagged")
    done = factline(env, "run")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "awaits review" not in done.stdout
    assert len(pages(tmp_path)) == 1


@pytest.mark.parametrize("action", ["approve", "reject"])
def test_an_unknown_run_is_a_usage_error(action: str, db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """A run that does not exist: one line, exit 2."""
    env = env_for(db_url, model, tmp_path)
    held_run(env)
    extra = ["--reason", "x"] if action == "reject" else []
    done = factline(env, "review", action, "999", *extra)
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
