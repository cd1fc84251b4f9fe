"""Many tasks published on one connection at once, each reported as soon as the broker confirmed it.

    publish_confirmed(app, queue, run_ids, confirmed)
      one connection, one channel in confirm mode (RabbitMQ publisher confirms)
      -> the task of each run id (``Tasks``: the message app.send_task makes), none waiting for its confirm,
         CHUNK at a time (``_corked``); after each chunk the acks that came back meanwhile are read and their
         run ids handed to ``confirmed`` (the caller marks them sent)
      -> then the remaining acks, until CONFIRM_TIMEOUT_SECONDS
      a nack, a broker error or the timeout leaves a task's run unconfirmed: never marked sent, the reconciler's

Why not ``app.send_task`` on the app's own connections (``confirm_publish``): py-amqp then waits for each
message's confirm before it publishes the next (``basic_publish_confirm``), one round trip per task. Measured
with 1,000 tasks at load 5.9 on 2 cores (a scratch script): one connection 3.8 s and 0.50 ms of CPU a task;
the scheduler used eight connections on eight threads (1.54 s and 0.7 ms a task at load 10.8: docs/benchmarks.md,
section 12). Pipelined confirms, as RabbitMQ documents them (publish, and take the acks as they come: a delivery
tag each, ``multiple`` acking every tag up to it) on one connection: 0.55 s and 0.22 ms of CPU a task (0.17 ms
with ``Tasks``, 0.10 ms corked, below). The message is the one
``app.send_task`` makes.

Only AMQP has confirms: another broker (Redis) gets ``send_task`` one task after the other, each confirmed
when the call returns.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from celery import Celery
from celery.utils import uuid
from kombu import Connection, Producer
from loguru import logger

from pipeline.workers.app import TASK

CHUNK = 50  # tasks published between two reads of the acks: the first runs are marked sent while the rest go out
CONFIRM_TIMEOUT_SECONDS = 10.0  # how long the last acks are waited for; a task unconfirmed by then is re-sent
# by the reconciler (RabbitMQ confirms a persistent message once it is on disk: milliseconds, seconds when loaded)
POLL_SECONDS = 0.001  # a read of the acks that came back while publishing; a positive timeout, so that py-amqp
# keeps a frame it read in part (with 0 the socket is non-blocking, and a half-read frame would be lost)

Confirmed = Callable[[list[int]], None]


class Acks:
    """The delivery tags of one confirm-mode channel not acked yet, with their run ids (the broker numbers a
    channel's messages from 1, in the order published)."""

    def __init__(self) -> None:
        self.pending: dict[int, int] = {}  # delivery tag -> run id, oldest first
        self.published = 0
        self.acked: list[int] = []  # acked since the last take()
        self.nacked: list[int] = []

    def publish(self, run_id: int) -> None:
        self.published += 1
        self.pending[self.published] = run_id

    def ack(self, tag: int, multiple: bool) -> None:
        self.acked.extend(self._settle(tag, multiple))

    def nack(self, tag: int, multiple: bool) -> None:
        self.nacked.extend(self._settle(tag, multiple))

    def _settle(self, tag: int, multiple: bool) -> list[int]:
        tags = [t for t in self.pending if t <= tag] if multiple else [tag] if tag in self.pending else []
        return [self.pending.pop(t) for t in tags]

    def take(self) -> list[int]:
        """The run ids acked since the last call."""
        taken, self.acked = self.acked, []
        return taken


def publish_confirmed(app: Celery, queue: str, run_ids: Sequence[int], confirmed: Confirmed) -> list[int]:
    """The task of each run id, published on one connection; ``confirmed`` gets the run ids the broker confirmed,
    a few at a time as their acks arrive. The run ids confirmed (the others are logged ``tick.send_failed``)."""
    done: list[int] = []

    def hand_over(run_ids: list[int]) -> None:
        if run_ids:
            confirmed(run_ids)
            done.extend(run_ids)

    try:
        with app.connection_for_write(transport_options={"confirm_publish": False}) as conn:
            if conn.transport.driver_type != "amqp":
                _one_by_one(app, queue, run_ids, conn, hand_over)
            else:
                _pipelined(app, queue, run_ids, conn, hand_over)
    except Exception as exc:  # kombu raises OperationalError and socket errors alike when the broker is away
        logger.warning("tick.send_failed", run_ids=sorted(set(run_ids) - set(done)),
                       error=f"{type(exc).__name__}: {exc}")
    return done


class Tasks:
    """The task of a run id, as ``app.send_task(TASK, args=[run_id], queue=queue)`` makes and publishes it (the
    workers get the same message: tests/pipeline/executors/test_celery_batches.py compares them), from the same
    two Celery calls send_task ends in, ``amqp.create_task_message`` (the protocol-2 message, ``as_task_v2``) and
    ``amqp.send_task_message`` (the publish), with what send_task works out again on every call worked out once.

    Why: on a pipelined channel send_task took 0.25 ms of CPU a task, and this 0.17 ms (1,000 tasks, load 5; a
    scratch script): send_task routes each task anew, reads its configuration through Celery's layered view,
    builds an AsyncResult, and declares the queue again for each one (kombu skips the declaration it
    remembers, but first binds a copy of the queue to the channel: 12 % of a publish). Here the route is worked
    out once and the queue declared once per connection; the scheduler's app has no task registered, so
    send_task adds no task options either."""

    def __init__(self, app: Celery, queue: str) -> None:
        self.amqp = app.amqp
        self.options = app.amqp.router.route({"queue": queue}, TASK, None, None, None)
        self.reply_to = app.thread_oid  # the publishing thread's, as send_task gives
        self.sent_event = app.conf.task_send_sent_event

    def declare(self, producer: Producer) -> None:
        """Declare the queue on the producer's connection (a task sent to a queue that does not exist is lost)."""
        producer.maybe_declare(self.options["queue"])

    def publish(self, producer: Producer, run_id: int) -> None:
        message = self.amqp.create_task_message(
            uuid(), TASK, [run_id], reply_to=self.reply_to, create_sent_event=self.sent_event, ignore_result=None,
            **self.options)
        # retry=False: a publish retried on a new connection would be numbered on another channel
        self.amqp.send_task_message(producer, TASK, message, retry=False, declare=[], **self.options)


def _pipelined(app: Celery, queue: str, run_ids: Sequence[int], conn: Connection,
               hand_over: Confirmed) -> None:
    channel = conn.channel()
    channel.confirm_select()
    acks = Acks()
    channel.events["basic_ack"].add(acks.ack)
    channel.events["basic_nack"].add(acks.nack)
    producer = Producer(channel)
    tasks = Tasks(app, queue)
    tasks.declare(producer)
    sock = conn.connection.transport.sock
    for start in range(0, len(run_ids), CHUNK):
        with _corked(sock):
            for run_id in run_ids[start:start + CHUNK]:
                tasks.publish(producer, run_id)
                acks.publish(run_id)
        _read_acks(conn, POLL_SECONDS)
        hand_over(acks.take())
    deadline = time.monotonic() + CONFIRM_TIMEOUT_SECONDS
    while acks.pending and (left := deadline - time.monotonic()) > 0:
        _read_acks(conn, left)
        hand_over(acks.take())
    if acks.pending or acks.nacked:
        logger.warning("tick.send_failed", run_ids=sorted([*acks.pending.values(), *acks.nacked]),
                       error="not confirmed by the broker" if acks.pending else "refused by the broker")


@contextmanager
def _corked(sock: socket.socket) -> Iterator[None]:
    """The chunk's messages leave in full TCP segments when it ends (Linux's TCP_CORK), not one by one.

    Why: py-amqp writes each message with a send of its own, and on 127.0.0.1 each send carries the message
    through the TCP stack to the broker at once; corked, a send only fills the socket's buffer. 1,000 tasks took
    0.13 ms of CPU each and 0.30 s uncorked, 0.10 ms and 0.19 s corked (load 2.8, a scratch script, four rounds
    each way)."""
    cork = getattr(socket, "TCP_CORK", None)
    if cork is not None:
        sock.setsockopt(socket.IPPROTO_TCP, cork, 1)
    try:
        yield
    finally:
        if cork is not None:
            sock.setsockopt(socket.IPPROTO_TCP, cork, 0)


def _read_acks(conn: Connection, timeout: float) -> None:
    """Every frame that arrives within ``timeout`` (the first), then those already there."""
    try:
        conn.drain_events(timeout=timeout)
        while True:
            conn.drain_events(timeout=POLL_SECONDS)
    except socket.timeout:
        return


def _one_by_one(app: Celery, queue: str, run_ids: Sequence[int], conn: Connection, hand_over: Confirmed) -> None:
    producer = Producer(conn)
    sent: list[int] = []
    try:
        for run_id in run_ids:
            app.send_task(TASK, args=[run_id], queue=queue, producer=producer, retry=True)
            sent.append(run_id)
            if len(sent) == CHUNK:
                hand_over(sent)
                sent = []
    finally:
        hand_over(sent)
