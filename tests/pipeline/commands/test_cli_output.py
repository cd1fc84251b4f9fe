"""What `runs`, `report` and `diff` print from a real ledger: tables, JSON, time zones, closed pipes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from testkit.scripted_model import ScriptedModel, say, script
from tests.cli_helpers import ROOT, factline_here, factline_read, piped, user_env

CLAIM = "已发布，登记号 CT-20260101-001"


@pytest.fixture(scope="module")
def ledger(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], Path]]:
    """A folder whose SQLite ledger holds three runs made by `factline run` (in this process: factline_here):
    success, success, hallucinated."""
    folder = tmp_path_factory.mktemp("ledger")
    with ScriptedModel() as model:
        env = user_env(DATABASE_URL=f"sqlite:///{folder}/ledger.db", OPENAI_BASE_URL=model.base_url,
                       FACTLINE_MODEL="scripted", LOCAL_SITE_DIR=str(folder / "site"), LOCAL_SITE_PORT="0")
        assert [factline_here(env, "run").returncode for _ in range(2)] == [0, 0]
        model.policy = script(say(CLAIM), say(CLAIM), say(CLAIM))
        assert factline_here(env, "run").returncode == 3
        yield env, folder


COLUMNS = ["RUN", "STARTED", "TOOK", "TRIGGER", "VERDICT", "MODEL", "TOPIC", "URL"]


def cells(header: str, row: str) -> dict[str, str]:
    """A table row cut at the header's column starts (RUN is right-aligned, so it ends where STARTED begins)."""
    starts = [0] + [header.index(name) for name in COLUMNS[1:]] + [len(row)]
    return {name: row[starts[i]:starts[i + 1]].strip() for i, name in enumerate(COLUMNS)}


def test_runs_is_a_table_with_a_header_duration_model_topic_and_url(ledger) -> None:
    """One header naming the time zone, then a row per run, newest first, with what each run did."""
    env, _ = ledger
    done = factline_read({**env, "TZ": "UTC"}, "runs")
    header, *rows = done.stdout.splitlines()
    assert done.returncode == 0 and done.stderr == ""
    assert header.split() == ["RUN", "STARTED", "(UTC)", "TOOK", "TRIGGER", "VERDICT", "MODEL", "TOPIC", "URL"]
    table = [cells(header, row) for row in rows]
    assert [(r["RUN"], r["VERDICT"], r["TRIGGER"], r["MODEL"]) for r in table] == [
        ("3", "hallucinated", "manual", "scripted"), ("2", "success", "manual", "scripted"),
        ("1", "success", "manual", "scripted")]
    assert all(re.fullmatch(r"\d+(\.\d)? s", r["TOOK"]) for r in table)
    assert table[1]["URL"].startswith("http://127.0.0.1:") and table[1]["TOPIC"] not in ("", "-")
    assert table[0]["URL"] == "-"


def test_runs_shows_local_time_with_its_zone_or_utc_when_asked(ledger) -> None:
    """TZ=Asia/Shanghai: times 8 h ahead of --utc, and the header says UTC+08:00."""
    env, _ = ledger
    local = factline_read({**env, "TZ": "Asia/Shanghai"}, "runs", "--limit", "1").stdout.splitlines()
    utc = factline_read({**env, "TZ": "Asia/Shanghai"}, "runs", "--limit", "1", "--utc").stdout.splitlines()
    assert "UTC+08:00" in local[0] and "(UTC)" in utc[0]

    def started(header: str, row: str) -> datetime:
        return datetime.strptime(cells(header, row)["STARTED"], "%Y-%m-%d %H:%M:%S")

    assert started(*local) - started(*utc) == timedelta(hours=8)


def test_every_json_time_is_iso_8601_with_an_offset(ledger) -> None:
    """runs --json, runs --run N --json and report --json: times parse as ISO 8601 and carry UTC+00:00."""
    env, _ = ledger
    listed = json.loads(factline_read(env, "runs", "--json").stdout)
    detail = json.loads(factline_read(env, "runs", "--run", "1", "--json").stdout)
    for when in [r["started_at"] for r in listed] + [r["finished_at"] for r in listed] + [
            detail["started_at"], detail["finished_at"]]:
        assert datetime.fromisoformat(when).utcoffset() == timedelta(0)
    assert listed[0]["seconds"] > 0 and listed[2]["topic"] and listed[2]["url"].startswith("http://127.0.0.1:")
    day = json.loads(factline_read(env, "report", "--json").stdout)
    assert day["day"] == datetime.now(timezone.utc).date().isoformat() and day["runs"] == 3


def test_runs_run_reports_the_duration_the_ledger_holds(ledger) -> None:
    """`runs --run 1` says how long run 1 took (finished - started), not "in 0.0 s"."""
    env, _ = ledger
    detail = json.loads(factline_read(env, "runs", "--run", "1", "--json").stdout)
    took = (datetime.fromisoformat(detail["finished_at"]) - datetime.fromisoformat(detail["started_at"]))
    first = factline_read(env, "runs", "--run", "1").stdout.splitlines()[0]
    assert first.startswith(f"run 1: success (exit 0) in {took.total_seconds():.1f} s,") and " 0.0 s" not in first


@pytest.mark.parametrize("value", ["0", "-1", "many"])
def test_limit_must_be_a_whole_number_of_one_or_more(ledger, value: str) -> None:
    """--limit 0, -1 or a word: a usage error, exit 2, one line naming --limit."""
    env, _ = ledger
    done = factline_read(env, "runs", "--limit", value)
    assert done.returncode == 2 and "argument --limit" in done.stderr and done.stdout == ""


@pytest.mark.parametrize(("command", "reader"), [
    ("runs", "head -1"), ("runs --json", "head -c 600"), ("runs", "true"), ("runs --run 1 --json", "true"),
    ("report", "head -1"), ("diff --last 3", "true"),
])
def test_a_closed_pipe_ends_quietly_with_the_commands_own_exit_code(ledger, command: str, reader: str) -> None:
    """`| head -1`, `| head -c 600`, `| true` (which closes at once): no traceback, exit 0 under pipefail;
    diff keeps its exit 1 for a listed hallucination."""
    env, _ = ledger
    done = piped(env, command, reader)
    assert done.stderr == "" and done.returncode == (1 if command.startswith("diff") else 0)
    if reader == "head -1":
        assert len(done.stdout.splitlines()) == 1


def test_a_run_read_through_a_closed_pipe_keeps_its_verdicts_exit_code(ledger) -> None:
    """`factline run | true` for a hallucinated run: exit 3, not 0 and not 141, and no traceback."""
    env, _ = ledger
    done = piped(env, "run --topic 'A topic for the pipe test'", "true")
    assert done.returncode == 3 and "Traceback" not in done.stderr


@pytest.mark.parametrize("day", ["today", "yesterday", None])
def test_report_day_is_today_by_default_yesterday_or_a_date(ledger, day: str | None) -> None:
    """report, report --day today, --day yesterday: the first line names the day in SCHEDULE_TIMEZONE."""
    env, _ = ledger
    done = factline_read(env, "report", *(["--day", day] if day else []))
    today = datetime.now(timezone.utc).date()
    expected = today - timedelta(days=1) if day == "yesterday" else today
    assert done.returncode == 0 and done.stdout.splitlines()[0].startswith(f"{expected} (UTC): ")


def test_report_rejects_a_day_it_cannot_read(ledger) -> None:
    """--day tomorrow is a usage error naming the accepted forms."""
    env, _ = ledger
    done = factline_read(env, "report", "--day", "tomorrow")
    assert done.returncode == 2 and "today, yesterday or a YYYY-MM-DD date" in done.stderr


def test_diff_and_the_script_print_the_same_from_any_folder(ledger, tmp_path: Path) -> None:
    """`factline diff --last 3` and `python scripts/ledger_diff.py --last 3`, run elsewhere, agree (exit 1)."""
    import subprocess
    import sys

    env, _ = ledger
    cli = factline_read(env, "diff", "--last", "3", cwd=tmp_path)
    script_run = subprocess.run([sys.executable, str(ROOT / "scripts" / "ledger_diff.py"), "--last", "3"], env=env,
                                cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert cli.returncode == script_run.returncode == 1
    assert cli.stdout == script_run.stdout and "hallucinated={" in cli.stdout
    assert list(tmp_path.iterdir()) == []
