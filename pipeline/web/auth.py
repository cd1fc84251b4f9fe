"""WEB_TOKEN: when set, every page and API answer needs it, as ``Authorization: Bearer <token>`` or the
session cookie that the login form sets.

    GET  /login            the form (one field, the token)
    POST /login            the one POST of the dashboard: a right token sets the cookie and redirects to ``next``
    everything else        GET only; without the token: /api/* answers 401, a page redirects to /login

The cookie holds ``<expiry>.<HMAC-SHA256(token, "factline-web-session:<expiry>")>``, never the token itself:
it is refused after WEB_SESSION_HOURS (Max-Age says the same to the browser), and changing WEB_TOKEN
invalidates every cookie. It is HttpOnly and SameSite=Strict, and Secure when the request came over TLS:
uvicorn here speaks plain HTTP, so TLS is a reverse proxy's, and its ``X-Forwarded-Proto: https`` is believed
only with WEB_TRUST_FORWARDED_PROTO=true (decision: a header any client can send must not decide a security
flag unless the operator says a proxy in front sets it). Comparisons are constant-time (``hmac.compare_digest``).
/static and /login need no token.

Login attempts are limited: after LOGIN_FAILURES wrong tokens within LOGIN_WINDOW_SECONDS from one client
address, /login answers 429 (Retry-After) until the window has passed, right token or not. The address is the
TCP peer's (behind a proxy, every client shares the proxy's: the limit then holds for all of them together).
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections import deque
from urllib.parse import parse_qs, quote

from pydantic import SecretStr
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

__all__ = ["COOKIE", "LoginLimiter", "TokenMiddleware", "cookie_value", "local_path", "token_matches"]

COOKIE = "factline_session"
OPEN_PREFIXES = ("/static/", "/login")


LOGIN_FAILURES, LOGIN_WINDOW_SECONDS = 5, 60.0


def _mac(token: SecretStr, expiry: int) -> str:
    return hmac.new(token.get_secret_value().encode(), f"factline-web-session:{expiry}".encode(),
                    hashlib.sha256).hexdigest()


def cookie_value(token: SecretStr, lifetime_seconds: float, now: float | None = None) -> str:
    expiry = int((time.time() if now is None else now) + lifetime_seconds)
    return f"{expiry}.{_mac(token, expiry)}"


def cookie_valid(token: SecretStr, cookie: str, now: float | None = None) -> bool:
    expiry, _, mac = cookie.partition(".")
    if not expiry.isdigit() or len(expiry) > 12:
        return False
    fresh = int(expiry) > (time.time() if now is None else now)
    return hmac.compare_digest(mac.encode(), _mac(token, int(expiry)).encode()) and fresh


class LoginLimiter:
    """Failed logins per client address in a sliding window (see the module docstring)."""

    def __init__(self, failures: int = LOGIN_FAILURES, window: float = LOGIN_WINDOW_SECONDS) -> None:
        self.failures, self.window = failures, window
        self.seen: dict[str, deque[float]] = {}
        self.lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        times = self.seen.setdefault(client, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self.seen[client]
        return times

    def wait(self, client: str) -> float:
        """Seconds until ``client`` may try again (0: now)."""
        now = time.monotonic()
        with self.lock:
            times = self._recent(client, now)
            return max(0.0, times[0] + self.window - now) if len(times) >= self.failures else 0.0

    def failed(self, client: str) -> None:
        with self.lock:
            if len(self.seen) > 10_000:  # a flood of addresses cannot grow this without bound
                self.seen.clear()
            self.seen.setdefault(client, deque()).append(time.monotonic())


def token_matches(token: SecretStr, given: str) -> bool:
    return hmac.compare_digest(token.get_secret_value().encode(), given.encode())


def local_path(target: str | None) -> str:
    """``target`` if it is a path on this site (never another host, ``//host`` or a scheme), else ``/``."""
    if target and target.startswith("/") and not target.startswith(("//", "/\\")):
        return target
    return "/"


def authorized(request: Request, token: SecretStr) -> bool:
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    if scheme.lower() == "bearer" and token_matches(token, given.strip()):
        return True
    return cookie_valid(token, request.cookies.get(COOKIE, ""))


class TokenMiddleware(BaseHTTPMiddleware):
    def __init__(self, app: object, token: SecretStr) -> None:
        super().__init__(app)  # type: ignore[arg-type]
        self.token = token

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        path = request.url.path
        if path.startswith(OPEN_PREFIXES) or authorized(request, self.token):
            return await call_next(request)
        if path.startswith("/api/"):
            return JSONResponse({"error": "WEB_TOKEN required: send Authorization: Bearer <token>"}, status_code=401,
                                headers={"WWW-Authenticate": 'Bearer realm="factline"'})
        target = path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)


async def login_attempt(request: Request, token: SecretStr | None) -> tuple[bool, str]:
    """(whether the posted token is right, where to go next) from the login form's urlencoded body."""
    form = parse_qs((await request.body())[:4096].decode("utf-8", "replace"))
    given = form.get("token", [""])[0]
    target = local_path(form.get("next", ["/"])[0])
    return token is None or token_matches(token, given), target
