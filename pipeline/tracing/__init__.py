"""Traces of runs, in the OpenTelemetry GenAI conventions: off unless OTEL_* settings configure them.

    invoke_agent <pipeline>        one per run: the run is the trace (its id is in the ledger and the logs)
      chat <model>                 one per model request of an agent turn (tokens, finish reason, retries)
      execute_tool <name>          one per tool call the model emitted (outcome, attempts, dedup, shadow)
        chat <model>               a capability's completion (write_draft, humanize)

Guard findings, nudges, retries, escalations, the stop and every other run event the ledger records
(pipeline.ledger.journal), and each fact check (pipeline.ledger.store), are span events on the span current
when they happen. Message, argument, result and article text go into spans only with
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true; every text passes the run's Redactor first, so no
secret reaches a collector.

This module is the seam: ``Tracing`` and ``Span`` here do nothing (tracing off, and the SDK need not be
installed); ``open_tracing`` returns the OpenTelemetry implementation (pipeline.tracing.otel) when the
settings ask for it. A slow or dead collector never holds up a run: spans are exported by a background
thread in batches, the queue is bounded (spans past it are dropped and counted), each export has a timeout.
"""

from __future__ import annotations

from config.deployment import Otel
from config.secrets import Redactor
from pipeline.tracing.base import NO_SPAN, NO_TRACING, Span, Tracing


def open_tracing(otel: Otel, redact: Redactor) -> Tracing:
    """The deployment's tracing: OpenTelemetry when OTEL_* settings configure it, else NO_TRACING."""
    if not otel.tracing_on():
        return NO_TRACING
    from pipeline.tracing.otel import OtelTracing  # the optional extra, checked at start (config.settings)

    return OtelTracing.of(otel, redact)


__all__ = ["NO_SPAN", "NO_TRACING", "Span", "Tracing", "open_tracing"]
