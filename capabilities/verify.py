"""Does the published page hold the article? A GET, only ever to whitelisted hosts, then its visible text.

    verify_publication(ctx, publication, version) -> PublicationRecord
        check_article on the publication's page with the version it published (rendered again: rendering
        is deterministic), recorded in the ledger with the digest of what was sent; publish and register.
    check_article(http, url, title, body_html, limits) -> ContentCheck
        GET ``url`` (redirects followed by hand, at most MAX_REDIRECTS, and only while every hop stays
        inside PUBLISH_DOMAIN_WHITELIST: a host outside it is never requested at all), read at most
        PAGE_MAX_BYTES, extract the page's visible text (capabilities.pagetext) and measure how much of
        the article - its title and its rendered body, code included - the page holds in order.
        Verified when the answer is 2xx and the coverage is at least CONTENT_COVERAGE_MIN.

The request never goes through a proxy from the environment (HTTP_PROXY, ALL_PROXY...): it uses the
context's ``page_http``, the run's second client, built with ``trust_env=False`` under the same deadline
(pipeline.http), so what is checked is what the site itself serves, and within the run's time. Timeouts and
connection errors raise Retryable; a URL the client cannot even form (a control character, a redirect to
``http:evil.test/ok``) is a refused link, a ContentCheck naming why; every other answer is a ContentCheck
saying what was found.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from capabilities.base import CapabilityContext
from capabilities.errors import Retryable
from capabilities.httperrors import HTTPX_ERRORS, request_error
from capabilities.pagetext import coverage, visible_text, words
from capabilities.records import ContentCheck, DraftVersionRecord, PublicationRecord
from capabilities.render import article_digest, render_markdown

MAX_REDIRECTS = 5
REFUSED_LINK = "link refused"  # how a check's finding starts when the URL cannot be requested at all


@dataclass(frozen=True)
class PageLimits:
    whitelist: list[str]
    max_bytes: int
    coverage_min: float


def host_allowed(url: str, whitelist: list[str]) -> bool:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    return parts.scheme in ("http", "https") and host in {h.lower() for h in whitelist}


class _TooLarge(Exception):
    pass


def _read_capped(response: httpx.Response, max_bytes: int) -> bytes:
    if int(response.headers.get("content-length", "0") or 0) > max_bytes:
        raise _TooLarge
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > max_bytes:
            raise _TooLarge
    return bytes(body)


def _fetch(http: httpx.Client, url: str, limits: PageLimits) -> tuple[int | None, str | None, str]:
    """(HTTP status, page text or None, what happened) for a GET of ``url`` within the rules above."""
    if http.trust_env:
        raise ValueError("the page check's client must not read proxies from the environment")
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        if not host_allowed(current, limits.whitelist):
            return None, None, f"host of {current!r} is not in PUBLISH_DOMAIN_WHITELIST; not requested"
        try:
            with http.stream("GET", current, follow_redirects=False) as response:
                if response.is_redirect and "location" in response.headers:
                    current = urljoin(current, response.headers["location"])
                    continue
                if not 200 <= response.status_code < 300:
                    return response.status_code, None, f"GET answered {response.status_code}"
                body = _read_capped(response, limits.max_bytes)
                return response.status_code, body.decode(response.encoding or "utf-8", "replace"), "ok"
        except _TooLarge:
            return response.status_code, None, f"page is larger than PAGE_MAX_BYTES ({limits.max_bytes} bytes)"
        except HTTPX_ERRORS as exc:
            error = request_error(exc, f"GET {current!r}")
            if isinstance(error, Retryable):
                raise error from exc
            return None, None, f"{REFUSED_LINK}: {error}"
    return None, None, f"more than {MAX_REDIRECTS} redirects"


def check_article(http: httpx.Client, url: str, title: str, body_html: str, limits: PageLimits) -> ContentCheck:
    """GET the page and measure the article's coverage on it (see the module docstring)."""
    status, page, what = _fetch(http, url, limits)
    if page is None:
        return ContentCheck(url, status, None, False, what)
    found = coverage(words(visible_text(page)), words(title), words(visible_text(body_html)))
    verified = found.ratio >= limits.coverage_min
    reason = f"page holds {found.percent} of the article ({found.found_words} of {found.article_words} words)"
    if found.first_missing:
        reason += f"; missing from: {found.first_missing!r}"
    return ContentCheck(url, status, found.ratio, verified, reason[:500])


def verify_publication(ctx: CapabilityContext, publication: PublicationRecord,
                       version: DraftVersionRecord) -> PublicationRecord:
    """GET the publication's page, measure the article on it, and record what was found (publish, register)."""
    body_html = render_markdown(version.body)
    limits = PageLimits(ctx.settings.publish_domain_whitelist, ctx.settings.page_max_bytes,
                        ctx.settings.content_coverage_min)
    check = check_article(ctx.page_http or ctx.http, publication.url, version.title, body_html, limits)
    return ctx.store.record_check(publication.id, check, article_digest(version.title, body_html))

