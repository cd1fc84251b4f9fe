"""factline's traces in a real trace store: Arize Phoenix from PyPI (``phoenix serve`` on 127.0.0.1), read
back through Phoenix's own REST API; and a collector that hangs mid-run neither slows nor fails the run.

Phoenix lives in .venv-phoenix (``make phoenix``; testkit.phoenix says why). Without it these tests FAIL
with that command; FACTLINE_SKIP_PHOENIX=1 switches them off.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from capabilities import CATALOG
from config import Settings
from pipeline.ledger.detail import run_detail
from pipeline.metrics import Metrics
from pipeline.runner import RunResult, run_once
from pipeline.runtime import open_runtime
from testkit.phoenix import PHOENIX, Phoenix, phoenix_program
from testkit.scripted_model import Reply, Request, ScriptedModel, say, script, step_call
from tests.conftest import make_settings

PROJECT = "factline-test"
STEPS = tuple(CATALOG)  # the pipeline in catalog order
FINAL = "Published and registered; the report is done."


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    if os.environ.get("FACTLINE_SKIP_PHOENIX") == "1":
        pytest.skip("FACTLINE_SKIP_PHOENIX=1: the Phoenix tests are switched off")
    if phoenix_program() is None:
        pytest.fail(f"no Phoenix at {PHOENIX}: `make phoenix` (make test does), or FACTLINE_SKIP_PHOENIX=1",
                    pytrace=False)
    with Phoenix(tmp_path_factory.mktemp("phoenix")) as server:
        yield server


def traced_settings(model: ScriptedModel, phoenix: Phoenix, tmp_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {"otel_exporter_otlp_endpoint": phoenix.otlp_endpoint, "otel_bsp_schedule_delay": 200,
                                 "otel_resource_attributes": f"openinference.project.name={PROJECT}", **overrides}
    return make_settings(f"sqlite:///{tmp_path}/ledger.db", model.base_url, tmp_path, **values)


def test_phoenix_holds_the_run_with_a_span_per_tool_call(phoenix: Phoenix, model: ScriptedModel,
                                                          tmp_path: Path) -> None:
    """Phoenix's API gives back the run's trace: the invoke_agent root with the verdict and the guard's findings
    (a false 'published' first, nudged; the true one with the report call, backed), one execute_tool span per
    ledger call with its call id."""
    model.policy = script(say("The article is already published."), *[step_call(s) for s in STEPS[:-1]],
                          Reply(text=FINAL, calls=step_call("report").calls))
    with open_runtime(traced_settings(model, phoenix, tmp_path)) as rt:
        result = run_once(rt)
        assert rt.tracing.flush(10)
        with rt.sessions() as s:
            detail = run_detail(s, result.run_id)
    assert result.verdict == "success" and detail.trace_id
    def arrived(spans: list[dict]) -> bool:  # the root and every tool call's span
        return any(s["parent_id"] is None for s in spans) and len(
            [s for s in spans if s["attributes"].get("gen_ai.operation.name") == "execute_tool"]) == len(detail.tool_calls)

    spans = phoenix.spans(detail.trace_id, PROJECT, until=arrived)
    root = next(s for s in spans if s["parent_id"] is None)
    assert (root["name"], root["attributes"]["factline.run.id"], root["attributes"]["factline.verdict"]) == (
        "invoke_agent content", result.run_id, "success")
    findings = [e["attributes"] for e in root["events"] if e["name"] == "factline.guard.finding"]
    assert {(f["capability"], f["backed"]) for f in findings} >= {("publish", False), ("publish", True),
                                                                   ("register", True)}
    assert [e["attributes"]["kind"] for e in root["events"] if e["name"] == "factline.nudge"] == ["hallucination"]
    tools = [s for s in spans if s["attributes"].get("gen_ai.operation.name") == "execute_tool"]
    assert sorted((s["attributes"]["factline.call.seq"], s["attributes"]["gen_ai.tool.name"]) for s in tools) == [
        (c.seq, c.name) for c in detail.tool_calls]
    assert all(s["parent_id"] == root["context"]["span_id"] and s["span_kind"] == "TOOL" for s in tools)
    assert len({s["attributes"]["gen_ai.tool.call.id"] for s in tools}) == len(tools)  # the model's own ids


def _timed_run(settings: Settings, model: ScriptedModel, policy) -> tuple[RunResult, float, object]:  # type: ignore[no-untyped-def]
    model.policy = policy
    with open_runtime(settings) as rt:
        started = time.monotonic()
        result = run_once(rt)
        seconds = time.monotonic() - started
        return result, seconds, rt.tracing


def test_a_collector_that_hangs_mid_run_costs_the_run_nothing(phoenix: Phoenix, model: ScriptedModel,
                                                               tmp_path: Path) -> None:
    """Phoenix frozen (SIGSTOP) at the third turn: the run succeeds in the time of a run with Phoenix up (within
    noise), and the spans the hung exports lost are counted dropped in /metrics."""
    settings = traced_settings(model, phoenix, tmp_path, otel_exporter_otlp_timeout=1.0, otel_bsp_schedule_delay=10)
    happy = script(*[step_call(s) for s in STEPS], say(FINAL))
    baseline = max(_timed_run(settings, model, happy)[1] for _ in range(3))

    def freeze_then_humanize(request: Request) -> Reply:
        phoenix.freeze()
        return step_call("humanize")

    frozen = script(step_call("pick_topic"), step_call("write_draft"), freeze_then_humanize,
                    *[step_call(s) for s in STEPS[3:]], say(FINAL))
    model.policy = frozen
    with open_runtime(settings) as rt:
        started = time.monotonic()
        result = run_once(rt)
        seconds = time.monotonic() - started
        rt.tracing.flush(3)  # the hung export times out (1 s) and its spans are lost
        metrics = Metrics()
        metrics.watch_spans(rt.tracing)
        page = metrics.render().decode()
        dropped = rt.tracing.dropped()
    print(f"run with Phoenix up: {baseline:.3f} s (slowest of 3); with Phoenix frozen mid-run: {seconds:.3f} s; "
          f"{dropped} spans dropped")
    assert result.verdict == "success"
    assert seconds < 2 * baseline + 1.0  # no export is waited for: the run's own time, with room for a busy machine
    assert dropped > 0 and f"factline_trace_spans_dropped_total {float(dropped)}" in page
