"""What a run needs, built once from Settings: ledger sessions, the HTTP client, the target, the model.

``open_runtime`` is a context manager so that everything it starts (the local site server, a local
LLM server) stops with it. The CLI and the daemon both use it; nothing else reads the environment.
``open_runtimes`` opens one Runtime per pipeline of a deployment (the daemon, a Celery worker): they
share the ledger and at most one embedded model server, which the pipelines without an endpoint use.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import httpx
import openai
from loguru import logger
from sqlalchemy.orm import Session, sessionmaker

from capabilities import CATALOG
from capabilities.base import Capability, PublishTarget
from capabilities.targets import open_target
from config import Deployment, Settings
from config.deployment import Model
from config.secrets import Redactor
from pipeline.http import RunDeadline, http_client
from pipeline.catalog import catalog_version, prompt_version
from pipeline.ledger.db import open_ledger
from pipeline.ledger.runs import RunStamp
from pipeline.localmodel import start_local_model
from pipeline.model import Endpoint, make_client
from pipeline.retry import RetryPolicy
from pipeline.tracing import NO_TRACING, Tracing, open_tracing


@dataclass
class Runtime:
    settings: Settings
    sessions: sessionmaker[Session]
    http: httpx.Client
    page_http: httpx.Client  # the page check's: the same deadline, never a proxy (pipeline.http)
    target: PublishTarget
    endpoint: Endpoint
    openai_client: openai.OpenAI
    policy: RetryPolicy
    deadline: RunDeadline  # the run's end, enforced by http and openai_client while a request is in flight
    redact: Redactor  # the deployment's and the pipeline's secrets, replaced in every text it stores (config.secrets)
    catalog: Mapping[str, Capability[Any, Any]]  # the chain the runs of this pipeline walk (capabilities.CATALOG)
    tracing: Tracing = NO_TRACING  # the deployment's traces (pipeline.tracing): one provider for every pipeline

    @cached_property
    def stamp(self) -> RunStamp:
        """What every run of this runtime records it was given: model, mode, prompt and catalog versions."""
        return RunStamp(self.endpoint.model, self.endpoint.mode, prompt_version(self.catalog, self.settings.language),
                        catalog_version(self.catalog))


@dataclass
class Publisher:
    """What publishing needs and no model: the ledger, the HTTP client, the target, retries, the deadline.

    An approved run is continued with it (pipeline.review.publisher): an editor's command never starts a model.
    """

    settings: Settings
    sessions: sessionmaker[Session]
    http: httpx.Client
    page_http: httpx.Client
    target: PublishTarget
    policy: RetryPolicy
    deadline: RunDeadline
    redact: Redactor

    @classmethod
    def of(cls, runtime: Runtime) -> Publisher:
        return cls(runtime.settings, runtime.sessions, runtime.http, runtime.page_http, runtime.target, runtime.policy,
                   runtime.deadline, runtime.redact)


@contextmanager
def open_publisher(deployment: Deployment, settings: Settings) -> Iterator[Publisher]:
    """A Publisher for one pipeline of the deployment; the target's resources (the local site's server) stop with
    the block."""
    with ExitStack() as stack:
        deadline = RunDeadline()
        http = stack.enter_context(http_client(settings, deadline, settings.http_timeout_seconds))
        page_http = http if not settings.http_trust_env else stack.enter_context(
            http_client(settings, deadline, settings.http_timeout_seconds, trust_env=False))
        target = stack.enter_context(open_target(deployment.site, settings, http))
        yield Publisher(settings, open_ledger(deployment.ledger.url), http, page_http, target,
                        RetryPolicy.from_settings(settings), deadline, Redactor.of(deployment, settings))


def open_endpoint(model: Model, settings: Settings, stack: ExitStack,
                  local: dict[str, Endpoint] | None = None) -> Endpoint:
    """The configured endpoint, or the embedded local model started on the stack (auto -> constrained).

    ``local`` caches the embedded model's endpoint so that several pipelines share one server.
    """
    if settings.openai_base_url:
        mode = "native" if settings.tool_call_mode == "auto" else settings.tool_call_mode
        return Endpoint(settings.openai_base_url, settings.factline_model, mode)
    local = {} if local is None else local
    if "server" not in local:
        server = stack.enter_context(start_local_model(model))
        local["server"] = Endpoint(server.base_url, server.model_name, "")
    server_endpoint = local["server"]
    mode = "constrained" if settings.tool_call_mode == "auto" else settings.tool_call_mode
    return Endpoint(server_endpoint.base_url, server_endpoint.model, mode)


@contextmanager
def open_runtime(settings: Settings) -> Iterator[Runtime]:
    """One pipeline's Runtime, in the deployment its settings were loaded with."""
    with open_runtimes(settings.deployment(), [settings]) as runtimes:
        yield runtimes[settings.pipeline]


@contextmanager
def open_runtimes(deployment: Deployment, pipelines: Sequence[Settings],
                  stop: threading.Event | None = None) -> Iterator[dict[str, Runtime]]:
    """One Runtime per pipeline of the deployment, by name; everything they started stops when the block ends.

    ``stop`` (the daemon's SIGTERM) ends every request in flight as the run deadline does."""
    started = time.monotonic()
    with ExitStack() as stack:
        sessions = open_ledger(deployment.ledger.url)
        tracing = open_tracing(deployment.otel, Redactor.of(deployment, *pipelines))
        stack.callback(tracing.close)
        local: dict[str, Endpoint] = {}
        local_site: PublishTarget | None = None  # one local site serves every pipeline (LOCAL_SITE_* are deployment-wide)
        runtimes = {}
        for settings in pipelines:
            deadline = RunDeadline(stop)
            http = stack.enter_context(http_client(settings, deadline, settings.http_timeout_seconds))
            page_http = http if not settings.http_trust_env else stack.enter_context(
                http_client(settings, deadline, settings.http_timeout_seconds, trust_env=False))
            if settings.publish_target == "local" and local_site is not None:
                target = local_site
            else:
                target = stack.enter_context(open_target(deployment.site, settings, http))
                local_site = target if settings.publish_target == "local" else local_site
            endpoint = open_endpoint(deployment.model, settings, stack, local)
            client = make_client(settings, endpoint, deadline)
            stack.callback(client.close)
            logger.info("runtime.ready", pipeline=settings.pipeline, endpoint=endpoint.base_url, model=endpoint.model,
                        mode=endpoint.mode, target=target.name, seconds=round(time.monotonic() - started, 2))
            runtimes[settings.pipeline] = Runtime(settings, sessions, http, page_http, target, endpoint, client,
                                                  RetryPolicy.from_settings(settings), deadline,
                                                  Redactor.of(deployment, settings),
                                                  CATALOG, tracing)
        yield runtimes
