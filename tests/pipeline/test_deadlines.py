"""RUN_MAX_SECONDS is a wall-clock deadline that holds while a request is in flight; SIGTERM always stops the daemon.

The slow parties are real HTTP servers on 127.0.0.1 that answer one byte every half second, which no
per-read timeout ever trips. Timings are bounds with room for a busy machine, never measurements.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from capabilities.errors import Retryable
from capabilities.verify import PageLimits, check_article
from config import Settings
from pipeline.daemon import STOP_GRACE_SECONDS
from pipeline.http import RunDeadline, http_client
from pipeline.outcome import RunStatus, Verdict
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from pipeline.webhook import WebhookSender
from testkit.daemon_process import DaemonProcess, LedgerProbe, daemon_env, wait_for
from tests.conftest import make_settings
from tests.local_http import LocalHTTP, TricklingSocket, answer, trickle

COMPLETION_HEAD = b'{"id": "x", "object": "chat.completion", "choices": ['


@pytest.fixture
def server() -> Iterator[LocalHTTP]:
    with LocalHTTP() as s:
        yield s


def test_a_trickling_model_endpoint_is_cut_off_at_the_run_deadline(settings: Settings, server: LocalHTTP) -> None:
    """An endpoint sending a byte every 0.5 s: the run ends `budget` (max_seconds) near RUN_MAX_SECONDS, not never."""
    server.routes["/v1/chat/completions"] = trickle(b" ", every=0.5, head=COMPLETION_HEAD)
    slow = settings.model_copy(update={"openai_base_url": server.url("/v1"), "run_max_seconds": 1.0})
    started = time.monotonic()
    with open_runtime(slow) as rt:
        result = run_once(rt)
    assert time.monotonic() - started < 10
    assert (result.verdict, result.stop_reason) == (Verdict.budget, "max_seconds")
    assert "RUN_MAX_SECONDS=1 s passed during a model turn" in (result.error or "")


def test_a_trickling_feed_is_cut_off_at_the_run_deadline(settings: Settings, server: LocalHTTP) -> None:
    """A topics feed trickling under its own 60 s deadline is still cut off by the run's 1 s one; the call is recorded."""
    server.routes["/feed"] = trickle(b" ", every=0.5, head=b"<rss><channel>")
    slow = settings.model_copy(update={"topics_source": server.url("/feed"), "run_max_seconds": 1.0,
                                       "topics_feed_deadline_seconds": 60.0})
    started = time.monotonic()
    with open_runtime(slow) as rt:
        result = run_once(rt)
        with rt.sessions() as s:
            calls = s.execute(text("SELECT name, outcome, reason FROM tool_calls")).all()
    assert time.monotonic() - started < 10
    assert (result.verdict, result.stop_reason) == (Verdict.budget, "max_seconds")
    assert [tuple(c) for c in calls] == [("pick_topic", "failed", "max_seconds")]


def test_a_request_made_after_the_deadline_is_never_sent(server: LocalHTTP, settings: Settings) -> None:
    """Past the deadline (or after a stop), the client fails at once and the server sees nothing."""
    server.routes["/ok"] = answer(200, b"fine")
    deadline = RunDeadline()
    with http_client(settings, deadline, 5) as client:
        assert client.get(server.url("/ok")).text == "fine"  # no run: no deadline
        deadline.start(0.0001)
        time.sleep(0.01)
        with pytest.raises(httpx.ReadTimeout, match="request not sent"):
            client.get(server.url("/ok"))
        deadline.clear()
        deadline.stop.set()
        with pytest.raises(httpx.ReadTimeout, match="stop requested"):
            client.get(server.url("/ok"))
    assert server.paths() == ["/ok"]


def test_runs_on_two_threads_keep_their_own_deadlines() -> None:
    """A Celery worker runs several runs of one Runtime on threads: one run's spent deadline is not another's."""
    deadline = RunDeadline()
    deadline.start(600)
    spent = threading.Thread(target=lambda: (deadline.start(0.0001), time.sleep(0.01), seen.append(deadline.expired())))
    seen: list[bool] = []
    spent.start()
    spent.join()
    assert seen == [True] and not deadline.expired() and (deadline.remaining() or 0) > 500
    deadline.stop.set()  # a stop is for every thread
    assert deadline.expired()


@contextmanager
def daemon_waiting_on(route: Any, db_url: str, server: LocalHTTP, tmp_path: Path) -> Iterator[tuple[DaemonProcess, LedgerProbe]]:
    """A daemon whose first run is waiting on ``route`` as its model endpoint (deadlines far away), and a ledger probe."""
    server.routes["/v1/chat/completions"] = route
    env = daemon_env(db_url, server.url("/v1"), tmp_path, RUN_MAX_SECONDS="600", LLM_TIMEOUT_SECONDS="600")
    daemon = DaemonProcess(env, tmp_path / "daemon.log")
    probe = LedgerProbe(db_url)
    try:
        wait_for(lambda: "/v1/chat/completions" in server.paths(), timeout=30)
        yield daemon, probe
    finally:
        if daemon.proc.poll() is None:
            daemon.kill()
        probe.close()


def test_sigterm_stops_the_daemon_while_the_model_trickles(db_url: str, server: LocalHTTP, tmp_path: Path) -> None:
    """The daemon's run waits on a trickling endpoint: SIGTERM still ends it within seconds, the run `interrupted`."""
    route = trickle(b" ", every=0.5, head=COMPLETION_HEAD)
    with daemon_waiting_on(route, db_url, server, tmp_path) as (daemon, probe):
        sent = time.monotonic()
        assert daemon.stop(signal.SIGTERM, timeout=30) == 0, daemon.logs()[-2000:]
        assert time.monotonic() - sent < STOP_GRACE_SECONDS  # the stop cut the request: nothing was abandoned
        rows = probe.rows("SELECT status, verdict, stop_reason FROM runs")
        assert rows and set(rows) == {(RunStatus.interrupted, Verdict.interrupted, "signal")}


def test_sigterm_stops_the_daemon_while_the_model_trickles_its_headers(
        db_url: str, server: LocalHTTP, tmp_path: Path) -> None:
    """A status line, then a header one byte at a time: the stop reaches the socket read, so the daemon exits 0
    within seconds and the run is `interrupted` (signal), not abandoned after the grace."""
    def trickle_headers(handler: Any, stop: threading.Event) -> None:
        try:
            handler.wfile.write(b"HTTP/1.0 200 OK\r\nX-Slow: ")
            while not stop.wait(0.5):
                handler.wfile.write(b"a")
                handler.wfile.flush()
        except OSError:
            return

    with daemon_waiting_on(trickle_headers, db_url, server, tmp_path) as (daemon, probe):
        sent = time.monotonic()
        assert daemon.stop(signal.SIGTERM, timeout=STOP_GRACE_SECONDS + 20) == 0, daemon.logs()[-2000:]
        assert time.monotonic() - sent < STOP_GRACE_SECONDS
        assert probe.rows("SELECT status, verdict, stop_reason FROM runs") == [
            (RunStatus.interrupted, Verdict.interrupted, "signal")]
        assert "daemon.abandoned_runs" not in daemon.logs()


@pytest.fixture
def slow_headers() -> Iterator[TricklingSocket]:
    with TricklingSocket() as s:
        yield s


# Each party with the run deadline it is tested under: the model and the feed are a run's first requests, so 1 s
# leaves them time to be reached; WordPress comes after the model's turns and the checks, so 2 s.
PARTIES = {
    "model endpoint": lambda url: {"openai_base_url": url + "v1", "run_max_seconds": 1.0},
    "topics feed": lambda url: {"topics_source": url + "feed", "topics_feed_deadline_seconds": 600,
                                "run_max_seconds": 1.0},
    "wordpress": lambda url: {"publish_target": "wordpress", "wordpress_url": url, "wordpress_user": "u",
                              "wordpress_app_password": "p", "run_max_seconds": 2.0},
}


@pytest.mark.parametrize("party", PARTIES)
def test_a_party_trickling_its_status_line_and_headers_is_cut_off_at_the_run_deadline(
        party: str, db_url: str, model: Any, slow_headers: TricklingSocket, tmp_path: Path) -> None:
    """A raw socket sending the status line and headers one byte every 0.2 s, with every per-operation timeout at
    60 s: RUN_MAX_SECONDS (1 or 2 s) still ends the run `budget` (max_seconds) within seconds."""
    slow = make_settings(db_url, model.base_url, tmp_path, http_timeout_seconds=60,
                         llm_timeout_seconds=60, **PARTIES[party](slow_headers.url()))
    started = time.monotonic()
    with open_runtime(slow) as rt:
        result = run_once(rt)
    assert time.monotonic() - started < 10
    assert slow_headers.connections >= 1
    assert (result.verdict, result.stop_reason) == (Verdict.budget, "max_seconds"), result.error


def test_a_page_check_trickling_its_headers_is_cut_off_at_the_run_deadline(
        settings: Settings, slow_headers: TricklingSocket) -> None:
    """The page check's GET of a page whose headers trickle raises Retryable (timed out) at the 1 s deadline."""
    deadline = RunDeadline()
    with http_client(settings, deadline, 60, trust_env=False) as client:
        deadline.start(1.0)
        started = time.monotonic()
        with pytest.raises(Retryable, match="timed out"):
            check_article(client, slow_headers.url("/a"), "t", "<p>b</p>", PageLimits(["127.0.0.1"], 10**6, 0.98))
    assert time.monotonic() - started < 5


def test_a_webhook_trickling_its_headers_is_cut_off_at_its_deadline(slow_headers: TricklingSocket) -> None:
    """An alert receiver trickling its status line: the POST gives up at ALERT_DEADLINE_SECONDS (1 s)."""
    sender = WebhookSender(slow_headers.url("/hook"), 1.0)
    started = time.monotonic()
    future = sender.submit("k", {"a": 1})
    assert future is not None and future.result(timeout=10) is False
    assert time.monotonic() - started < 5
    sender.close()
