"""Webhook alerts: which verdicts alert, and a failing webhook never stops the daemon nor leaks its URL."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import httpx
import pytest
from loguru import logger

from pipeline.alerts import send_alert
from pipeline.ledger.detail import CallRow, ClaimRow, RunDetail
from pipeline.outcome import CallOutcome, FindingKind, RunStatus, Verdict

URL = "https://hooks.example.test/services/T0/B0/secret-token"


def detail(verdict: str) -> RunDetail:
    return RunDetail(
        run_id=7, trigger="manual", status=RunStatus.finished, verdict=Verdict(verdict), stop_reason=None,
        error="HTTP 401 for key sk-123", model="scripted", tool_call_mode="native",
        started_at=datetime.now(timezone.utc), finished_at=datetime.now(timezone.utc), tokens=70,
        tool_calls=(CallRow(1, 1, "publish", "{}", CallOutcome.failed, "auth", None, 1, 5, "HTTP 401", None),),
        claims=(ClaimRow(1, FindingKind.claim, "publish", "已发布", False),), nudges=(), events=(), registrations=())


def test_only_alerting_verdicts_post() -> None:
    """hallucinated, unverified and auth_failed post once each; success posts nothing."""
    posted: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        posted.append(request.content)
        return httpx.Response(204)

    with httpx.Client(transport=httpx.MockTransport(handler)) as http:
        sent = [send_alert(http, URL, detail(v)) for v in ("success", "hallucinated", "unverified", "auth_failed")]
    assert sent == [False, True, True, True] and len(posted) == 3
    assert all(b"sk-123" not in body for body in posted)  # error text is never sent


def test_failing_webhook_is_logged_without_its_url() -> None:
    """A 500 from the webhook returns False and logs the status, never the URL (it may carry a token)."""
    lines: list[str] = []
    sink = logger.add(lines.append, format="{message} {extra}")
    try:
        with httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(500))) as http:
            assert send_alert(http, URL, detail("hallucinated")) is False
    finally:
        logger.remove(sink)
    assert any("alert.failed" in line and "500" in line for line in lines)
    assert not any("secret-token" in line for line in lines)


@pytest.mark.parametrize("verdict", ["hallucinated", "auth_failed"])
def test_alert_reason_is_a_code_from_the_ledger(verdict: str) -> None:
    """Without a stop reason, the alert's reason is derived from the verdict, not from error text."""
    bodies: list[dict] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200)

    with httpx.Client(transport=httpx.MockTransport(handler)) as http:
        send_alert(http, URL, detail(verdict))
    assert bodies[0]["reason"] == {"hallucinated": "unbacked_claims", "auth_failed": "auth"}[verdict]
    assert bodies[0]["unbacked_claims"] == ["claim:publish"]
