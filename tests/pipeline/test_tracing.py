"""OpenTelemetry traces of runs: the spans a run makes, what they say, what they never say, and backpressure.

The run is real (scripted model over HTTP, the real SDK, the ledger, the local target); the spans are
read from the SDK's in-memory exporter here, and from a real collector in tests/test_tracing_phoenix.py.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from loguru import logger
from pydantic import SecretStr
from sqlalchemy import select
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from capabilities import CATALOG
from config import ConfigError, Settings, load_settings
from config.deployment import DEPLOYMENT_KEYS
from config.secrets import Redactor
from pipeline.ledger.detail import run_detail
from pipeline.ledger.models import FactCheck
from pipeline.metrics import Metrics
from pipeline.runner import RunResult, run_once
from pipeline.runtime import Runtime, open_runtime
from pipeline.tracing import NO_TRACING, open_tracing
from pipeline.tracing.otel import OtelTracing
from pipeline.web import WebServer, build_app, read_only_ledger
from testkit.scripted_model import ScriptedModel, say, script
from tests.pipeline.test_grounded_runs import FABRICATED, SOURCE, grounded_settings, writer_of
from tests.deployments import redeploy

STEPS = list(CATALOG)  # the pipeline in catalog order


@contextmanager
def traced(settings: Settings, exporter: SpanExporter, **overrides: object) -> Iterator[tuple[Runtime, OtelTracing]]:
    """A runtime whose runs are traced into ``exporter`` (settings ``overrides`` on top, the deployment's by
    variable name: ``otel_bsp_max_queue_size``)."""
    settings = redeploy(settings.model_copy(update={k: v for k, v in overrides.items() if k not in DEPLOYMENT_KEYS}),
                        **{k: v for k, v in overrides.items() if k in DEPLOYMENT_KEYS})
    tracing = OtelTracing(exporter, settings.deployment().otel, Redactor.of(settings.deployment(), settings))
    with open_runtime(settings) as rt:
        rt.tracing = tracing
        yield rt, tracing
    tracing.close()


def spans_of(exporter: InMemorySpanExporter, tracing: OtelTracing) -> list[ReadableSpan]:
    tracing.flush(5)
    return list(exporter.get_finished_spans())


def test_a_run_is_one_trace_with_a_span_per_tool_call(settings: Settings) -> None:
    """A successful run: one invoke_agent root with run id, pipeline, model, mode and verdict; one execute_tool
    span per ledger call, with name, call id, outcome and attempts; chat spans with tokens and finish reason."""
    exporter = InMemorySpanExporter()
    with traced(settings, exporter) as (rt, tracing):
        result = run_once(rt)
        with rt.sessions() as s:
            detail = run_detail(s, result.run_id)
        spans = spans_of(exporter, tracing)
    assert result.verdict == "success"
    assert {span.context.trace_id for span in spans} == {int(detail.trace_id, 16)}
    root = next(span for span in spans if span.parent is None)
    assert root.name == "invoke_agent content"
    assert {k: root.attributes[k] for k in ("gen_ai.operation.name", "factline.run.id", "factline.pipeline",
                                             "gen_ai.request.model", "factline.mode", "factline.verdict")} == {
        "gen_ai.operation.name": "invoke_agent", "factline.run.id": result.run_id, "factline.pipeline": "content",
        "gen_ai.request.model": "scripted", "factline.mode": "native", "factline.verdict": "success"}
    tools = sorted((s for s in spans if s.attributes["gen_ai.operation.name"] == "execute_tool"),
                   key=lambda s: s.attributes["factline.call.seq"])
    assert [s.attributes["gen_ai.tool.name"] for s in tools] == [c.name for c in detail.tool_calls] == STEPS
    assert all(s.parent.span_id == root.context.span_id for s in tools)
    assert all(s.attributes["factline.call.outcome"] == "ok" and s.attributes["factline.call.attempts"] == 1
               and s.attributes["factline.call.dedup"] is False and s.attributes["gen_ai.tool.call.id"] for s in tools)
    chats = [s for s in spans if s.attributes["gen_ai.operation.name"] == "chat"]
    agent_turns = [s for s in chats if s.parent.span_id == root.context.span_id]
    completions = [s for s in chats if s.parent.span_id != root.context.span_id]
    assert len(agent_turns) == len(STEPS) and len(completions) == 2  # a turn per call; write_draft and humanize ask too
    assert {s.parent.span_id for s in completions} <= {s.context.span_id for s in tools}
    assert all(s.attributes["gen_ai.usage.input_tokens"] > 0 and s.attributes["gen_ai.response.finish_reasons"]
               for s in chats)
    assert all(s.attributes["factline.retries"] == 0 for s in agent_turns)  # a completion retries as its tool call


def test_no_message_text_leaves_without_the_content_switch(settings: Settings, model: ScriptedModel) -> None:
    """By default no span holds the prompt, the model's text or a tool's arguments; with
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT they are there, with every secret redacted."""
    secret = "sk-live-0123456789abcdef"
    model.policy = script(say(f"my key is {secret}"))
    quiet = InMemorySpanExporter()
    with traced(settings, quiet, openai_api_key=SecretStr(secret)) as (rt, tracing):
        run_once(rt)
        spans = spans_of(quiet, tracing)
    keys = {k for s in spans for k in s.attributes}
    assert not keys & {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments"}
    loud = InMemorySpanExporter()
    model.policy = script(say(f"my key is {secret}"))
    with traced(settings, loud, openai_api_key=SecretStr(secret),
                otel_instrumentation_genai_capture_message_content=True) as (rt, tracing):
        run_once(rt)
        spans = spans_of(loud, tracing)
    texts = " ".join(str(v) for s in spans for v in s.attributes.values())
    assert "gen_ai.input.messages" in {k for s in spans for k in s.attributes}
    assert "my key is [redacted]" in texts and secret not in texts


def test_guard_findings_nudges_and_the_stop_are_span_events(settings: Settings, model: ScriptedModel) -> None:
    """A model that claims a publication it never made: the guard's findings, the nudges and the stop are
    events on the invoke_agent span, and its verdict is hallucinated with an error status."""
    model.policy = script(say("Published at https://blog.example.com/a and registered."),
                          then=lambda request: say("Published at https://blog.example.com/a and registered."))
    exporter = InMemorySpanExporter()
    with traced(settings, exporter) as (rt, tracing):
        result = run_once(rt)
        spans = spans_of(exporter, tracing)
    root = next(span for span in spans if span.parent is None)
    events = [e.name for e in root.events]
    assert result.verdict == "hallucinated"
    assert root.attributes["factline.verdict"] == "hallucinated" and root.attributes["error.type"] == "hallucinated"
    assert "factline.guard.finding" in events and events.count("factline.nudge") == 2
    assert events[-1] == "factline.stop"
    stop = root.events[-1].attributes
    assert (stop["verdict"], stop["reason"]) == ("hallucinated", "nudges_exhausted")
    finding = next(e for e in root.events if e.name == "factline.guard.finding").attributes
    assert finding["backed"] is False and finding["kind"] in ("claim", "ungrounded")


def fabricated_run(db_url: str, model: ScriptedModel, tmp_path: Path, **overrides: object) -> tuple[
        RunResult, list[ReadableSpan], list[tuple[object, ...]]]:
    """A grounded run whose writer keeps a percentage and a person no source holds (tests/pipeline/test_grounded_runs.py):
    its verdict, its spans and the ledger's fact_checks rows (version, round, mode, status, facts, unsupported, kinds)."""
    (tmp_path / "lyon.md").write_text(SOURCE, encoding="utf-8")
    model.writer = writer_of(FABRICATED)
    exporter = InMemorySpanExporter()
    with traced(grounded_settings(db_url, model, tmp_path, "lyon.md"), exporter, **overrides) as (rt, tracing):
        result = run_once(rt)
        spans = spans_of(exporter, tracing)
        with rt.sessions() as s:
            checks = {c.id: c for c in s.scalars(select(FactCheck).where(FactCheck.run_id == result.run_id))}
            detail = run_detail(s, result.run_id)
    kinds = [[f.kind for f in c.facts if not f.supported] for c in detail.fact_checks]
    rows = [(c.draft_version_id, c.round, c.mode, c.status, c.facts, c.unsupported)
            for _, c in sorted(checks.items())]
    return result, spans, [(*row, k) for row, k in zip(rows, kinds, strict=True)]


def fact_check_span(spans: list[ReadableSpan]) -> ReadableSpan:
    (span,) = [s for s in spans if s.name == "execute_tool fact_check"]
    return span


def test_each_fact_check_is_an_event_of_its_tool_call_with_the_ledgers_counts(db_url: str, model: ScriptedModel,
                                                                               tmp_path: Path) -> None:
    """Every check the ledger records (the first and each revision's) is a factline.fact_check event on the fact_check
    call's execute_tool span, with the fact_checks row's version, round, mode, status and counts and the missing
    facts' kinds; without the content switch no event holds a fact's text."""
    result, spans, rows = fabricated_run(db_url, model, tmp_path)
    assert result.stop_reason == "fact_check" and len(rows) == 3
    events = [e for e in fact_check_span(spans).events if e.name.startswith("factline.fact_check")]
    assert [e.name for e in events] == ["factline.fact_check"] * 3
    seen = [(e.attributes["draft_version_id"], e.attributes["round"], e.attributes["mode"], e.attributes["status"],
             e.attributes["facts"], e.attributes["unsupported"], list(e.attributes["unsupported_kinds"]))
            for e in events]
    assert seen == rows
    assert [(row[3], row[5], sorted(row[6])) for row in rows] == [("failed", 2, ["name", "percent"])] * 3
    texts = " ".join(str(v) for s in spans for e in s.events for v in e.attributes.values()
                     if e.name.startswith("factline.fact_check"))
    assert "73%" not in texts and "Jane Smith" not in texts


def test_with_content_capture_each_unsupported_fact_is_an_event_with_its_text(db_url: str, model: ScriptedModel,
                                                                              tmp_path: Path) -> None:
    """OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT on: each fact a check found in no source is a
    factline.fact_check.unsupported event with the fact as the article writes it and its sentence."""
    _, spans, rows = fabricated_run(db_url, model, tmp_path, otel_instrumentation_genai_capture_message_content=True)
    unsupported = [e.attributes for e in fact_check_span(spans).events if e.name == "factline.fact_check.unsupported"]
    assert len(unsupported) == sum(row[5] for row in rows) == 6  # two facts in each of three rounds
    first = [(a["kind"], a["fact"]) for a in unsupported if a["round"] == 0]
    assert sorted(first) == [("name", "Jane Smith"), ("percent", "73%")]
    assert all("73%" in a["sentence"] and "Jane Smith" in a["sentence"] for a in unsupported)


def everything_written(spans: Sequence[ReadableSpan]) -> str:
    """Every attribute, event attribute and status description of ``spans``, as one text."""
    parts = [str(v) for s in spans for v in s.attributes.values()]
    parts += [str(v) for s in spans for e in s.events for v in e.attributes.values()]
    parts += [s.status.description or "" for s in spans]
    return " ".join(parts)


def test_without_content_capture_no_span_quotes_the_facts_the_check_refused(db_url: str, model: ScriptedModel,
                                                                            tmp_path: Path) -> None:
    """The stop's detail and the failed call's and run's error status say "2 facts not in the sources: ..." with the
    quoted article words elided unless the content switch is on; with it, the detail names them."""
    _, spans, _ = fabricated_run(db_url, model, tmp_path)
    written = everything_written(spans)
    assert "facts not in the sources" in written
    assert "73%" not in written and "Jane Smith" not in written
    (tmp_path / "capture").mkdir()
    _, captured, _ = fabricated_run(db_url, model, tmp_path / "capture",
                                    otel_instrumentation_genai_capture_message_content=True)
    stops = [e.attributes["detail"] for s in captured for e in s.events if e.name == "factline.stop"]
    assert stops and "'73%'" in stops[0] and "'Jane Smith'" in stops[0]


class Failing(SpanExporter):
    """A collector that refuses every batch."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.FAILURE


class Stuck(SpanExporter):
    """A collector that takes a batch and never answers (until released)."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.release.wait(30)
        return SpanExportResult.FAILURE


def test_a_refusing_collector_fails_no_run_and_its_losses_are_counted(settings: Settings) -> None:
    """Every export refused: the run still succeeds, and every span it made is counted dropped in /metrics."""
    with traced(settings, Failing()) as (rt, tracing):
        result = run_once(rt)
        tracing.flush(5)
        metrics = Metrics()
        metrics.watch_spans(tracing)
        page = metrics.render().decode()
    assert result.verdict == "success"
    assert tracing.exported() == 0 and tracing.dropped() >= 15
    assert f"factline_trace_spans_dropped_total {float(tracing.dropped())}" in page


def test_a_full_queue_drops_new_spans_without_waiting(settings: Settings) -> None:
    """With the collector stuck and a queue of 4, the run goes on at its pace: spans past the queue are dropped
    at once and counted, and memory holds at most the queue."""
    stuck = Stuck()
    with traced(settings, stuck, otel_bsp_max_queue_size=4, otel_bsp_schedule_delay=1) as (rt, tracing):
        result = run_once(rt)
        assert result.verdict == "success"
        assert tracing.counts.queued <= 4 and tracing.dropped() >= 10
        stuck.release.set()


def test_tracing_is_off_unless_otel_settings_ask(settings: Settings) -> None:
    """No OTEL_* setting: no tracing at all (and no trace id in the ledger); an endpoint turns it on; the
    standard off switches win."""
    assert open_tracing(settings.deployment().otel, Redactor.of(settings.deployment(), settings)) is NO_TRACING
    with open_runtime(settings) as rt:
        result = run_once(rt)
        with rt.sessions() as s:
            assert run_detail(s, result.run_id).trace_id is None
    on = settings.deployment().otel.model_copy(update={"endpoint": "http://127.0.0.1:1"})
    assert on.tracing_on()
    assert not on.model_copy(update={"sdk_disabled": True}).tracing_on()
    assert not on.model_copy(update={"traces_exporter": "none"}).tracing_on()


def test_bad_otel_settings_stop_the_start_with_one_line_each() -> None:
    """A malformed header list or endpoint is refused at start, naming the variable, never quoting a header."""
    with pytest.raises(ConfigError) as caught:
        load_settings(otel_exporter_otlp_headers="Authorization Bearer s3cr3t-token",
                      otel_exporter_otlp_endpoint="collector:4318")
    problems = caught.value.problems
    assert any(p.startswith("invalid setting OTEL_EXPORTER_OTLP_HEADERS: must be key=value") for p in problems)
    assert any(p.startswith("invalid setting OTEL_EXPORTER_OTLP_ENDPOINT") for p in problems)
    assert "s3cr3t" not in " ".join(problems)


def test_the_trace_id_is_in_the_logs_and_on_the_run_page(settings: Settings) -> None:
    """Every log line of a traced run carries its trace id, and the dashboard's run page shows it."""
    lines: list[dict[str, object]] = []
    sink = logger.add(lambda message: lines.append(dict(message.record["extra"])), level="INFO")
    try:
        with traced(settings, InMemorySpanExporter()) as (rt, _):
            result = run_once(rt)
            with rt.sessions() as s:
                trace_id = run_detail(s, result.run_id).trace_id
    finally:
        logger.remove(sink)
    run_lines = [extra for extra in lines if extra.get("run_id") == result.run_id]
    assert run_lines and all(extra.get("trace_id") == trace_id for extra in run_lines)
    with WebServer(build_app(settings.deployment(), settings, read_only_ledger(settings.deployment().ledger.url)), "127.0.0.1", 0) as server:
        page = httpx.get(f"{server.url}/runs/{result.run_id}").text
    assert f'<code class="trace-id">{trace_id}</code>' in page
