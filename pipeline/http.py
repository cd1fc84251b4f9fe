"""The HTTP clients of a run: a wall-clock deadline that holds while a request is in flight, no proxy.

    RunDeadline        when the current run must end (RUN_MAX_SECONDS after it started; per thread), or a stop
                       request (the daemon's SIGTERM); ``start``/``clear`` around each run, ``expired()`` anywhere
    DeadlineTransport  wraps httpx's transport: a request made past the deadline fails at once; no read
                       waits beyond it (each request's timeouts are capped at what remains); a body that
                       trickles in is cut off at the first chunk that arrives past it
    http_client()      the one way factline builds an httpx.Client for a run (capabilities and the LLM
                       endpoint alike): the deadline transport, and the environment's proxies and .netrc
                       ignored unless HTTP_TRUST_ENV=true

Why: httpx's timeouts are per operation, so an endpoint, feed or target that sends one byte every 2 s
never trips a 10 s read timeout, and RUN_MAX_SECONDS, checked only between turns, never came. Here
the deadline is checked with every chunk of every response body. What it cannot see is a server that
trickles its *status line and headers*: httpcore reads them in one call, bounded only by the read timeout
between bytes (documented in docs/reliability.md).

Errors are httpx's own (``httpx.ReadTimeout`` naming the deadline), so every caller's existing handling
of a timeout applies; the model client tells a spent deadline from a slow server by ``expired()``.

HTTP_TRUST_ENV=false (the default): HTTP_PROXY/HTTPS_PROXY/ALL_PROXY and .netrc are not read, so the
whitelist alone says where verification, publication and feed requests go. true: requests go through
the proxy those variables name (NO_PROXY is not read).
"""

from __future__ import annotations

import threading
import time
import urllib.request
from collections.abc import Iterator

import httpx

from config import Settings
from pipeline.outcome import StopRun, Verdict


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

    def stop_run(self, during: str) -> StopRun:
        """How a run ends when its deadline cut a request off: budget (max_seconds), or interrupted on a stop."""
        if self.stop.is_set():
            return StopRun(Verdict.interrupted, "signal", f"stop requested during {during}")
        return StopRun(Verdict.budget, "max_seconds", f"{self.reason()} during {during}")

    def reason(self) -> str:
        if self.stop.is_set():
            return "stop requested"
        return f"run deadline RUN_MAX_SECONDS={getattr(self._run, 'seconds', 0):g} s passed"


class _DeadlineStream(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, deadline: RunDeadline, request: httpx.Request) -> None:
        self.inner, self.deadline, self.request = inner, deadline, request

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            if self.deadline.expired():
                raise httpx.ReadTimeout(f"{self.deadline.reason()} while reading the answer", request=self.request)
            yield chunk

    def close(self) -> None:
        self.inner.close()


class DeadlineTransport(httpx.BaseTransport):
    def __init__(self, inner: httpx.BaseTransport, deadline: RunDeadline) -> None:
        self.inner, self.deadline = inner, deadline

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        remaining = self.deadline.remaining()
        if remaining is not None:
            if remaining <= 0:
                raise httpx.ReadTimeout(f"{self.deadline.reason()}; request not sent", request=request)
            timeouts = request.extensions.get("timeout", {})
            request.extensions["timeout"] = {k: remaining if v is None else min(v, remaining)
                                             for k, v in timeouts.items()}
        response = self.inner.handle_request(request)
        assert isinstance(response.stream, httpx.SyncByteStream)
        response.stream = _DeadlineStream(response.stream, self.deadline, request)
        return response

    def close(self) -> None:
        self.inner.close()


def _proxy(trust_env: bool) -> str | None:
    if not trust_env:
        return None
    proxies = urllib.request.getproxies()
    return proxies.get("https") or proxies.get("http") or proxies.get("all")


def http_client(settings: Settings, deadline: RunDeadline, timeout: float) -> httpx.Client:
    """An httpx.Client under ``deadline`` with ``timeout`` per operation; HTTP_TRUST_ENV decides proxies."""
    trust = settings.http_trust_env
    inner = httpx.HTTPTransport(proxy=_proxy(trust), trust_env=trust)
    return httpx.Client(transport=DeadlineTransport(inner, deadline), timeout=timeout, trust_env=trust)
