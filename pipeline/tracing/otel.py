"""The OpenTelemetry implementation of pipeline.tracing: the SDK, the OTLP/HTTP exporter, a bounded batch.

Everything is built from the deployment's OTEL_* group (config.deployment.Otel; the SDK reads no OTEL_* variable
itself here): the resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES), the exporter (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS,
_TIMEOUT) and the batch (OTEL_BSP_*). The provider is this object's own, never the global one, so two
deployments in one process (tests) do not mix.

Backpressure: ``BoundedBatch`` counts the spans handed to the batch processor and not yet exported;
past OTEL_BSP_MAX_QUEUE_SIZE a finished span is dropped at once (counted), so the run's thread never
waits and memory stays bounded; ``CountingExporter`` counts every span a failed export lost (the
collector down, slow past OTEL_EXPORTER_OTLP_TIMEOUT, or refusing). Both counts are in /metrics.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from loguru import logger
from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    ConsoleSpanExporter,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
from opentelemetry.trace import SpanKind, Status, StatusCode

from config.deployment import Otel
from config.secrets import Redactor
from config.values import key_values
from pipeline.tracing.base import Span, Tracing

PROVIDER = "openai"  # gen_ai.provider.name: every endpoint factline talks to speaks the OpenAI protocol
_next_trace_id: ContextVar[int | None] = ContextVar("factline_next_trace_id", default=None)


def _version() -> str:
    try:
        return version("factline")
    except PackageNotFoundError:
        return "0"


class RunIds(RandomIdGenerator):
    """Random ids, except a run's root span, whose trace id the ledger already holds."""

    def generate_trace_id(self) -> int:
        chosen = _next_trace_id.get()
        return chosen if chosen is not None else super().generate_trace_id()


class SpanCounts:
    """Spans queued (handed over, not yet exported), exported and dropped; thread-safe."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.queued = self.exported = self.dropped = 0

    def admit(self, limit: int) -> bool:
        with self.lock:
            if self.queued >= limit:
                self.dropped += 1
                return False
            self.queued += 1
            return True

    def settle(self, n: int, ok: bool) -> None:
        with self.lock:
            self.queued = max(0, self.queued - n)
            if ok:
                self.exported += n
            else:
                self.dropped += n


class CountingExporter(SpanExporter):
    """An exporter that counts what it exported and what a failed export lost."""

    def __init__(self, inner: SpanExporter, counts: SpanCounts) -> None:
        self.inner, self.counts = inner, counts

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self.inner.export(spans)
        except Exception as exc:  # an exporter must never take the export thread down
            logger.warning("trace.export_failed", spans=len(spans), error=exc.__class__.__name__)
            result = SpanExportResult.FAILURE
        else:
            if result != SpanExportResult.SUCCESS:
                logger.warning("trace.export_failed", spans=len(spans))
        self.counts.settle(len(spans), result == SpanExportResult.SUCCESS)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class BoundedBatch(BatchSpanProcessor):
    """The SDK's batch processor behind an admission count: a full queue drops the new span, counted."""

    def __init__(self, exporter: SpanExporter, counts: SpanCounts, *, max_queue_size: int, schedule_delay_millis: int,
                 max_export_batch_size: int, export_timeout_millis: int) -> None:
        super().__init__(CountingExporter(exporter, counts), max_queue_size=max_queue_size,
                         schedule_delay_millis=schedule_delay_millis,
                         max_export_batch_size=min(max_export_batch_size, max_queue_size),
                         export_timeout_millis=export_timeout_millis)
        self.counts, self.limit = counts, max_queue_size

    def on_end(self, span: ReadableSpan) -> None:
        if self.counts.admit(self.limit):
            super().on_end(span)


def otlp_exporter(otel: Otel) -> SpanExporter:
    """The OTLP/HTTP exporter of the settings (the traces endpoint as given, or the base endpoint + /v1/traces)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    endpoint = otel.traces_endpoint
    if endpoint is None:
        endpoint = (otel.endpoint or "http://localhost:4318").rstrip("/") + "/v1/traces"
    headers = otel.headers
    return OTLPSpanExporter(endpoint=endpoint, timeout=otel.timeout,
                            headers=key_values(headers.get_secret_value()) if headers else {})


def _value(value: Any) -> Any:
    """An attribute value OpenTelemetry takes: scalars and lists of strings as they are, anything else as JSON."""
    if isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    return json.dumps(value, ensure_ascii=False, default=str)


# Free-text details (a stop's, a failed call's, an error status) quote the article's or the model's words in
# quotation marks: "2 facts not in the sources: '73%', 'Jane Smith'". Without content capture a trace keeps the
# detail and elides what it quotes, so that no article text reaches a trace unasked (issue #25).
QUOTED = re.compile(r"'[^'\n]+'|‘[^’\n]+’|“[^”\n]+”|「[^」\n]+」")
DETAIL_KEYS = frozenset({"detail", "error"})


def elide_quoted(text: str) -> str:
    """``text`` with each quoted passage replaced by '…'."""
    return QUOTED.sub("'…'", text)


class OtelSpan(Span):
    def __init__(self, span: trace.Span, redact: Redactor, content_capture: bool) -> None:
        self.span, self.redact, self.capture = span, redact, content_capture
        context = span.get_span_context()
        self.trace_id = trace.format_trace_id(context.trace_id) if context.is_valid else None

    def _clean(self, attributes: Mapping[str, Any]) -> dict[str, Any]:
        return {k: self.redact.data(_value(v)) for k, v in attributes.items() if v is not None}

    def set(self, attributes: Mapping[str, Any]) -> None:
        self.span.set_attributes(self._clean(attributes))

    def content(self, attributes: Mapping[str, Any]) -> None:
        if self.capture:
            self.set(attributes)

    def event(self, name: str, attributes: Mapping[str, Any]) -> None:
        cleaned = self._clean(attributes)
        if not self.capture:
            cleaned = {k: elide_quoted(v) if k in DETAIL_KEYS and isinstance(v, str) else v for k, v in cleaned.items()}
        self.span.add_event(name, cleaned)

    def fail(self, error_type: str, description: str = "") -> None:
        self.span.set_attribute("error.type", error_type)
        description = self.redact(description) if self.capture else elide_quoted(self.redact(description))
        self.span.set_status(Status(StatusCode.ERROR, description[:500] or None))


class OtelTracing(Tracing):
    """Spans of runs into one TracerProvider of this deployment, exported by a bounded batch."""

    def __init__(self, exporter: SpanExporter, otel: Otel, redact: Redactor) -> None:
        attributes: dict[str, Any] = {"service.version": _version()}
        if otel.resource_attributes:
            attributes.update(key_values(otel.resource_attributes))
        attributes["service.name"] = otel.service_name
        self.counts = SpanCounts()
        timeout_ms = int(otel.timeout * 1000)
        self.batch = BoundedBatch(exporter, self.counts, max_queue_size=otel.bsp_max_queue_size,
                                  schedule_delay_millis=otel.bsp_schedule_delay,
                                  max_export_batch_size=otel.bsp_max_export_batch_size,
                                  export_timeout_millis=timeout_ms)
        self.timeout = otel.timeout
        self.provider = TracerProvider(resource=Resource(attributes), id_generator=RunIds())
        self.provider.add_span_processor(self.batch)
        self.tracer = self.provider.get_tracer("factline", _version())
        self.redact = redact
        self.content_capture = otel.capture_content

    @classmethod
    def of(cls, otel: Otel, redact: Redactor) -> OtelTracing:
        exporter = ConsoleSpanExporter() if otel.traces_exporter == "console" else otlp_exporter(otel)
        return cls(exporter, otel, redact)

    def new_trace_id(self) -> str | None:
        return trace.format_trace_id(RandomIdGenerator().generate_trace_id())

    @contextmanager
    def _span(self, name: str, kind: SpanKind, attributes: Mapping[str, Any],
              context: Any = None) -> Iterator[OtelSpan]:
        with self.tracer.start_as_current_span(name, context=context, kind=kind, record_exception=False,
                                               set_status_on_exception=False) as span:
            handle = OtelSpan(span, self.redact, self.content_capture)
            handle.set(attributes)
            try:
                yield handle
            except BaseException as exc:  # the type only: an exception's text may hold what must not leave
                handle.fail(exc.__class__.__name__)
                raise

    @contextmanager
    def run(self, trace_id: str | None, attributes: Mapping[str, Any]) -> Iterator[Span]:
        token = _next_trace_id.set(int(trace_id, 16) if trace_id else None)
        try:
            root = trace.set_span_in_context(trace.INVALID_SPAN)  # a run is a root, whatever is current
            with self._span(f"invoke_agent {attributes.get('gen_ai.agent.name', '')}".strip(), SpanKind.INTERNAL,
                            {"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": PROVIDER,
                             "openinference.span.kind": "AGENT", **attributes}, context=root) as span:
                _next_trace_id.reset(token)
                token = None
                yield span
        finally:
            if token is not None:
                _next_trace_id.reset(token)

    @contextmanager
    def chat(self, model: str, attributes: Mapping[str, Any]) -> Iterator[Span]:
        with self._span(f"chat {model}", SpanKind.CLIENT,
                        {"gen_ai.operation.name": "chat", "gen_ai.provider.name": PROVIDER,
                         "gen_ai.request.model": model, "openinference.span.kind": "LLM", **attributes}) as span:
            yield span

    @contextmanager
    def tool(self, name: str, call_id: str | None) -> Iterator[Span]:
        with self._span(f"execute_tool {name}", SpanKind.INTERNAL,
                        {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                         "gen_ai.tool.call.id": call_id, "gen_ai.tool.type": "function",
                         "openinference.span.kind": "TOOL"}) as span:
            yield span

    def current(self) -> Span:
        span = trace.get_current_span()
        if not span.get_span_context().is_valid:
            return super().current()
        return OtelSpan(span, self.redact, self.content_capture)

    def dropped(self) -> int:
        return self.counts.dropped

    def exported(self) -> int:
        return self.counts.exported

    def flush(self, timeout: float | None = None) -> bool:
        """Export what is queued now; False when the collector did not take it within ``timeout``."""
        return self.batch.force_flush(int((self.timeout if timeout is None else timeout) * 1000))

    def close(self) -> None:
        """Flush within the export timeout, then stop; a collector that does not answer is left behind."""
        done = threading.Thread(target=self.provider.shutdown, name="trace-shutdown", daemon=True)
        done.start()
        done.join(self.timeout + 1)
        logger.info("trace.closed", exported=self.counts.exported, dropped=self.counts.dropped)
