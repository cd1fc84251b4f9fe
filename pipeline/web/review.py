"""The Review page: articles waiting for an editor, with Approve and Reject forms (the dashboard's only writes).

    GET  /review                    the waiting runs, oldest first: title, topic, age, findings, the forms
    GET  /api/review                the same as JSON
    POST /review/{run}/approve      editor; publishes through the same path as `factline review approve`
    POST /review/{run}/reject       editor, reason, requeue

Writes only when WEB_TOKEN is set (the token middleware has then checked the request): without it the
page says it is read-only, shows no form, and a POST answers 403. Every form carries its own CSRF token,
HMAC-SHA256(WEB_TOKEN, "csrf:<run>:<action>:<expiry>"): bound to the run and the action, void once the
token changes or the hour passes; a POST without it, or with another form's, answers 403 and decides
nothing. The decision is pipeline.review.decide's (one compare-and-set, every attempt recorded); an
approval of this dashboard's pipeline is then published here (pipeline.review.decide.carry_out), one of
another pipeline stays `approved` for that pipeline's next `factline run` or `factline review approve`.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from urllib.parse import parse_qs

from pydantic import SecretStr
from sqlalchemy.orm import Session, sessionmaker

from config import Deployment, Settings
from pipeline.ledger import reviews
from pipeline.ledger.models import DraftVersion, Run
from pipeline.outcome import Verdict
from pipeline.review import decide
from pipeline.runtime import open_publisher

CSRF_SECONDS = 3600
MAX_FORM_BYTES = 8192
MAX_FIELD = 2000


def csrf_token(token: SecretStr, run_id: int, action: str, now: float | None = None) -> str:
    expiry = int((time.time() if now is None else now) + CSRF_SECONDS)
    return f"{expiry}.{_mac(token, run_id, action, expiry)}"


def csrf_valid(token: SecretStr, run_id: int, action: str, given: str, now: float | None = None) -> bool:
    expiry, _, mac = given.partition(".")
    if not expiry.isdigit() or len(expiry) > 12:
        return False
    fresh = int(expiry) > (time.time() if now is None else now)
    return hmac.compare_digest(mac.encode(), _mac(token, run_id, action, int(expiry)).encode()) and fresh


def _mac(token: SecretStr, run_id: int, action: str, expiry: int) -> str:
    return hmac.new(token.get_secret_value().encode(), f"csrf:{run_id}:{action}:{expiry}".encode(),
                    hashlib.sha256).hexdigest()


def parse_form(body: bytes) -> dict[str, str]:
    """An urlencoded form body, bounded: the first value of each field, at most MAX_FIELD characters."""
    fields = parse_qs(body[:MAX_FORM_BYTES].decode("utf-8", "replace"))
    return {k: v[0][:MAX_FIELD] for k, v in fields.items() if v}


def waiting(s: Session) -> list[reviews.Pending]:
    return reviews.pending(s)


def body(s: Session, version_id: int) -> str:
    """The held version as Markdown text (shown escaped, never rendered)."""
    version = s.get(DraftVersion, version_id)
    return f"# {version.title}\n\n{version.body}" if version is not None else ""


def carry_out_decision(deployment: Deployment, settings: Settings, sessions: sessionmaker[Session], run_id: int,
                       action: str, editor: str, reason: str, requeue: bool) -> tuple[str, bool]:
    """The decision through pipeline.review.decide; an approval of this pipeline is then published here."""
    if action == "reject":
        decision = decide.reject(sessions, run_id, editor, reason, requeue)
        return decision.line, decision.accepted
    decision = decide.approve(sessions, run_id, editor)
    if not decision.accepted:
        return decision.line, False
    with sessions() as s:
        pipeline = s.get_one(Run, run_id).pipeline
    if deployment.executor.kind != "inline" or pipeline != settings.pipeline:
        return (f"{decision.line}; it is published by pipeline {pipeline!r}'s next `factline run` or "
                f"`factline review approve {run_id}`"), True
    with open_publisher(deployment, settings) as publisher:
        done = decide.carry_out(publisher, run_id)
    if done is None:
        return f"{decision.line}; another process is publishing it", True
    return f"{decision.line}: run {run_id} ended {done.verdict}", done.verdict == Verdict.success
