"""WEB_TOKEN: when set, every page and API answer needs it, as ``Authorization: Bearer <token>`` or the
session cookie that the login form sets.

    GET  /login            the form (one field, the token)
    POST /login            the one POST of the dashboard: a right token sets the cookie and redirects to ``next``
    everything else        GET only; without the token: /api/* answers 401, a page redirects to /login

The cookie holds HMAC-SHA256(token, "factline-web-session"), never the token itself; it is HttpOnly,
SameSite=Strict, and lasts as long as the browser session. Comparisons are constant-time
(``hmac.compare_digest``). Changing WEB_TOKEN invalidates every cookie. /static and /login need no token.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qs, quote

from pydantic import SecretStr
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

__all__ = ["COOKIE", "TokenMiddleware", "cookie_value", "local_path", "token_matches"]

COOKIE = "factline_session"
OPEN_PREFIXES = ("/static/", "/login")


def cookie_value(token: SecretStr) -> str:
    return hmac.new(token.get_secret_value().encode(), b"factline-web-session", hashlib.sha256).hexdigest()


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
    cookie = request.cookies.get(COOKIE, "")
    return bool(cookie) and hmac.compare_digest(cookie.encode(), cookie_value(token).encode())


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
