"""The probe tables on SQLite and PostgreSQL: one answer per probe and variant, resume by key."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import IntegrityError

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
