"""Is a published URL really online? A HEAD request, only ever to whitelisted hosts.

Redirects are followed by hand, at most ``MAX_REDIRECTS``, and only while every hop stays inside
the whitelist: a host outside it is never requested at all.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import httpx

from capabilities.errors import Retryable
from capabilities.records import HeadResult

MAX_REDIRECTS = 5


def host_allowed(url: str, whitelist: list[str]) -> bool:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    return parts.scheme in ("http", "https") and host in {h.lower() for h in whitelist}


def head_check(http: httpx.Client, url: str, whitelist: list[str]) -> HeadResult:
    """HEAD ``url``; 2xx is verified. Timeouts and connection errors raise Retryable."""
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        if not host_allowed(current, whitelist):
            return HeadResult(url, None, False, f"host of {current} is not in PUBLISH_DOMAIN_WHITELIST")
        try:
            response = http.head(current, follow_redirects=False)
        except httpx.TimeoutException as exc:
            raise Retryable(f"HEAD {current} timed out") from exc
        except httpx.TransportError as exc:
            raise Retryable(f"HEAD {current} failed: {exc.__class__.__name__}") from exc
        if response.is_redirect and "location" in response.headers:
            current = urljoin(current, response.headers["location"])
            continue
        ok = 200 <= response.status_code < 300
        return HeadResult(url, response.status_code, ok, f"HEAD answered {response.status_code}")
    return HeadResult(url, None, False, f"more than {MAX_REDIRECTS} redirects")
