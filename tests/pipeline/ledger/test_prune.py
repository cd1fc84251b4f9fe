"""Retention (`factline db prune`): the bulky texts of old runs go, every reader still answers for their days,
held and running runs and the published texts stay; SQLite and PostgreSQL, real `factline` processes."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from benchmarks.dashboard_ledger import generate
from pipeline.ledger.db import open_ledger
from pipeline.ledger.models import (AgentTurn, Draft, DraftVersion, Publication, PublicationChange, Registration, Run,
                                    Source, ToolCall)
from pipeline.ledger.prune import BATCH_RUNS, Archive, prune
from pipeline.web import WebServer, build_app, read_only_ledger
from testkit.daemon_process import DaemonProcess, daemon_env, wait_for
from testkit.scripted_model import ScriptedModel, happy_path
from tests.cli_helpers import FACTLINE, ROOT, factline, user_env
from tests.conftest import BACKENDS, make_settings
from tests.pipeline.review.test_amend import free_port

DAYS_BACK = 3
TALK = "Calling the next step of the pipeline now, with the ids the last result gave. " * 3
FACT = "On September 22, 2026 a scheduled content agent finished its nightly run with exit code 0.\n"


def backdate(db_url: str, days: int) -> None:
    """Move every run, publication, registration and change ``days`` into the past, as if they were old."""
    shift = timedelta(days=days)
    with open_ledger(db_url).begin() as s:
        for run in s.scalars(select(Run)):
            run.started_at -= shift
            run.finished_at = run.finished_at - shift if run.finished_at else None
        for table in (Publication, Registration, PublicationChange):
            for row in s.scalars(select(table)):
                row.created_at -= shift


def texts_of(db_url: str, run_id: int) -> dict[str, object]:
    with open_ledger(db_url)() as s:
        return {
            "turns": list(s.scalars(select(AgentTurn.text).where(AgentTurn.run_id == run_id).order_by(AgentTurn.turn))),
            "arguments": list(s.scalars(select(ToolCall.arguments).where(ToolCall.run_id == run_id)
                                        .order_by(ToolCall.seq))),
            "sources": list(s.scalars(select(Source.text).where(Source.run_id == run_id))),
            "bodies": dict(s.execute(select(DraftVersion.id, DraftVersion.body).join(Draft).where(
                Draft.run_id == run_id)).tuples().all()),
        }


@pytest.mark.slow  # twelve `factline` processes
def test_prune_clears_old_texts_and_every_reader_still_answers_for_those_days(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """After a prune: diff, report --day, runs, the dashboard's Today, run and publications pages answer as before
    ("text pruned" where text was); running and held runs, published texts and source texts of published runs
    stay; the archive holds what went; a correction still passes its fact check; a second prune does nothing."""
    env = user_env(DATABASE_URL=db_url, OPENAI_BASE_URL=model.base_url, FACTLINE_MODEL="scripted",
                   LOCAL_SITE_DIR=str(tmp_path / "site"), LOCAL_SITE_PORT=str(free_port()), RETRY_BASE_DELAY="0.01",
                   PREVIEW_DIR=str(tmp_path / "preview"))
    model.policy = lambda request: dataclasses.replace(happy_path(request), text=TALK)
    for _ in range(2):
        assert factline(env, "run").returncode == 0
    held = factline({**env, "REVIEW_MODE": "required"}, "run")
    assert held.returncode == 0 and "awaits review" in held.stdout, held.stdout + held.stderr
    with open_ledger(db_url)() as s:
        first, second = s.scalars(select(Publication).order_by(Publication.id)).all()
    assert factline(env, "retract", str(second.id), "--reason", "outdated").returncode == 0
    with open_ledger(db_url).begin() as s:  # a run in flight (written by hand: no process runs it here)
        running = Run(trigger="manual", status="running", started_at=datetime.now(timezone.utc))
        s.add(running)
        s.flush()
        s.add(AgentTurn(run_id=running.id, turn=1, text="Writing the draft now. " * 20))
        s.add(ToolCall(run_id=running.id, seq=1, turn=1, name="write_draft", arguments="{" + " " * 300 + "}",
                       outcome="ok"))
        running_id = running.id
    backdate(db_url, DAYS_BACK)
    day = (datetime.now(timezone.utc) - timedelta(days=DAYS_BACK)).date().isoformat()
    with open_ledger(db_url)() as s:
        held_id = s.scalar(select(Run.id).where(Run.status == "awaiting_review"))
        published_bodies = dict(s.execute(select(DraftVersion.id, DraftVersion.body).where(
            DraftVersion.id.in_([first.draft_version_id, second.draft_version_id]))).tuples().all())
    before = {"diff": factline(env, "diff", "--last", "10", "--json").stdout,
              "report": factline(env, "report", "--day", day, "--json").stdout}
    kept = {run_id: texts_of(db_url, run_id) for run_id in (held_id, running_id)}
    old_texts = texts_of(db_url, first.run_id)
    assert any(old_texts["turns"]) and all(old_texts["sources"])

    archive = tmp_path / "pruned.jsonl"
    today = datetime.now(timezone.utc).date().isoformat()
    done = factline(env, "db", "prune", "--before", today, "--archive", str(archive))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pruned 2 runs" in done.stdout

    assert factline(env, "diff", "--last", "10", "--json").stdout == before["diff"]
    assert factline(env, "report", "--day", day, "--json").stdout == before["report"]
    assert {run_id: texts_of(db_url, run_id) for run_id in kept} == kept
    pruned = texts_of(db_url, first.run_id)
    assert not any(pruned["turns"]) and pruned["sources"] == old_texts["sources"]  # it published: sources stay
    assert all(len(a) <= 200 for a in pruned["arguments"])
    with open_ledger(db_url)() as s:
        assert s.get_one(Run, first.run_id).pruned_at is not None and s.get_one(Run, held_id).pruned_at is None
        assert dict(s.execute(select(DraftVersion.id, DraftVersion.body).where(
            DraftVersion.id.in_(list(published_bodies)))).tuples().all()) == published_bodies
        assert {r.number for r in s.scalars(select(Registration))} and s.scalar(
            select(func.count()).select_from(PublicationChange)) == 1
    lines = [json.loads(line) for line in archive.read_text().splitlines()]
    assert sorted(r["run_id"] for r in lines) == [first.run_id, second.run_id]
    archived = next(r for r in lines if r["run_id"] == first.run_id)
    assert [t["text"] for t in archived["turns"]] == [t for t in old_texts["turns"] if t]

    shown = factline(env, "runs", "--run", str(first.run_id))
    assert shown.returncode == 0 and "text pruned" in shown.stdout
    settings = make_settings(db_url, model.base_url, tmp_path)
    with WebServer(build_app(settings.deployment(), settings, read_only_ledger(db_url)), "127.0.0.1", 0) as server, \
            httpx.Client(base_url=server.url) as web:
        page = web.get(f"/runs/{first.run_id}")
        assert page.status_code == 200 and "text pruned" in page.text
        assert "Writing the draft now." in web.get(f"/runs/{running_id}").text
        listed = web.get("/api/today", params={"day": day}).json()
        assert {first.run_id, second.run_id, held_id} <= {r["id"] for r in listed["runs"]}
        publications = web.get("/publications")
        assert publications.status_code == 200 and first.url in publications.text

    edit = tmp_path / "fixed.md"
    edit.write_text("# A corrected title\n\n" + FACT)
    corrected = factline(env, "correct", str(first.id), "--edit", str(edit), "--reason", "tighter", "--by", "bo")
    assert corrected.returncode == 0, corrected.stdout + corrected.stderr
    again = factline(env, "db", "prune", "--before", today, "--archive", str(archive))
    assert again.returncode == 0 and "pruned 0 runs" in again.stdout
    assert len(archive.read_text().splitlines()) == 2


def test_a_batch_that_fails_after_archiving_rolls_back_and_the_next_prune_finishes(
        db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch that fails after its archive lines were fsynced rolls back: its runs keep every text, the
    batches before it stay pruned; the next prune prunes the rest (their lines then appear twice)."""
    generate(db_url, 30, per_day=10)
    sessions = open_ledger(db_url)
    archive = tmp_path / "archive.jsonl"
    write = Archive.write
    batches = []

    def failing_third(self: Archive, records: object) -> int:
        written = write(self, records)  # type: ignore[arg-type]
        batches.append(written)
        if len(batches) == 3:
            raise OSError("the disk went away")
        return written

    cut = datetime.now(timezone.utc) + timedelta(days=1)
    monkeypatch.setattr(Archive, "write", failing_third)
    with pytest.raises(OSError):
        prune(sessions, cut, archive, size=10)
    monkeypatch.undo()
    with sessions() as s:
        assert s.scalar(select(func.count()).where(Run.pruned_at.is_not(None))) == 20
        whole = s.scalars(select(AgentTurn.run_id).join(Run, Run.id == AgentTurn.run_id).where(
            Run.pruned_at.is_(None), AgentTurn.text != "")).all()
        assert sorted(set(whole)) == list(range(21, 31)) and len(whole) == 20  # two texts each, untouched
    assert prune(sessions, cut, archive, size=10).runs == 10
    with sessions() as s:
        assert s.scalar(select(func.count()).select_from(AgentTurn).where(AgentTurn.text != "")) == 0
    ids = [json.loads(line)["run_id"] for line in archive.read_text().splitlines()]
    assert sorted(set(ids)) == list(range(1, 31)) and len(ids) == 40
    sessions.kw["bind"].dispose()


def whole_lines(archive: Path) -> list[dict[str, object]]:
    """The archive's records, without a last line a kill tore (one without its newline)."""
    return [json.loads(line) for line in archive.read_text(encoding="utf-8").splitlines(keepends=True)
            if line.endswith("\n")]


@pytest.mark.slow  # a ledger of 3,000 runs, a prune killed -9, a second prune
def test_prune_killed_midway_loses_nothing_and_the_next_one_finishes(db_url: str, tmp_path: Path) -> None:
    """kill -9 during `factline db prune`: every run is either pruned (its lines in the archive) or untouched;
    the prune run again finishes with every run pruned, and every line of the archive is whole."""
    generate(db_url, 3000, per_day=1000)
    archive = tmp_path / "archive.jsonl"
    env = user_env(DATABASE_URL=db_url)
    today = datetime.now(timezone.utc).date().isoformat()
    backdate(db_url, 1)  # every run into yesterday and before, so that --before today takes all
    proc = subprocess.Popen([*FACTLINE, "db", "prune", "--before", today, "--archive", str(archive)],
                            env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while proc.poll() is None and (not archive.exists() or archive.read_bytes().count(b"\n") <= BATCH_RUNS):
        time.sleep(0.01)  # until the second batch is being archived: the first one has committed
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    sessions = open_ledger(db_url)
    with sessions() as s:
        pruned = set(s.scalars(select(Run.id).where(Run.pruned_at.is_not(None))))
        with_text = set(s.scalars(select(AgentTurn.run_id).where(AgentTurn.text != "")))
    assert pruned and not pruned & with_text  # a pruned run has no text left; the others have all theirs
    assert with_text | pruned == set(range(1, 3001))
    assert pruned <= {record["run_id"] for record in whole_lines(archive)}
    done = factline(env, "db", "prune", "--before", today, "--archive", str(archive))
    assert done.returncode == 0, done.stderr
    with sessions() as s:
        assert s.scalar(select(func.count()).where(Run.pruned_at.is_(None))) == 0
    lines = archive.read_text(encoding="utf-8").splitlines()
    assert {json.loads(line)["run_id"] for line in lines} == set(range(1, 3001))  # each line parses
    sessions.kw["bind"].dispose()


def test_a_torn_last_line_is_cut_before_the_next_prune_appends(db_url: str, tmp_path: Path) -> None:
    """An archive whose last line a kill tore (no newline): the next prune cuts the fragment off, so that
    its own lines start on a line of their own and every line of the file is whole JSON."""
    generate(db_url, 20, per_day=10)
    archive = tmp_path / "archive.jsonl"
    kept = json.dumps({"run_id": 0, "turns": []}) + "\n"
    archive.write_text(kept + '{"run_id": 7, "turns": [{"turn": 1, "te', encoding="utf-8")
    sessions = open_ledger(db_url)
    assert prune(sessions, datetime.now(timezone.utc) + timedelta(days=1), archive).runs == 20
    lines = archive.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[0] == kept and all(line.endswith("\n") for line in lines)
    assert sorted(json.loads(line)["run_id"] for line in lines) == list(range(0, 21))
    sessions.kw["bind"].dispose()


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.is_file())


@pytest.mark.slow  # two ledgers of 1,000 runs, four prunes
@pytest.mark.skipif("sqlite" not in BACKENDS, reason="SQLite only")
def test_the_sqlite_file_shrinks_after_a_prune(tmp_path: Path) -> None:
    """A ledger factline made (incremental auto-vacuum) gives back the pages of long texts as it is pruned;
    --vacuum shrinks any ledger, and switches an older one (no auto-vacuum) to incremental auto-vacuum."""
    sizes: dict[str, list[int]] = {}
    for name in ("new", "old"):
        path = tmp_path / f"{name}.db"
        url = f"sqlite:///{path}"
        generate(url, 1000, per_day=1000, source_chars=8000)  # 15% of runs do not publish: their sources go
        backdate(url, 1)
        with sqlite3.connect(path) as conn:
            if name == "old":
                conn.execute("PRAGMA auto_vacuum=NONE")
                conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        env = user_env(DATABASE_URL=url)
        args = ["db", "prune", "--before", datetime.now(timezone.utc).date().isoformat()]
        sizes[name] = [_size(path)]
        assert factline(env, *args).returncode == 0
        sizes[name].append(_size(path))
        assert factline(env, *args, "--vacuum").returncode == 0  # nothing left to prune: only the vacuum
        sizes[name].append(_size(path))
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA auto_vacuum").fetchone() == (2,)
    print(f"\nSQLite ledger of 1,000 runs, bytes before, after the prune, after --vacuum: {sizes}")
    freed = 150 * 8000  # the sources of the runs that did not publish, each in overflow pages of its own
    assert sizes["new"][1] <= sizes["new"][0] - freed * 0.8
    assert sizes["old"][1] >= sizes["old"][0] - 100_000  # free pages stay inside the file
    assert sizes["old"][2] <= sizes["old"][0] - freed
    assert sizes["new"][2] < sizes["new"][1]  # the rows' shortened texts leave room only a rewrite gives back


def test_the_daemon_prunes_at_prune_cron_runs_older_than_prune_after_days(
        db_url: str, model: ScriptedModel, tmp_path: Path) -> None:
    """PRUNE_AFTER_DAYS=2: at PRUNE_CRON the daemon prunes the runs older than two days, not the younger ones,
    archives their texts to PRUNE_ARCHIVE_DIR/prune-<UTC date>.jsonl and logs prune.finished with the count."""
    generate(db_url, 40, per_day=10)  # four days of runs, ending today
    backdate(db_url, 1)
    archives = tmp_path / "archives"
    env = daemon_env(db_url, model.base_url, tmp_path, SCHEDULE_CRON="0 0 1 1 *", PRUNE_AFTER_DAYS="2",
                     PRUNE_CRON="* * * * * *", PRUNE_ARCHIVE_DIR=str(archives))
    cut = datetime.now(timezone.utc) - timedelta(days=2)
    with open_ledger(db_url)() as s:
        old = set(s.scalars(select(Run.id).where(Run.started_at < cut - timedelta(seconds=5))))
        young = set(s.scalars(select(Run.id).where(Run.started_at >= cut + timedelta(seconds=5))))
    assert old and young
    daemon = DaemonProcess(env, tmp_path / "daemon.log")
    try:
        wait_for(lambda: "prune.finished" in daemon.logs(), 60)
    finally:
        assert daemon.stop() == 0
    with open_ledger(db_url)() as s:
        pruned = set(s.scalars(select(Run.id).where(Run.pruned_at.is_not(None))))
    assert old <= pruned and not young & pruned
    archived = {record["run_id"] for path in archives.glob("prune-*.jsonl") for record in whole_lines(path)}
    assert archived == pruned


def test_an_archive_folder_the_daemon_cannot_write_fails_at_start_with_one_line(tmp_path: Path) -> None:
    """PRUNE_ARCHIVE_DIR under a file: exit 2 and one line on stderr naming the setting; nothing started."""
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    env = daemon_env(f"sqlite:///{tmp_path}/ledger.db", "http://127.0.0.1:9/v1", tmp_path, PRUNE_AFTER_DAYS="30",
                     PRUNE_ARCHIVE_DIR=str(blocker / "archives"))
    done = subprocess.run([sys.executable, "-m", "pipeline.cli", "daemon"], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "PRUNE_ARCHIVE_DIR" in done.stderr, done.stderr
    assert not (tmp_path / "ledger.db").exists()
