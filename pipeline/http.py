"""The HTTP clients of a run: one wall-clock deadline over every request, whatever the server does; no proxy.

    RunDeadline        when the current run must end (RUN_MAX_SECONDS after it started; per thread), or a stop
                       request (the daemon's SIGTERM); ``start``/``clear`` around each run, ``expired()`` anywhere
    DeadlineBackend    wraps httpcore's network backend: connecting, the TLS handshake and every read and write
                       of the socket wait at most until the deadline, and none starts after it
    DeadlineTransport  wraps httpx's transport: a request made past the deadline fails at once, unsent
    http_client()      the one way factline builds an httpx.Client (capabilities, the LLM endpoint, the page
                       check, sources): the deadline at the socket, and the environment's proxies and .netrc
                       ignored unless HTTP_TRUST_ENV=true

Why at the socket: httpx's timeouts are per operation and httpcore reads the status line and headers in a
loop of socket reads, each with the full read timeout. An endpoint, feed or target that sends its status line,
its headers or its body one byte every 2 s never trips a 10 s read timeout, and checking the deadline per chunk
of the body cannot see the first two. Here each socket operation's timeout is the smaller of its own and what
remains of the run, so the whole request - connect, TLS, request body, status line, headers, body - ends by the
deadline, and a stop (the daemon's SIGTERM) ends a read within STOP_POLL seconds even when the server sends
nothing. What it does not cover: the name lookup (``getaddrinfo``, the system resolver, before any server is
reached); a request made outside a run (no deadline set) has only the per-operation timeouts.

Errors are httpx's own (``httpx.ReadTimeout``/``ConnectTimeout``/``WriteTimeout`` naming the deadline), so every
caller's handling of a timeout applies; the model client tells a spent deadline from a slow server by
``expired()``.

HTTP_TRUST_ENV=false (the default): HTTP_PROXY/HTTPS_PROXY/ALL_PROXY and .netrc are not read, so the
whitelist alone says where verification, publication and feed requests go. true: requests go through
the proxy those variables name (NO_PROXY is not read); the page check's client never does (``trust_env=False``).
"""

from __future__ import annotations

import ssl
import threading
import time
import typing
import urllib.request

import httpcore
import httpx

from config import Settings
from pipeline.outcome import StopRun, Verdict

WRITE_PIECE = 16384  # a request body is written in pieces, each bounded by what remains
STOP_POLL = 0.5  # a read waits at most this long before looking at the deadline and the stop again


class RunDeadline:
    """The end of the current run, shared by its HTTP clients. The end is per thread (a Celery worker runs
    several runs of one pipeline at once on its threads, through one Runtime); the stop is for all."""

    def __init__(self, stop: threading.Event | None = None) -> None:
        self._run = threading.local()
        self.stop = stop or threading.Event()

    def start(self, seconds: float) -> None:
        self._run.at, self._run.seconds = time.monotonic() + seconds, seconds

    def clear(self) -> None:
        self._run.at = None

    def remaining(self) -> float | None:
        """Seconds left (0 when passed or stopped); None outside a run."""
        if self.stop.is_set():
            return 0.0
        at = getattr(self._run, "at", None)
        return None if at is None else max(0.0, at - time.monotonic())

    def expired(self) -> bool:
        return self.remaining() == 0.0

    def cap(self, timeout: float | None, error: type[Exception], doing: str) -> float | None:
        """``timeout`` shortened to what remains; ``error`` (an httpcore timeout) when nothing does."""
        remaining = self.remaining()
        if remaining is None:
            return timeout
        if remaining <= 0:
            raise error(f"{self.reason()} {doing}")
        return remaining if timeout is None else min(timeout, remaining)

    def stop_run(self, during: str) -> StopRun:
        """How a run ends when its deadline cut a request off: budget (max_seconds), or interrupted on a stop."""
        if self.stop.is_set():
            return StopRun(Verdict.interrupted, "signal", f"stop requested during {during}")
        return StopRun(Verdict.budget, "max_seconds", f"{self.reason()} during {during}")

    def reason(self) -> str:
        if self.stop.is_set():
            return "stop requested"
        return f"run deadline RUN_MAX_SECONDS={getattr(self._run, 'seconds', 0):g} s passed"


class _DeadlineSocket(httpcore.NetworkStream):
    """One connection's socket, every operation bounded by the deadline of the thread using it."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: RunDeadline) -> None:
        self.inner, self.deadline = inner, deadline

    def _timed(self, call: typing.Callable[[float | None], typing.Any], timeout: float | None,
               error: type[Exception], doing: str) -> typing.Any:
        try:
            return call(self.deadline.cap(timeout, error, doing))
        except httpcore.TimeoutException as exc:
            if self.deadline.expired():
                raise error(f"{self.deadline.reason()} {doing}") from exc
            raise

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        """Waits in slices of at most STOP_POLL seconds, so a stop ends even a wait on a silent server."""
        until = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if until is None else max(0.0, until - time.monotonic())
            wait = self.deadline.cap(left, httpcore.ReadTimeout, "while reading the answer")
            try:
                return self.inner.read(max_bytes, STOP_POLL if wait is None else min(wait, STOP_POLL))
            except httpcore.ReadTimeout as exc:
                if self.deadline.expired():
                    raise httpcore.ReadTimeout(f"{self.deadline.reason()} while reading the answer") from exc
                if until is not None and time.monotonic() >= until:
                    raise

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        for at in range(0, len(buffer), WRITE_PIECE):
            piece = buffer[at:at + WRITE_PIECE]
            self._timed(lambda t: self.inner.write(piece, t), timeout, httpcore.WriteTimeout,
                        "while sending the request")

    def close(self) -> None:
        self.inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        inner = self._timed(lambda t: self.inner.start_tls(ssl_context, server_hostname, t), timeout,
                            httpcore.ConnectTimeout, "during the TLS handshake")
        return _DeadlineSocket(inner, self.deadline)

    def get_extra_info(self, info: str) -> typing.Any:
        return self.inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend, deadline: RunDeadline) -> None:
        self.inner, self.deadline = inner, deadline

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: typing.Iterable[typing.Any] | None = None) -> httpcore.NetworkStream:
        timeout = self.deadline.cap(timeout, httpcore.ConnectTimeout, "before connecting")
        stream = self.inner.connect_tcp(host, port, timeout, local_address, socket_options)
        return _DeadlineSocket(stream, self.deadline)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: typing.Iterable[typing.Any] | None = None) -> httpcore.NetworkStream:
        timeout = self.deadline.cap(timeout, httpcore.ConnectTimeout, "before connecting")
        return _DeadlineSocket(self.inner.connect_unix_socket(path, timeout, socket_options), self.deadline)

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class DeadlineTransport(httpx.BaseTransport):
    """httpx's own transport with its connection pool's sockets under ``deadline``."""

    def __init__(self, deadline: RunDeadline, proxy: str | None, trust_env: bool) -> None:
        self.deadline = deadline
        self.inner = httpx.HTTPTransport(proxy=proxy, trust_env=trust_env)
        # httpx builds its httpcore pool (or proxy pool) without a way to pass a network backend; the pool keeps
        # it in ``_network_backend`` and hands it to every connection it opens (pinned: httpcore 1.x, and
        # tests/test_deadlines.py's trickling-headers server fails if this stops holding).
        pool = typing.cast(typing.Any, self.inner)._pool
        pool._network_backend = DeadlineBackend(pool._network_backend, deadline)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.deadline.expired():
            raise httpx.ReadTimeout(f"{self.deadline.reason()}; request not sent", request=request)
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def _proxy(trust_env: bool) -> str | None:
    if not trust_env:
        return None
    proxies = urllib.request.getproxies()
    return proxies.get("https") or proxies.get("http") or proxies.get("all")


def http_client(settings: Settings, deadline: RunDeadline, timeout: float, *,
                trust_env: bool | None = None) -> httpx.Client:
    """An httpx.Client under ``deadline`` with ``timeout`` per operation; HTTP_TRUST_ENV decides proxies unless
    ``trust_env`` is given (the page check's client: never a proxy)."""
    trust = settings.http_trust_env if trust_env is None else trust_env
    return httpx.Client(transport=DeadlineTransport(deadline, _proxy(trust), trust), timeout=timeout,
                        trust_env=trust)
