"""Run outcomes as types: every verdict has its exit code, the enums are their stored strings, and the journal
refuses a kind its enum does not name."""

from __future__ import annotations

import pytest

from config.secrets import Redactor
from pipeline.ledger import runs as ledger_runs
from pipeline.ledger.db import open_ledger
from pipeline.ledger.detail import run_detail
from pipeline.ledger.journal import RunJournal
from pipeline.outcome import EXIT_CODES, EventKind, NudgeKind, Verdict


def test_every_verdict_has_the_documented_exit_code() -> None:
    """success and previewed (a dry run) 0; error and interrupted 1; hallucinated 3; unverified, unavailable, incomplete 4; budget, loop 5; auth 6; awaiting_review and rejected 0, expired 4."""
    assert set(EXIT_CODES) == set(Verdict)
    assert {v.value: v.exit_code for v in Verdict} == {
        "success": 0, "previewed": 0, "error": 1, "interrupted": 130, "hallucinated": 3, "unverified": 4,
        "unavailable": 4, "incomplete": 4, "budget": 5, "loop": 5, "auth_failed": 6,
        "awaiting_review": 0, "rejected": 0, "expired": 4}


def test_enum_members_are_the_strings_the_ledger_stores() -> None:
    """A member equals, hashes and formats as its string, so stored values and string comparisons keep working."""
    assert Verdict.success == "success" and {"continue": 1}[NudgeKind.continue_] == 1
    assert f"{EventKind.tool_retry}" == "tool_retry" and str(Verdict.auth_failed) == "auth_failed"


def test_journal_refuses_a_kind_its_enum_does_not_name(db_url: str) -> None:
    """An invented event kind fails where it is written, and nothing is recorded; known kinds read back typed."""
    sessions = open_ledger(db_url)
    with sessions.begin() as s:
        run_id = ledger_runs.open_run(s, trigger="manual")
    journal = RunJournal(sessions, run_id, Redactor(()))
    journal.event(EventKind.tool_retry, tool="publish", attempt=1)
    with pytest.raises(ValueError):
        journal.event("celebration", tool="publish")  # type: ignore[arg-type]
    with sessions() as s:
        detail = run_detail(s, run_id)
    assert detail is not None and [(e.kind, e.detail) for e in detail.events] == [
        (EventKind.tool_retry, {"tool": "publish", "attempt": 1})]
