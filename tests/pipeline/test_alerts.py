"""Alerts: every verdict but success alerts, so does a day with nothing online; chat-readable, no secrets."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date, datetime, timezone

import pytest

from pipeline.alerts import no_publication_alert, run_alert
from pipeline.ledger.daily import DayLedger, DayPublication
from pipeline.ledger.detail import CallRow, ClaimRow, RunDetail
from pipeline.outcome import CallOutcome, FindingKind, RunStatus, Verdict


def detail(verdict: Verdict | None, stop_reason: str | None = None) -> RunDetail:
    return RunDetail(
        run_id=7, pipeline="content", trigger="schedule", scheduled_for=None, status=RunStatus.finished if verdict else RunStatus.running, verdict=verdict,
        stop_reason=stop_reason, error="HTTP 401 for key sk-123", model="scripted", tool_call_mode="native",
        started_at=datetime.now(timezone.utc), finished_at=datetime.now(timezone.utc), tokens=70,
        tool_calls=(CallRow(1, 1, "publish", "{}", CallOutcome.failed, "auth", None, 1, 5, "HTTP 401", None),),
        claims=(ClaimRow(1, FindingKind.claim, "publish", "已发布", False),), nudges=(), events=(), registrations=())


@pytest.mark.parametrize("verdict", [v for v in Verdict if v != Verdict.success])
def test_every_verdict_but_success_alerts_once_per_run(verdict: Verdict) -> None:
    """error, interrupted, unavailable, budget, loop, incomplete ... all alert, keyed by the run."""
    alert = run_alert(detail(verdict))
    assert alert is not None and alert.key == "run:7"
    assert alert.body["verdict"] == verdict and alert.body["event"] == "run" and alert.body["run_id"] == 7
    assert alert.body["text"].startswith(f"factline run 7 ended {verdict} (") and "\n" not in alert.body["text"]


def test_success_and_a_run_still_going_do_not_alert() -> None:
    """A verified success, or a run with no verdict yet, sends nothing."""
    assert run_alert(detail(Verdict.success)) is None and run_alert(detail(None)) is None


def test_the_body_reads_in_chat_and_carries_the_facts_but_no_error_text() -> None:
    """text names the run, verdict, reason and the facts; the fields repeat them; the error text never appears."""
    alert = run_alert(detail(Verdict.hallucinated, stop_reason="nudges_exhausted"))
    assert alert is not None
    body = alert.body
    assert body["text"] == ("factline run 7 ended hallucinated (nudges_exhausted, exit 3): unbacked claims "
                            "claim:publish; failed calls publish:auth")
    assert (body["reason"], body["unbacked_claims"], body["failed_calls"]) == (
        "nudges_exhausted", ["claim:publish"], ["publish:auth"])
    assert "sk-123" not in json.dumps(body, ensure_ascii=False)


@pytest.mark.parametrize(("verdict", "reason"), [(Verdict.hallucinated, "unbacked_claims"),
                                                 (Verdict.unavailable, "retry_exhausted"),
                                                 (Verdict.auth_failed, "auth")])
def test_without_a_stop_reason_the_reason_is_a_code_for_the_verdict(verdict: Verdict, reason: str) -> None:
    """The reason is a code derived from the verdict, never error text."""
    alert = run_alert(detail(verdict))
    assert alert is not None and alert.body["reason"] == reason


def day(*publications: DayPublication, verdicts: dict[str, int] | None = None) -> DayLedger:
    counts = verdicts if verdicts is not None else {"unavailable": 2, "error": 1}
    return DayLedger(pipeline="content", day=date(2026, 1, 31), time_zone="Asia/Shanghai", runs=sum(counts.values()), verdicts=counts,
                     publications=list(publications), hallucinations_caught=0, failures=[])


def test_a_day_with_nothing_online_alerts_once_for_that_day() -> None:
    """No publication, or only ones never verified online: an alert keyed by the day, with the day's verdicts."""
    alert = no_publication_alert(day(DayPublication(3, "http://127.0.0.1/x", None, "GET answered 404", None)))
    assert alert is not None and alert.key == "no_publication:2026-01-31"
    assert alert.body["text"] == ("factline: nothing published online on 2026-01-31 (Asia/Shanghai); "
                                  "3 runs (error 1, unavailable 2)")
    assert (alert.body["event"], alert.body["runs"], alert.body["publications_not_online"]) == ("no_publication", 3, 1)
    assert no_publication_alert(day(verdicts={})).body["text"].endswith("; 0 runs")  # type: ignore[union-attr]


def test_a_day_with_a_publication_online_does_not_alert() -> None:
    """One verified publication is enough."""
    online = DayPublication(4, "http://127.0.0.1/y", datetime(2026, 1, 31, 6, tzinfo=timezone.utc), "page holds 100% of the article",
                            "CT-20260131-001")
    assert no_publication_alert(day(online, replace(online, verified_at=None))) is None
