"""The Celery app both sides build from the deployment (broker, queue) and the delivery guarantees.

- ``task_acks_late`` + ``task_reject_on_worker_lost``: a task is acknowledged only after its run ended;
  a worker killed mid-run leaves it unacknowledged and the broker gives it to another worker.
- ``worker_prefetch_multiplier = 1``: a worker reserves one task per free slot, so ticks are not held
  by a busy worker while another is idle (and a killed worker takes at most its running tasks down).
- ``confirm_publish`` (RabbitMQ): ``send_task`` returns only when the broker has the persistent message
  on its durable queue, so ``sent_at`` means "survives a broker restart".
- RabbitMQ closes a channel whose delivery stays unacknowledged past its ``consumer_timeout``
  (default 30 min): runs must end before it (RUN_MAX_SECONDS, default 15 min, is checked with the
  other settings, config.settings CROSS_CHECKS: every command refuses 1800 s or more under EXECUTOR=celery
  over amqp://). Redis re-delivers an unacknowledged task after ``visibility_timeout``, set to 2 x the longest
  RUN_MAX_SECONDS of any pipeline (at least one hour) so a long run is never given to a second worker
  while the first is alive.
"""

from __future__ import annotations

from collections.abc import Sequence

from celery import Celery

from config import ConfigError, Settings
from config.deployment import Execution

TASK = "factline.run_tick"
MIN_VISIBILITY_TIMEOUT_SECONDS = 3600


def visibility_timeout(pipelines: Sequence[Settings]) -> int:
    """Redis: seconds before an unacknowledged task is delivered again; twice the longest run any pipeline allows."""
    return max(MIN_VISIBILITY_TIMEOUT_SECONDS, int(2 * max(p.run_max_seconds for p in pipelines)))


def make_app(executor: Execution, pipelines: Sequence[Settings]) -> Celery:
    """The app of a deployment: its broker and queue; the visibility timeout from its pipelines' longest run."""
    app = Celery("factline", broker=executor.broker_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        task_default_queue=executor.queue,
        task_routes={TASK: {"queue": executor.queue}},
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            "confirm_publish": True,
            "visibility_timeout": visibility_timeout(pipelines),
        },
        worker_hijack_root_logger=False,
        worker_redirect_stdouts=False,
        worker_cancel_long_running_tasks_on_connection_loss=False,
        task_publish_retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5},
    )
    return app


class BrokerUnreachable(ConfigError):
    """The broker cannot be reached at start: one line naming CELERY_BROKER_URL (its password hidden), exit 2 like
    every problem found at start."""


def check_broker(executor: Execution, timeout: float = 5.0) -> None:
    """Connect to CELERY_BROKER_URL once, within ``timeout``: BrokerUnreachable if it does not answer, so the
    daemon does not claim ticks it cannot send and a worker does not wait for a broker without saying so."""
    from kombu import Connection

    shown = make_url_safe(executor.broker_url)
    try:
        with Connection(executor.broker_url, connect_timeout=timeout) as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)
    except Exception as exc:  # kombu raises the transport's own errors (OSError, OperationalError, redis's...)
        raise BrokerUnreachable(f"the broker at {shown} (CELERY_BROKER_URL) is not reachable: "
                                f"{exc.__class__.__name__}") from None


def make_url_safe(url: str) -> str:
    """A broker URL with its password replaced by ***."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at or ":" not in credentials:
        return url
    return f"{scheme}{sep}{credentials.split(':', 1)[0]}:***@{host}"
