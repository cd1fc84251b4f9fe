"""Alerts: what the daemon tells ALERT_WEBHOOK_URL, and when.

    a run ends with any verdict but success    one alert for that run         (key run:<id>)
    at REPORT_CRON, no publication online      one alert for that day         (key no_publication:<day>)
    at REPORT_CRON, articles awaiting review   one alert for that day         (key awaiting_review:<day>)

The body is what chat webhooks accept plus the structured facts: ``text`` is one line a person reads
(Slack, Mattermost and Teams incoming webhooks, and Discord's Slack-compatible endpoint, show ``text``),
and ``event``, ``run_id``, ``verdict``, ``reason``, ``unbacked_claims``, ``failed_calls`` (or ``day``,
``runs``, ``verdicts``) are for machines. Everything in it is counted from the ledger: never an error
text (it may quote an endpoint's answer) and never a setting. Delivery is pipeline.webhook's job (off
the scheduler's thread, one deadline per POST, once per key).

Known limit: replicas sharing a ledger each send the day's no-publication alert (as each logs the
daily report); run alerts come from the one replica that ran the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pipeline.ledger.daily import DayLedger
from pipeline.ledger.detail import RunDetail
from pipeline.outcome import CallOutcome, Verdict

REASONS = {  # the reason code of a verdict when no stop rule gave one
    Verdict.hallucinated: "unbacked_claims",
    Verdict.unverified: "publication_not_online",
    Verdict.auth_failed: "auth",
    Verdict.unavailable: "retry_exhausted",
    Verdict.incomplete: "pipeline_not_finished",
}


@dataclass(frozen=True)
class Alert:
    key: str  # one alert per key: run:<id>, no_publication:<day>
    body: dict[str, Any]


def run_alert(detail: RunDetail) -> Alert | None:
    """The alert for a finished run whose verdict is not success; None for success or a run still going."""
    if detail.verdict is None or detail.verdict == Verdict.success:
        return None
    unbacked = sorted({f"{c.kind}:{c.capability or c.span[:80]}" for c in detail.claims if not c.backed})
    failed = sorted({f"{c.name}:{c.reason}" for c in detail.tool_calls if c.outcome == CallOutcome.failed})
    reason = detail.stop_reason or REASONS.get(detail.verdict, str(detail.verdict))
    facts = [f"unbacked claims {', '.join(unbacked)}"] if unbacked else []
    facts += [f"failed calls {', '.join(failed)}"] if failed else []
    text = (f"factline run {detail.run_id} ended {detail.verdict} ({reason}, exit {detail.verdict.exit_code})"
            + (": " + "; ".join(facts) if facts else ""))
    return Alert(f"run:{detail.run_id}", {
        "text": text, "event": "run", "run_id": detail.run_id, "pipeline": detail.pipeline,
        "verdict": str(detail.verdict), "reason": reason,
        "unbacked_claims": unbacked, "failed_calls": failed})


def review_alert(day: DayLedger, now: datetime) -> Alert | None:
    """The alert naming the articles waiting for an editor, and for how long; None when none waits."""
    if not day.awaiting_review:
        return None
    waiting = [{"run_id": w.run_id, "title": w.title, "hours": round(w.hours(now), 1)} for w in day.awaiting_review]
    listed = "; ".join(f"run {w['run_id']} {w['title']!r} for {w['hours']} h" for w in waiting)
    text = f"factline: {len(waiting)} article{'s' if len(waiting) != 1 else ''} awaiting review: {listed}"
    return Alert(f"awaiting_review:{day.day.isoformat()}", {
        "text": text, "event": "awaiting_review", "pipeline": day.pipeline, "day": day.day.isoformat(),
        "waiting": waiting})


def no_publication_alert(day: DayLedger) -> Alert | None:
    """The alert for a day with no publication verified online; None when there was one."""
    if any(p.verified for p in day.publications):
        return None
    verdicts = ", ".join(f"{verdict} {n}" for verdict, n in sorted(day.verdicts.items()))
    runs = f"{day.runs} run{'s' if day.runs != 1 else ''}" + (f" ({verdicts})" if verdicts else "")
    text = f"factline: nothing published online on {day.day} ({day.time_zone}); {runs}"
    return Alert(f"no_publication:{day.day.isoformat()}", {
        "text": text, "event": "no_publication", "pipeline": day.pipeline, "day": day.day.isoformat(), "time_zone": day.time_zone,
        "runs": day.runs, "verdicts": dict(day.verdicts), "publications_not_online": len(day.publications)})
