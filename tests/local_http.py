"""A real HTTP server on a loopback address for tests: routes answer, redirect or trickle; requests are kept.

    with LocalHTTP() as server:
        server.routes["/feed"] = answer(200, b"<rss ...>", {"Content-Type": "application/rss+xml"})
        server.routes["/old"] = redirect("/feed")
        server.routes["/slow"] = trickle(b"x", every=0.2)   # a route without a query matches any query
        ... server.url("/feed") ... server.requests  # [(method, path, body), ...]
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Route = Callable[[BaseHTTPRequestHandler, threading.Event], None]


def answer(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> Route:
    def route(handler: BaseHTTPRequestHandler, _stop: threading.Event) -> None:
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
    return route


def redirect(location: str, status: int = 302) -> Route:
    return answer(status, headers={"Location": location})


def trickle(piece: bytes, every: float, head: bytes = b"") -> Route:
    """200, ``head`` at once, then ``piece`` every ``every`` seconds until the client leaves or the server stops."""
    def route(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        handler.send_response(200)
        handler.end_headers()
        try:
            handler.wfile.write(head)
            handler.wfile.flush()
            while not stop.wait(every):
                handler.wfile.write(piece)
                handler.wfile.flush()
        except OSError:  # the client gave up: that is what the test waits for
            return
    return route


def silent(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
    """Read the request, then never answer (until the server stops)."""
    stop.wait()


class LocalHTTP:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[tuple[str, str, bytes]] = []
        self.stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                server.requests.append((self.command, self.path, body))
                server.routes.get(self.path, server.routes.get(self.path.split("?")[0], answer(404)))(self, server.stop)

            do_GET = do_POST = do_HEAD = _handle

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.httpd.daemon_threads = True
        self.host, self.port = host, self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def url(self, path: str = "/") -> str:
        return f"http://{self.host}:{self.port}{path}"

    def paths(self) -> list[str]:
        return [path for _, path, _ in self.requests]

    def __enter__(self) -> LocalHTTP:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        deadline = time.monotonic() + 5
        while self.thread.is_alive() and time.monotonic() < deadline:
            self.thread.join(0.1)


class TricklingSocket:
    """A raw TCP server on 127.0.0.1 that reads each request's head, then sends ``answer`` one byte every
    ``every`` seconds: the status line and the headers trickle, which no per-read timeout ever trips.

        with TricklingSocket() as slow:
            ... slow.url("/v1") ... slow.connections  # how many clients connected
    """

    def __init__(self, answer: bytes = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Slow: "
                                       + b"a" * 10_000, every: float = 0.2) -> None:
        self.answer, self.every = answer, every
        self.connections = 0
        self.stop = threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                head = b""
                while b"\r\n\r\n" not in head and len(head) < 65536:
                    piece = conn.recv(4096)
                    if not piece:
                        return
                    head += piece
                for byte in self.answer:
                    if self.stop.wait(self.every):
                        return
                    conn.sendall(bytes([byte]))
            except OSError:  # the client gave up: what the tests wait for
                return

    def __enter__(self) -> TricklingSocket:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(5)
        self.sock.close()
