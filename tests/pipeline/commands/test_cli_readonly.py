"""Read-only commands never create a ledger or a file; settings fail at start, all of them, one line each."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from pipeline.ledger.db import open_ledger
from tests.cli_helpers import factline, factline_here, factline_read, piped, user_env
from tests.conftest import fresh_pg_database

READ_ONLY = [["runs"], ["runs", "--json"], ["runs", "--run", "1"], ["report"], ["report", "--day", "yesterday"],
             ["diff"], ["diff", "--last", "5", "--json"], ["probe", "report"]]


def files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("words", READ_ONLY, ids=[" ".join(w) for w in READ_ONLY])
def test_in_an_empty_folder_a_read_only_command_says_what_is_missing_and_creates_nothing(
        tmp_path: Path, words: list[str]) -> None:
    """No ledger here: one line naming the absolute path it looked for, exit 2, and the folder stays empty."""
    done = factline_read(user_env(), *words, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"factline: no ledger at {tmp_path}/var/factline.db (DATABASE_URL); nothing has run " \
                          "here yet: set DATABASE_URL, or run from the folder factline runs in\n"
    assert files(tmp_path) == []


def test_a_database_without_a_ledger_is_named_and_left_untouched() -> None:
    """A PostgreSQL database with no factline tables: one line saying so (password hidden); no table created."""
    with fresh_pg_database() as url:
        with_password = url.replace("://", "://:hunter2@", 1) if "@" not in url else url.replace("@", ":hunter2@", 1)
        done = factline_read(user_env(DATABASE_URL=with_password), "runs")
        engine = create_engine(url)
        with engine.connect() as conn:
            count = conn.execute(text(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")).scalar()
        engine.dispose()
    assert done.returncode == 2 and "holds no factline ledger" in done.stderr and "hunter2" not in done.stderr
    assert count == 0


def test_no_such_run_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """runs --run 99 and diff --run 99 on a ledger without run 99: `factline: no run 99 in the ledger`, exit 2."""
    env = user_env(DATABASE_URL=f"sqlite:///{tmp_path}/ledger.db")
    open_ledger(env["DATABASE_URL"])
    for words in (["runs", "--run", "99"], ["diff", "--run", "99"]):
        done = factline_read(env, *words)
        assert (done.returncode, done.stderr) == (2, "factline: no run 99 in the ledger\n")


def test_probe_report_writes_html_only_where_out_says(tmp_path: Path) -> None:
    """From a folder holding docs/probe-report.html, probe report leaves it alone; --out FILE writes FILE."""
    env = user_env(DATABASE_URL=f"sqlite:///{tmp_path}/ledger.db")
    ledger = open_ledger(env["DATABASE_URL"])  # held open to the end: its -wal/-shm files stay in both listings
    page = tmp_path / "docs" / "probe-report.html"
    page.parent.mkdir()
    page.write_text("kept", encoding="utf-8")
    before = files(tmp_path)
    assert factline_read(env, "probe", "report", cwd=tmp_path).returncode == 0
    assert files(tmp_path) == before and page.read_text(encoding="utf-8") == "kept"
    done = factline_read(env, "probe", "report", "--out", "out/trend.html", cwd=tmp_path)
    assert done.returncode == 0 and (tmp_path / "out" / "trend.html").read_text(encoding="utf-8").startswith("<!")
    ledger.kw["bind"].dispose()


def test_every_bad_setting_is_one_line_at_start_and_nothing_runs(tmp_path: Path) -> None:
    """Four bad values: four `factline: invalid setting NAME: ...` lines (the deployment's first), exit 2, no
    ledger created."""
    env = user_env(DATABASE_URL=f"sqlite:///{tmp_path}/ledger.db", LOG_LEVEL="loud", RUN_MAX_TURNS="0",
                   SCHEDULE_CRON="0 0 31 2 *", OPENAI_BASE_URL="localhost:8080")
    done = factline_here(env, "run", cwd=tmp_path)
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and done.stdout == ""
    assert [line.split(":")[1].strip() for line in lines] == [
        "invalid setting LOG_LEVEL", "invalid setting OPENAI_BASE_URL", "invalid setting RUN_MAX_TURNS",
        "invalid setting SCHEDULE_CRON"]
    assert "never fires" in lines[3] and files(tmp_path) == []


def test_a_cron_that_never_fires_stops_the_daemon_before_it_starts(tmp_path: Path) -> None:
    """SCHEDULE_CRON='0 0 31 2 *' (February 31st): the daemon exits 2 with one line, before serving anything."""
    env = user_env(DATABASE_URL=f"sqlite:///{tmp_path}/ledger.db", SCHEDULE_CRON="0 0 31 2 *")
    done = factline(env, "daemon", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "factline: invalid setting SCHEDULE_CRON: '0 0 31 2 *' never fires (no such date in any " \
                          "year)\n"


def test_log_level_is_read_in_any_case(tmp_path: Path) -> None:
    """LOG_LEVEL=debug is accepted like DEBUG."""
    env = user_env(DATABASE_URL=f"sqlite:///{tmp_path}/ledger.db", LOG_LEVEL="debug")
    open_ledger(env["DATABASE_URL"])
    assert factline_read(env, "runs").returncode == 0


def test_model_status_through_a_closed_pipe_keeps_its_exit_code(tmp_path: Path) -> None:
    """`factline model status | true` on an empty cache: exit 1 (not ready) under pipefail, no traceback."""
    done = piped(user_env(MODEL_CACHE_DIR=str(tmp_path / "cache")), "model status", "true", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")


@pytest.mark.parametrize("words", [["runs"], ["report"], ["run"], ["web"]], ids=["runs", "report", "run", "web"])
def test_a_ledger_from_a_newer_factline_is_refused_in_one_line_by_reads_writes_and_the_dashboard(
        tmp_path: Path, words: list[str]) -> None:
    """The ledger's alembic revision is one this code does not ship: one line saying so, no advice to upgrade (which
    would crash), no traceback, the revision left as it was."""
    url = f"sqlite:///{tmp_path}/var/factline.db"
    open_ledger(url)
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    command = factline if words[0] == "web" else factline_here  # the dashboard serves until a signal: a process
    done = command(user_env(DATABASE_URL=url, WEB_PORT="0"), *words, cwd=tmp_path)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "is at migration 9999, made by a newer factline" in done.stderr, done.stderr
    assert "upgrade" not in done.stderr
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == "9999"
