"""Webhook delivery off the caller's thread, each POST with one total deadline.

    WebhookSender(url, deadline_seconds, trust_env)   trust_env: HTTP_TRUST_ENV (proxies from the environment)
      submit(key, body)   queue one JSON POST and return at once; a key already submitted is skipped
                          (an alert is sent once per run, once per day without a publication)
      close(grace)        wait up to ``grace`` seconds for what is in flight, cancel the rest, stop

Why asyncio: httpx's timeouts are per operation (connect, each read, each write), so a receiver that
answers one byte at a time, or accepts the connection and never answers, can hold a synchronous POST
for ever. Here every POST runs as a task on one event loop in a daemon thread, inside
``asyncio.timeout(deadline)``, which cancels it wherever it waits (connecting, sending, reading
headers or body); cancelling closes the connection. The scheduler thread only queues, so a bad
webhook can neither wedge a tick nor delay SIGTERM by more than ``grace``.

Delivery errors are logged with the status or the exception's class, never the message or the URL
(either may quote a token in the webhook URL).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any

import httpx
from loguru import logger


class WebhookSender:
    def __init__(self, url: str, deadline_seconds: float, trust_env: bool = False) -> None:
        self.url, self.deadline, self.trust_env = url, deadline_seconds, trust_env
        self.sent_keys: set[str] = set()
        self.pending: set[concurrent.futures.Future[bool]] = set()
        self.lock = threading.Lock()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="webhook", daemon=True)
        self.thread.start()
        self.client = asyncio.run_coroutine_threadsafe(self._client(), self.loop).result()

    async def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=self.deadline, follow_redirects=False, trust_env=self.trust_env)

    def submit(self, key: str, body: dict[str, Any]) -> concurrent.futures.Future[bool] | None:
        """Queue the POST of ``body`` unless ``key`` was already submitted; never blocks."""
        with self.lock:
            if key in self.sent_keys or self.loop.is_closed():
                return None
            self.sent_keys.add(key)
            future = asyncio.run_coroutine_threadsafe(self._post(key, body), self.loop)
            self.pending.add(future)
        future.add_done_callback(self.pending.discard)
        return future

    async def _post(self, key: str, body: dict[str, Any]) -> bool:
        log = logger.bind(alert=key)
        try:
            async with asyncio.timeout(self.deadline):
                response = await self.client.post(self.url, json=body)
        except TimeoutError:
            log.error("alert.failed", error="deadline", deadline_s=self.deadline)
            return False
        except httpx.HTTPError as exc:
            log.error("alert.failed", error=exc.__class__.__name__)
            return False
        if not response.is_success:
            log.error("alert.failed", status=response.status_code)
            return False
        log.info("alert.sent", status=response.status_code)
        return True

    def close(self, grace: float = 2.0) -> None:
        """Let in-flight POSTs finish for up to ``grace`` seconds, cancel the rest, stop the loop."""
        with self.lock:
            pending = list(self.pending)
        concurrent.futures.wait(pending, timeout=grace)
        for future in pending:
            future.cancel()
        asyncio.run_coroutine_threadsafe(self.client.aclose(), self.loop).result(timeout=grace + 1)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(grace + 1)
        self.loop.close()
