"""What a run needs, built once from Settings: ledger sessions, the HTTP client, the target, the model.

``open_runtime`` is a context manager so that everything it starts (the local site server, a local
LLM server) stops with it. The CLI and the daemon both use it; nothing else reads the environment.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import httpx
import openai
from loguru import logger
from sqlalchemy.orm import Session, sessionmaker

from capabilities.base import PublishTarget
from capabilities.targets import open_target
from config import Settings
from pipeline.ledger.db import open_ledger
from pipeline.localmodel import start_local_model
from pipeline.model import Endpoint, make_client
from pipeline.retry import RetryPolicy


@dataclass
class Runtime:
    settings: Settings
    sessions: sessionmaker[Session]
    http: httpx.Client
    target: PublishTarget
    endpoint: Endpoint
    openai_client: openai.OpenAI
    policy: RetryPolicy


def open_endpoint(settings: Settings, stack: ExitStack) -> Endpoint:
    """The configured endpoint, or the embedded local model started on the stack (auto -> constrained)."""
    if settings.openai_base_url:
        mode = "native" if settings.tool_call_mode == "auto" else settings.tool_call_mode
        return Endpoint(settings.openai_base_url, settings.factline_model, mode)
    server = stack.enter_context(start_local_model(settings))
    mode = "constrained" if settings.tool_call_mode == "auto" else settings.tool_call_mode
    return Endpoint(server.base_url, server.model_name, mode)


@contextmanager
def open_runtime(settings: Settings) -> Iterator[Runtime]:
    started = time.monotonic()
    with ExitStack() as stack:
        sessions = open_ledger(settings.database_url)
        http = stack.enter_context(httpx.Client(timeout=settings.http_timeout_seconds))
        target = stack.enter_context(open_target(settings, http))
        endpoint = open_endpoint(settings, stack)
        client = make_client(settings, endpoint)
        stack.callback(client.close)
        logger.info("runtime.ready", endpoint=endpoint.base_url, model=endpoint.model, mode=endpoint.mode,
                    target=target.name, seconds=round(time.monotonic() - started, 2))
        yield Runtime(settings, sessions, http, target, endpoint, client, RetryPolicy.from_settings(settings))
