"""Alerts: a JSON POST to ALERT_WEBHOOK_URL when a run ends in a verdict someone must look at.

The body carries the run id, the verdict and a reason code counted from the ledger, never error
text (which may quote an endpoint's answer) and never a setting. Delivery errors are logged, not raised.
"""

from __future__ import annotations

from typing import Any

import httpx
from loguru import logger

from pipeline.ledger.detail import RunDetail
from pipeline.outcome import CallOutcome, Verdict

ALERT_REASONS = {  # the verdicts that alert, and the reason code when no stop rule gave one
    Verdict.hallucinated: "unbacked_claims",
    Verdict.unverified: "publication_not_online",
    Verdict.auth_failed: "auth",
}


def alert_body(detail: RunDetail) -> dict[str, Any]:
    """What the webhook receives for one run: run_id, verdict, reason, and the facts behind the reason."""
    unbacked = sorted({f"{c.kind}:{c.capability or c.span[:80]}" for c in detail.claims if not c.backed})
    failed = sorted({f"{c.name}:{c.reason}" for c in detail.tool_calls if c.outcome == CallOutcome.failed})
    reason = detail.stop_reason or ALERT_REASONS.get(detail.verdict, detail.verdict)
    return {"run_id": detail.run_id, "verdict": detail.verdict, "reason": reason,
            "unbacked_claims": unbacked, "failed_calls": failed}


def send_alert(http: httpx.Client, url: str, detail: RunDetail) -> bool:
    """POST the alert for a run whose verdict calls for one; True if the webhook answered 2xx."""
    if detail.verdict not in ALERT_REASONS:
        return False
    body = alert_body(detail)
    try:
        http.post(url, json=body).raise_for_status()
    except httpx.HTTPStatusError as exc:  # the message would quote the URL, which may hold a token
        logger.error("alert.failed", verdict=body["verdict"], status=exc.response.status_code)
        return False
    except httpx.HTTPError as exc:
        logger.error("alert.failed", verdict=body["verdict"], error=exc.__class__.__name__)
        return False
    logger.info("alert.sent", verdict=body["verdict"], reason=body["reason"])
    return True
