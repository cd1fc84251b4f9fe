"""Turn HTTP answers and transport errors into the capability exception tree, in one place.

Decision (docs/architecture.md, "Retry classification"): 429 and every 5xx except 501 and 505 are
retryable, like timeouts. WordPress answers 500 when its database is down, and that passes; a proxy's
own 5xx (Cloudflare's 520-527, 598/599) mean the origin is down or slow, and that passes too. 501 (Not
Implemented) and 505 (HTTP Version Not Supported) say the server cannot do this request at all: no
wait changes that. ``is_retryable_status`` is the one definition; pipeline.model uses it for the LLM
endpoint. 401/403 stop the run. 400/422 are argument errors (one correction); 404/409 and other 4xx
fail without retry.

httpx's whole exception tree, as it enters (``HTTPX_ERRORS`` for the except clause, ``request_error`` for
the answer): a timeout, a network failure, a server speaking broken HTTP or a proxy failing -> Retryable (the
outcome is unknown, idempotency makes a retry safe); a URL the client cannot form (``InvalidURL``: a control
character, a bad port; ``UnsupportedProtocol``), a request it refuses to send (``LocalProtocolError``: a header
with a newline), an answer it cannot decode, too many redirects, a stream misuse, a cookie conflict ->
ToolFailed naming it. ``httpx.InvalidURL``, ``CookieConflict`` and ``StreamError`` are not
``httpx.HTTPError``s, so ``except httpx.HTTPError`` alone lets them through as tracebacks.
"""

from __future__ import annotations

import email.utils
import re
import time

import httpx

from capabilities.errors import ArgumentsRejected, AuthFailed, Retryable, ToolFailed

NEVER_RETRIED_5XX = frozenset({501, 505})


def is_retryable_status(status: int) -> bool:
    """Whether an HTTP status is transient: 429, or a 5xx other than 501 and 505."""
    return status == 429 or (500 <= status <= 599 and status not in NEVER_RETRIED_5XX)


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
    if is_retryable_status(status):
        raise Retryable(detail, retry_after=parse_retry_after(response.headers.get("retry-after")))
    if status in (400, 422):
        raise ArgumentsRejected(f"{detail}: {response.text[:300]}")
    raise ToolFailed(detail)


BAD_LOCATION = "Invalid URL in location header"
HTTPX_ERRORS = (httpx.HTTPError, httpx.InvalidURL, httpx.CookieConflict, httpx.StreamError)
_REFUSED = (httpx.InvalidURL, httpx.UnsupportedProtocol, httpx.LocalProtocolError, httpx.DecodingError,
            httpx.TooManyRedirects, httpx.StreamError, httpx.CookieConflict, httpx.HTTPStatusError)


def request_error(exc: Exception, what: str) -> Retryable | ToolFailed:
    """Any of ``HTTPX_ERRORS`` as the capability tree (module docstring): ``what`` names the request."""
    if isinstance(exc, httpx.RemoteProtocolError) and str(exc).startswith(BAD_LOCATION):
        # httpx reads a redirect's Location while building the answer, even with follow_redirects=False
        return ToolFailed(f"{what} refused (InvalidURL): {str(exc)[:200]}")
    if isinstance(exc, _REFUSED):
        # only these messages are safe to keep: they name a URL's fault, never a header's value
        reason = f": {str(exc)[:200]}" if isinstance(exc, (httpx.InvalidURL, httpx.UnsupportedProtocol)) else ""
        return ToolFailed(f"{what} refused ({exc.__class__.__name__}){reason}")
    if isinstance(exc, httpx.TimeoutException):
        return Retryable(f"{what} timed out")
    return Retryable(f"{what} failed ({exc.__class__.__name__})")
