"""The tracing seam: ``Span`` and ``Tracing`` that do nothing (tracing off); pipeline.tracing.otel fills them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any


class Span:
    """What a run writes on one span; this one (tracing off) writes nothing."""

    trace_id: str | None = None

    def set(self, attributes: Mapping[str, Any]) -> None:
        """Attributes (None values are left out; other non-scalars are written as JSON)."""

    def content(self, attributes: Mapping[str, Any]) -> None:
        """Attributes that hold message or article text: written only when content capture is on."""

    def event(self, name: str, attributes: Mapping[str, Any]) -> None:
        """A span event (a guard finding, a nudge, a retry, the stop)."""

    def fail(self, error_type: str, description: str = "") -> None:
        """Mark the span as failed: ``error.type`` and an error status."""


NO_SPAN = Span()


class Tracing:
    """Spans of runs; this one (tracing off) makes none, at no cost."""

    content_capture = False

    def new_trace_id(self) -> str | None:
        """A fresh trace id (32 hex digits) for a run about to open; None when tracing is off."""
        return None

    @contextmanager
    def run(self, trace_id: str | None, attributes: Mapping[str, Any]) -> Iterator[Span]:
        """The invoke_agent span of a run, in the trace ``trace_id``."""
        yield NO_SPAN

    @contextmanager
    def chat(self, model: str, attributes: Mapping[str, Any]) -> Iterator[Span]:
        """A chat span: one request to the model (with its retries)."""
        yield NO_SPAN

    @contextmanager
    def tool(self, name: str, call_id: str | None) -> Iterator[Span]:
        """An execute_tool span: one tool call, whatever its fate."""
        yield NO_SPAN

    def current(self) -> Span:
        """The span current in this thread (where an event of the run belongs)."""
        return NO_SPAN

    def dropped(self) -> int:
        """Spans dropped so far: the queue was full, or the collector refused or did not answer."""
        return 0

    def exported(self) -> int:
        """Spans the collector accepted so far."""
        return 0

    def close(self) -> None:
        """Export what is queued, within the export timeout; then stop."""


NO_TRACING = Tracing()
