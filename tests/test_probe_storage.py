"""The probe tables on SQLite and PostgreSQL: one answer per probe and variant, resume by key."""

from __future__ import annotations

import io

import pytest
from sqlalchemy.exc import IntegrityError

from pipeline.probe.progress import Progress
from pipeline.probe.scoring import Verdict
from pipeline.probe.storage import (
    RunKey,
    StoredAnswer,
    answered,
    latest_runs,
    open_run,
    record,
    stored,
)
from pipeline.ledger.db import open_ledger

KEY = RunKey("m", "native", "all", "p" * 12, "c" * 12, "s" * 12)


def _answer(probe_id: str, variant: str = "matched") -> StoredAnswer:
    verdict = Verdict(probe_id, "decoy", True, False, None, None, "invented")
    return StoredAnswer(probe_id, variant, verdict, None, {"content": "", "tool_calls": []}, 70, 12)


def test_a_probe_is_answered_once_per_variant(db_url):
    """A second answer to the same probe and variant in one run violates the unique constraint."""
    sessions = open_ledger(db_url)
    with sessions.begin() as s:
        run = open_run(s, KEY, fresh=False)
        record(s, run.id, _answer("a"), "decoy")
        record(s, run.id, _answer("a", "overclaimed"), "decoy")
    with pytest.raises(IntegrityError), sessions.begin() as s:
        record(s, run.id, _answer("a"), "decoy")


def test_same_key_reopens_the_latest_run_with_its_answers(db_url):
    """open_run with the same key returns the run that holds the answers; fresh opens an empty one."""
    sessions = open_ledger(db_url)
    with sessions.begin() as s:
        first = open_run(s, KEY, fresh=False)
        record(s, first.id, _answer("a"), "decoy")
    with sessions.begin() as s:
        again = open_run(s, KEY, fresh=False)
        assert again.id == first.id and again.tokens == 70
        assert answered(s, again.id) == {("a", "matched")}
        assert stored(s, again.id)[0].verdict == _answer("a").verdict
        fresh = open_run(s, KEY, fresh=True)
        assert fresh.id != first.id and answered(s, fresh.id) == set()
        assert [r.id for r in latest_runs(s)] == [fresh.id]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_redraws_at_most_once_per_interval():
    """On a terminal, updates inside the interval are skipped; the last one is always drawn."""
    now = [0.0]
    stream = Terminal()
    bar = Progress("probe", stream, interval=0.25, clock=lambda: now[0])
    for done in range(1, 11):
        now[0] += 0.1
        bar(done, 10)
    bar.close()
    draws = stream.getvalue().count("\r")
    assert draws == 4 and "10/10" in stream.getvalue() and stream.getvalue().endswith("\n")


def test_progress_writes_sparse_lines_when_not_a_terminal():
    """Into a log, the bar writes whole lines at most every log_interval seconds, plus the last one."""
    now = [0.0]
    stream = io.StringIO()
    bar = Progress("probe", stream, log_interval=10.0, clock=lambda: now[0])
    for done in range(1, 31):
        now[0] += 1.0
        bar(done, 30)
    bar.close()
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue() and [line.split()[2] for line in lines] == ["1/30", "11/30", "21/30", "30/30"]
