"""Webhook delivery against a real local HTTP server: never blocks the caller, one total deadline per POST."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from pipeline.webhook import WebhookSender
from tests.local_http import LocalHTTP, answer, silent, trickle


@pytest.fixture
def server() -> Iterator[LocalHTTP]:
    with LocalHTTP() as http_server:
        yield http_server


def test_body_is_posted_once_per_key(server: LocalHTTP) -> None:
    """The JSON body reaches the receiver; submitting the same key again sends nothing."""
    server.routes["/hook"] = answer(200, b"ok")
    sender = WebhookSender(server.url("/hook"), deadline_seconds=5)
    first = sender.submit("run:1", {"text": "run 1 failed", "run_id": 1})
    assert first is not None and first.result(timeout=5) is True
    assert sender.submit("run:1", {"text": "again"}) is None
    sender.close()
    assert [json.loads(body) for _, _, body in server.requests] == [{"text": "run 1 failed", "run_id": 1}]


@pytest.mark.parametrize("route", [trickle(b"x", every=0.2), silent], ids=["trickles", "never-answers"])
def test_a_stuck_receiver_is_cut_at_the_deadline_without_blocking_the_caller(server: LocalHTTP, route) -> None:
    """A receiver trickling a byte every 0.2 s, or never answering, ends in failure at the 1 s deadline;
    submit() returns at once and close() stops promptly."""
    server.routes["/hook"] = route
    sender = WebhookSender(server.url("/hook"), deadline_seconds=1)
    started = time.monotonic()
    future = sender.submit("run:2", {"text": "x"})
    submitted = time.monotonic() - started
    assert future is not None and future.result(timeout=10) is False
    finished = time.monotonic() - started
    sender.close(grace=0.5)
    assert submitted < 0.5 and 0.9 < finished < 5


def test_close_cancels_what_is_still_in_flight(server: LocalHTTP) -> None:
    """close(grace) returns after about grace even when a POST could go on for its whole 60 s deadline."""
    server.routes["/hook"] = silent
    sender = WebhookSender(server.url("/hook"), deadline_seconds=60)
    future = sender.submit("run:3", {"text": "x"})
    time.sleep(0.2)
    started = time.monotonic()
    sender.close(grace=0.5)
    assert time.monotonic() - started < 3 and future is not None and future.cancelled()


def test_a_refusing_receiver_is_logged_with_its_status_never_its_url(server: LocalHTTP) -> None:
    """A 500 is logged as alert.failed with the status; the URL (which may hold a token) appears nowhere."""
    from loguru import logger

    server.routes["/hooks/secret-token"] = answer(500)
    lines: list[str] = []
    sink = logger.add(lines.append, format="{message} {extra}")
    try:
        sender = WebhookSender(server.url("/hooks/secret-token"), deadline_seconds=5)
        future = sender.submit("run:4", {"text": "x"})
        assert future is not None and future.result(timeout=5) is False
        sender.close()
    finally:
        logger.remove(sink)
    assert any("alert.failed" in line and "500" in line for line in lines)
    assert not any("secret-token" in line for line in lines)
