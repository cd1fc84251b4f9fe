"""The content check's HTTP rules: only whitelisted hosts, redirects inside them, a size cap, never a proxy."""

from __future__ import annotations

import httpx
import pytest

from capabilities.render import render_markdown
from capabilities.verify import PageLimits, check_article
from tests.local_http import LocalHTTP, answer, redirect

BODY = "A short article with **some** words.\n\n```\n# code counts too\n```\n"
PAGE = (f"<html><head><title>x</title><script>var hidden = 1;</script></head><body><nav>Home About</nav>"
        f"<h1>The title</h1>{render_markdown(BODY)}<footer>Comments</footer></body></html>").encode()


def limits(max_bytes: int = 100_000, hosts: tuple[str, ...] = ("127.0.0.1",)) -> PageLimits:
    return PageLimits(list(hosts), max_bytes, 0.98)


def check(server: LocalHTTP, path: str, page_limits: PageLimits) -> object:
    with httpx.Client(timeout=5, trust_env=False) as http:
        return check_article(http, server.url(path), "The title", render_markdown(BODY), page_limits)


def test_a_page_holding_the_article_among_chrome_is_verified() -> None:
    """Menus, footers and scripts around the article do not count against it: 100%, verified."""
    with LocalHTTP() as server:
        server.routes["/post"] = answer(200, PAGE, {"Content-Type": "text/html; charset=utf-8"})
        result = check(server, "/post", limits())
    assert result.verified and result.coverage == 1.0 and result.found.startswith("page holds 100% of the article")


def test_a_redirect_outside_the_whitelist_is_not_followed() -> None:
    """A hop to a host outside PUBLISH_DOMAIN_WHITELIST is never requested: not verified, no status."""
    with LocalHTTP() as server:
        server.routes["/post"] = redirect("http://localhost:9/elsewhere")
        result = check(server, "/post", limits())
    assert (result.verified, result.status, result.coverage) == (False, None, None)
    assert "not in PUBLISH_DOMAIN_WHITELIST" in result.found and server.paths() == ["/post"]


def test_a_page_larger_than_the_cap_is_not_read_and_not_verified() -> None:
    """Past PAGE_MAX_BYTES the read stops: not verified, and the reason names the setting."""
    with LocalHTTP() as server:
        server.routes["/big"] = answer(200, PAGE + b" " * 5000)
        result = check(server, "/big", limits(max_bytes=2048))
    assert not result.verified and "PAGE_MAX_BYTES" in result.found


def test_the_check_never_goes_through_a_proxy_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """HTTP_PROXY/ALL_PROXY pointing at a dead port change nothing: the site itself is asked."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    with LocalHTTP() as server:
        server.routes["/post"] = answer(200, PAGE)
        result = check(server, "/post", limits())
    assert result.verified and server.paths() == ["/post"]


def test_a_404_is_not_verified_and_says_so() -> None:
    """A page that is gone answers 404: not verified, 'GET answered 404'."""
    with LocalHTTP() as server:
        result = check(server, "/gone", limits())
    assert (result.verified, result.status, result.found) == (False, 404, "GET answered 404")
