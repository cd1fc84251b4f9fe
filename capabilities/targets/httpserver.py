"""The one HTTP server factline runs: uvicorn in a thread on a socket bound first, hardened ASGI layers.

    ThreadedServer(app, host, port)   serves ``app`` while open; a taken port is an OSError at once, port 0
                                      reports the port it got (the dashboard, the local site)
    SecurityHeaders(app, csp)         nosniff, no-referrer, frame-ancestors/X-Frame-Options DENY, no-store and a
                                      Content-Security-Policy on every answer
    BodyLimit(app, max_bytes)         a request body is bounded before it is read: a Content-Length above
                                      ``max_bytes`` answers 413 after discarding at most DRAIN_BYTES of it
                                      for at most DRAIN_SECONDS (a lingering close, as nginx does: closing a
                                      socket with unread bytes makes the kernel send a reset, which can
                                      destroy the 413 before the client reads it; seen as "connection reset"
                                      on a 100-byte POST to the local site); a chunked body is counted as it
                                      arrives and cut with 413 at the limit
    ServerErrors(app)                 a bug answers 500 with one logged line (``http.crashed``), no traceback
    static_site(directory, csp)       GET/HEAD of the files under ``directory``: no symlink out of it, no folder
                                      listing, no NUL or control character in a path, the layers above

Why here: the local target (capabilities.targets.local, ``factline site serve``) and the dashboard
(pipeline.web) serve the same way, and a capability may not import the pipeline; the standard library's file
server followed symlinks out of the site, listed folders, sent no security header and printed a traceback
for ``GET /%00`` (issue #26).
"""

from __future__ import annotations

import asyncio
import socket
import threading
from pathlib import Path
from types import TracebackType

import uvicorn
from loguru import logger
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.responses import PlainTextResponse
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["BodyLimit", "SITE_CSP", "SecurityHeaders", "ServerErrors", "ThreadedServer", "headers", "static_site"]

SITE_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'none'; "
            "frame-ancestors 'none'; base-uri 'none'")  # a site page inlines its stylesheet and has no script
MAX_BODY_BYTES = 16_384
DRAIN_BYTES, DRAIN_SECONDS = 65_536, 1.0  # what a refused body may cost the server before its 413


def headers(csp: str) -> dict[str, str]:
    return {"Content-Security-Policy": csp, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
            "X-Frame-Options": "DENY", "Cache-Control": "no-store"}


async def _plain(send: Send, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": text.encode()})


class SecurityHeaders:
    def __init__(self, app: ASGIApp, csp: str) -> None:
        self.app, self.headers = app, headers(csp)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).update(self.headers)
            await send(message)

        await self.app(scope, receive, with_headers)


class _TooLarge(Exception):
    pass


async def _drain(receive: Receive) -> None:
    """Read and drop the start of a refused body (see BodyLimit): bounded in bytes and time, never kept."""
    seen = 0
    try:
        async with asyncio.timeout(DRAIN_SECONDS):
            while seen <= DRAIN_BYTES:
                message = await receive()
                if message["type"] != "http.request":
                    return
                seen += len(message.get("body", b""))
                if not message.get("more_body", False):
                    return
    except TimeoutError:
        return


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length", b"0")
        if not length.isdigit() or int(length) > self.max_bytes:
            if length.isdigit():
                await _drain(receive)
            await _plain(send, 413, f"request body larger than {self.max_bytes} bytes\n")
            return
        seen, started = 0, False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except (_TooLarge, BaseExceptionGroup) as exc:  # Starlette's BaseHTTPMiddleware wraps it in a group
            if isinstance(exc, BaseExceptionGroup) and exc.split(_TooLarge)[1] is not None:
                raise
            if not started:
                await _plain(send, 413, f"request body larger than {self.max_bytes} bytes\n")


class ServerErrors:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:  # a bug: one line, never a traceback on the terminal or to the client
            logger.error("http.crashed", path=str(scope.get("path", ""))[:200], error=exc.__class__.__name__)
            logger.opt(exception=exc).debug("http.crashed.traceback")
            if not started and scope["type"] == "http":
                await _plain(send, 500, "internal error\n")


class _Files(StaticFiles):
    """StaticFiles without symlinks out (Starlette's follow_symlink=False) and without odd paths."""

    def lookup_path(self, path: str) -> tuple[str, object]:
        if any(ord(c) < 32 or ord(c) == 127 for c in path):
            return "", None
        return super().lookup_path(path)  # type: ignore[return-value]


def static_site(directory: Path, csp: str = SITE_CSP) -> ASGIApp:
    """GET/HEAD of ``directory``'s files (index.html for /), hardened as the module docstring says."""
    files = _Files(directory=directory, html=True, follow_symlink=False)

    async def read_only(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD"):
            await PlainTextResponse("method not allowed\n", 405, headers={"Allow": "GET, HEAD"})(scope, receive, send)
            return
        await files(scope, receive, send)

    app = Starlette(routes=[Mount("/", app=read_only)])
    return ServerErrors(SecurityHeaders(BodyLimit(app, 0), csp))


class ThreadedServer:
    """``app`` on ``host:port`` from a daemon thread while the ``with`` block runs; OSError when the port is taken."""

    def __init__(self, app: ASGIApp, host: str, port: int, name: str) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.create_server((host, port), family=family)
        self.host, self.port = host, self.socket.getsockname()[1]
        # proxy_headers off: uvicorn would otherwise believe X-Forwarded-Proto/-For from any local client (the
        # dashboard decides what to believe: pipeline.web.auth)
        config = uvicorn.Config(app, log_level="error", access_log=False, lifespan="off", server_header=False,
                                proxy_headers=False, h11_max_incomplete_event_size=16_384)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, name=name,
                                       daemon=True)

    def __enter__(self) -> ThreadedServer:
        self.thread.start()
        while not self.server.started and self.thread.is_alive():
            threading.Event().wait(0.01)
        if not self.server.started:
            self.socket.close()
            raise OSError(f"the {self.thread.name} server did not start")
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.socket.close()
