"""Approving a held run, as an editor does it: `factline` run in the test process (factline_here; two concurrent
approvals are real processes), a real ledger (SQLite and PostgreSQL), the scripted model over HTTP, the local site
served for real. The gate's modes, expiry, rejection and what the report says of waiting runs are in
test_review_gate.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from sqlalchemy import select

from pipeline.ledger.db import open_ledger
from pipeline.ledger.models import Publication, Registration, Review, Run, ToolCall
from testkit.scripted_model import ScriptedModel
from tests.cli_helpers import FACTLINE, ROOT, factline_here, factline_read
from tests.pipeline.review.editor import env_for, held_run, pages


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
    done = factline_here(env, "review", "approve", str(run_id), "--by", "alice")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "success" in done.stdout
    again = factline_here(env, "review", "approve", str(run_id), "--by", "bob")
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
    done = factline_here(env, "review", "approve", str(run_id), "--edit", str(edit), "--by", "alice")
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
    done = factline_here(env, "review", "approve", str(run_id), "--edit", str(edit))
    assert done.returncode == 1 and "refused" in done.stderr
    with open_ledger(db_url)() as s:
        assert s.get_one(Run, run_id).status == "awaiting_review"
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
