"""Turn HTTP answers and transport errors into the capability exception tree, in one place.

Decision (documented in docs/architecture.md): every 5xx except 501 is retryable, like 429 and
timeouts; WordPress answers 500 when its database is down, and that passes. 401/403 stop the run.
400/422 are argument errors (one correction); 404/409 and other 4xx fail without retry.
"""

from __future__ import annotations

import email.utils
import re
import time

import httpx

from capabilities.errors import ArgumentsRejected, AuthFailed, Retryable, ToolFailed

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After in seconds: ASCII digits, or an HTTP date. None when absent or unreadable.

    ``str.isdigit`` would accept "²" (which ``float`` then refuses with a ValueError), so the digits are matched exactly.
    """
    if not value:
        return None
    value = value.strip()
    if re.fullmatch(r"[0-9]+", value):
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def raise_for_status(response: httpx.Response, what: str) -> None:
    """Raise the matching CapabilityError for a non-2xx ``response``; ``what`` names the request."""
    status = response.status_code
    if status < 400:
        return
    detail = f"{what}: HTTP {status}"
    if status in (401, 403):
        raise AuthFailed(detail)
    if status in RETRYABLE_STATUS:
        raise Retryable(detail, retry_after=parse_retry_after(response.headers.get("retry-after")))
    if status in (400, 422):
        raise ArgumentsRejected(f"{detail}: {response.text[:300]}")
    raise ToolFailed(detail)


def transport_error(exc: httpx.TransportError, what: str) -> Retryable:
    """A timeout or connection failure: the outcome is unknown, so it is retryable (with idempotency)."""
    kind = "timed out" if isinstance(exc, httpx.TimeoutException) else f"failed ({exc.__class__.__name__})"
    return Retryable(f"{what} {kind}")
