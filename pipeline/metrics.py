"""Prometheus metrics and /healthz on a small HTTP server (127.0.0.1 by default).

Counters are incremented from what each run recorded (its ``RunDetail``), never from the
loop's own bookkeeping, so /metrics and the ledger agree.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

from pipeline.ledger.detail import RunDetail
from pipeline.outcome import EventKind
from pipeline.tracing import Tracing


class Metrics:
    """The daemon's metrics, in a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        p = "pipeline"
        self.runs = Counter("factline_runs", "Runs finished, by verdict", [p, "verdict"], registry=r)
        self.ticks = Counter("factline_ticks", "Scheduled ticks, by outcome (run, queued, claimed_elsewhere)",
                             [p, "outcome"], registry=r)
        self.hallucinations = Counter("factline_hallucinations_caught", "Model turns with unbacked claims", [p],
                                      registry=r)
        self.nudges = Counter("factline_nudges", "Nudges sent to the model, by kind", [p, "kind"], registry=r)
        self.tool_calls = Counter("factline_tool_calls", "Tool calls, by tool name and outcome",
                                  [p, "name", "outcome"], registry=r)
        self.retries = Counter("factline_retries", "Retries, of tools and of the LLM endpoint", [p, "kind"],
                               registry=r)
        self.duration = Histogram("factline_run_duration_seconds", "Run duration", [p], registry=r,
                                  buckets=(1, 5, 15, 30, 60, 120, 300, 600, 900, 1800))
        self.lateness = Histogram("factline_tick_lateness_seconds",
                                  "Seconds from a tick's scheduled time to its run's start (inline), or to its task's "
                                  "sending and a worker taking it (celery)", [p, "stage"], registry=r,
                                  buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900))
        self.last_publication = Gauge("factline_last_publication_timestamp_seconds",
                                      "Unix time of the last verified, registered publication", [p], registry=r)

    def observe_run(self, detail: RunDetail, seconds: float) -> None:
        """Count one finished run from its ledger detail."""
        p = detail.pipeline
        self.runs.labels(p, str(detail.verdict)).inc()
        self.duration.labels(p).observe(seconds)
        for stage, late in detail.lateness().items():
            self.lateness.labels(p, stage).observe(max(0.0, late))
        self.hallucinations.labels(p).inc(detail.hallucinations_caught())
        for nudge in detail.nudges:
            self.nudges.labels(p, str(nudge.kind)).inc()
        for call in detail.tool_calls:
            self.tool_calls.labels(p, call.name, str(call.outcome)).inc()
        for event in detail.events:
            if event.kind in (EventKind.tool_retry, EventKind.llm_retry):
                self.retries.labels(p, event.kind.removesuffix("_retry")).inc()

    def published_at(self, pipeline: str, when: datetime | None) -> None:
        """Set the time of the pipeline's last verified, registered publication (read from the ledger)."""
        if when is not None:
            self.last_publication.labels(pipeline).set(when.timestamp())

    def watch_spans(self, tracing: Tracing) -> None:
        """Count the trace spans this process exported and dropped (pipeline.tracing), read at each scrape."""
        self.registry.register(SpanCollector(tracing))

    def render(self) -> bytes:
        return generate_latest(self.registry)


class SpanCollector(Collector):
    """factline_trace_spans_{exported,dropped}_total, read from the tracing's own counts."""

    def __init__(self, tracing: Tracing) -> None:
        self.tracing = tracing

    def collect(self):  # type: ignore[no-untyped-def]  # prometheus_client's signature
        yield CounterMetricFamily("factline_trace_spans_exported", "Trace spans the collector accepted",
                                  value=self.tracing.exported())
        yield CounterMetricFamily("factline_trace_spans_dropped",
                                  "Trace spans dropped: the export queue was full, or the collector failed or timed out",
                                  value=self.tracing.dropped())


class MetricsServer:
    """Serves /metrics and /healthz until closed; ``port`` is the bound port (useful with port 0)."""

    def __init__(self, metrics: Metrics, host: str, port: int, healthy: threading.Event) -> None:
        handler = _handler(metrics, healthy)
        self._server = ThreadingHTTPServer((host, port), handler)
        self.host, self.port = host, self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, name="metrics", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __enter__(self) -> MetricsServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(metrics: Metrics, healthy: threading.Event) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
            return None

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                self._send(200, metrics.render(), CONTENT_TYPE_LATEST)
            elif path == "/healthz":
                status = 200 if healthy.is_set() else 503
                body = {"status": "ok" if status == 200 else "stopping"}
                self._send(status, json.dumps(body).encode(), "application/json")
            else:
                self._send(404, b"not found\n", "text/plain")

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler
