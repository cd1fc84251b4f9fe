"""The gateway, one test per branch: whitelist, schema, validation, retries, escalation, auth, budgets.

Platform faults come from httpx.MockTransport behind a small capability that calls a URL;
waits are counted with a fake clock, never measured.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
from sqlalchemy import select

from capabilities import CATALOG
from capabilities.base import Capability, CapabilityContext, Prepared, StrictArgs, ToolResult
from capabilities.httperrors import HTTPX_ERRORS, raise_for_status, request_error
from config.secrets import Redactor
from pipeline.outcome import StopRun
from pipeline.gateway.budget import RunBudget, RunUsage
from pipeline.gateway.dispatch import Gateway
from pipeline.retry import RetryPolicy
from pipeline.ledger import runs as ledger_runs
from pipeline.ledger.journal import RunJournal
from pipeline.ledger.models import ToolCall
from pipeline.ledger.store import LedgerStore
from pipeline.turns import ToolCallRequest
from pipeline.ledger.db import open_ledger
from tests.conftest import FakeSleep, make_settings


class FetchArgs(StrictArgs):
    path: str


class Fetch(Capability[FetchArgs, Prepared[FetchArgs]]):
    """A capability that GETs a path on the platform: the edge where faults are injected."""

    name = "fetch"
    description = "fetch a path"
    Args = FetchArgs
    probe_task = "Fetch the page."
    lookalike = "fetch_page"

    def prepare(self, ctx: CapabilityContext, args: FetchArgs) -> Prepared[FetchArgs]:
        return Prepared(args=args)

    def execute(self, ctx: CapabilityContext, prepared: Prepared[FetchArgs]) -> ToolResult:
        try:
            response = ctx.http.get(f"http://platform.test/{prepared.args.path}")
        except HTTPX_ERRORS as exc:
            raise request_error(exc, "fetch") from exc
        raise_for_status(response, "fetch")
        return ToolResult({"body": response.text}, "fetched")


Responder = Callable[[httpx.Request], httpx.Response]


@pytest.fixture
def make_gateway(db_url: str, tmp_path: Path, fake_sleep: FakeSleep) -> Iterator[Callable[..., tuple[Gateway, list]]]:
    clients: list[httpx.Client] = []
    ledgers: dict[str, object] = {}

    def build(responder: Responder | None = None, **overrides: object) -> tuple[Gateway, list]:
        settings = make_settings(db_url, "http://127.0.0.1:9/v1", tmp_path, **overrides)
        sessions = ledgers.setdefault(settings.deployment().ledger.url, None) or open_ledger(settings.deployment().ledger.url)
        ledgers[settings.deployment().ledger.url] = sessions
        with sessions.begin() as s:
            run_id = ledger_runs.open_run(s, trigger="manual")
        seen: list[httpx.Request] = []

        def handler(request: httpx.Request) -> httpx.Response:
            seen.append(request)
            return responder(request) if responder else httpx.Response(200, text="ok")

        http = httpx.Client(transport=httpx.MockTransport(handler))
        clients.append(http)
        ctx = CapabilityContext(run_id=run_id, settings=settings, store=LedgerStore(sessions, run_id), http=http,
                                text_model=None, target=None)  # type: ignore[arg-type]
        catalog = {**CATALOG, "fetch": Fetch()}
        policy = RetryPolicy(settings.retry_max_attempts, 0.5, settings.retry_max_wait)
        gateway = Gateway(catalog, ctx, RunJournal(sessions, run_id, Redactor.of(settings.deployment(), settings)), RunUsage(RunBudget.from_settings(settings)),
                          policy, sleep=fake_sleep)
        return gateway, seen

    yield build
    for client in clients:
        client.close()


def dispatch(gateway: Gateway, name: str, arguments: object) -> dict:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    outcome = gateway.dispatch(1, ToolCallRequest("c1", name, raw))
    return {"status": outcome.status, **json.loads(outcome.content)}


def rows(gateway: Gateway) -> list[ToolCall]:
    with gateway.journal.sessions() as s:
        return list(s.scalars(select(ToolCall).where(ToolCall.run_id == gateway.journal.run_id).order_by(ToolCall.seq)))


def test_unknown_tool_is_rejected_with_the_available_names(make_gateway) -> None:
    """A name outside the catalog is not executed; the model gets unknown_tool and the exact names."""
    gateway, seen = make_gateway()
    reply = dispatch(gateway, "delete_everything", {})
    assert reply["error"] == "unknown_tool" and "publish" in reply["available"]
    assert seen == [] and rows(gateway)[0].reason == "unknown_tool"


def test_lookalike_is_recorded_as_shadow_and_never_routed(make_gateway) -> None:
    """publish_article is rejected like any unknown name and recorded as a shadow of publish."""
    gateway, _ = make_gateway()
    reply = dispatch(gateway, "publish_article", {"version_id": 1})
    assert reply["error"] == "unknown_tool"
    [row] = rows(gateway)
    assert (row.outcome, row.reason, row.shadow_of) == ("rejected", "shadow", "publish")


def test_unknown_names_share_one_run_wide_limit(make_gateway) -> None:
    """Three different invented names use one budget; the fourth stops the run."""
    gateway, _ = make_gateway(run_max_unknown_tools=3)
    for name in ("a_tool", "b_tool", "c_tool"):
        dispatch(gateway, name, {})
    with pytest.raises(StopRun) as stop:
        dispatch(gateway, "d_tool", {})
    assert (stop.value.verdict, stop.value.reason) == ("budget", "unknown_tool_limit")


@pytest.mark.parametrize("arguments", ['{"path": 3}', '{"path": "x", "extra": 1}', "{}", "not json", "[1]"])
def test_schema_invalid_call_is_not_executed(make_gateway, arguments: str) -> None:
    """Wrong type, extra key, missing key or non-JSON: error schema back to the model, nothing executed."""
    gateway, seen = make_gateway()
    reply = dispatch(gateway, "fetch", arguments)
    assert reply["error"] == "schema" and seen == []


def test_business_invalid_id_is_a_hallucinated_argument(make_gateway) -> None:
    """A schema-valid draft id that this run never made is rejected as a hallucinated argument."""
    gateway, _ = make_gateway()
    reply = dispatch(gateway, "humanize", {"draft_id": 4242})
    assert reply["error"] == "validation"
    assert rows(gateway)[0].reason == "hallucinated_argument"


def test_retryable_faults_back_off_exponentially_then_succeed(make_gateway, fake_sleep: FakeSleep) -> None:
    """503, 503, 200: two waits of base*2^n + jitter, three attempts recorded on one ledger row."""
    answers = iter([httpx.Response(503), httpx.Response(502), httpx.Response(200, text="fine")])
    gateway, seen = make_gateway(lambda r: next(answers))
    reply = dispatch(gateway, "fetch", {"path": "a"})
    assert reply["status"] == "ok" and len(seen) == 3
    assert len(fake_sleep.waits) == 2
    assert 0.5 <= fake_sleep.waits[0] <= 1.0 and 1.0 <= fake_sleep.waits[1] <= 1.5
    assert rows(gateway)[0].attempts == 3


def test_retry_after_is_honoured_in_seconds_and_as_a_date_up_to_the_cap(make_gateway, fake_sleep: FakeSleep) -> None:
    """Retry-After 2 waits 2 s; an HTTP date a minute ahead waits the max (5 s)."""
    date = email.utils.formatdate(time.time() + 60, usegmt=True)
    answers = iter([httpx.Response(429, headers={"Retry-After": "2"}),
                    httpx.Response(503, headers={"Retry-After": date}), httpx.Response(200)])
    gateway, _ = make_gateway(lambda r: next(answers), retry_max_wait=5)
    assert dispatch(gateway, "fetch", {"path": "a"})["status"] == "ok"
    assert fake_sleep.waits == [2.0, 5.0]


@pytest.mark.parametrize("value", ["²", "1.5", "-3", "soon"])
def test_unreadable_retry_after_falls_back_to_backoff(make_gateway, fake_sleep: FakeSleep, value: str) -> None:
    """A Retry-After that is not ASCII digits or a date (e.g. "²") is ignored: the normal backoff, no crash."""
    answers = iter([httpx.Response(503, headers={"Retry-After": value.encode()}), httpx.Response(200)])
    gateway, _ = make_gateway(lambda r: next(answers))
    assert dispatch(gateway, "fetch", {"path": "a"})["status"] == "ok"
    assert len(fake_sleep.waits) == 1 and 0.5 <= fake_sleep.waits[0] <= 1.0


def test_timeouts_past_the_cap_escalate_as_unavailable_then_stop(make_gateway, fake_sleep: FakeSleep) -> None:
    """Three timeouts: error unavailable to the model; calling it again stops the run."""
    def timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    gateway, seen = make_gateway(timeout)
    reply = dispatch(gateway, "fetch", {"path": "a"})
    assert reply["error"] == "unavailable" and len(seen) == 3 and len(fake_sleep.waits) == 2
    assert rows(gateway)[0].reason == "retry_exhausted"
    with pytest.raises(StopRun) as stop:
        dispatch(gateway, "fetch", {"path": "b"})
    assert stop.value.verdict == "unavailable" and len(seen) == 3


@pytest.mark.parametrize("status", [404, 409, 501, 505])
def test_not_retryable_status_fails_without_retry(make_gateway, fake_sleep: FakeSleep, status: int) -> None:
    """404, 409, 501 and 505 are not retried: one request, one attempt on the ledger row."""
    gateway, seen = make_gateway(lambda r: httpx.Response(status))
    assert dispatch(gateway, "fetch", {"path": "a"})["error"] == "failed"
    assert len(seen) == 1 and fake_sleep.waits == []
    assert rows(gateway)[0].attempts == 1


@pytest.mark.parametrize("status", [500, 507, 520, 599])
def test_origin_and_proxy_5xx_are_retried(make_gateway, fake_sleep: FakeSleep, status: int) -> None:
    """Any 5xx but 501/505 (a proxy's 520-527 and 598/599 too) is transient: one wait, then the retry succeeds."""
    answers = iter([httpx.Response(status), httpx.Response(200, text="fine")])
    gateway, seen = make_gateway(lambda r: next(answers))
    assert dispatch(gateway, "fetch", {"path": "a"})["status"] == "ok"
    assert len(seen) == 2 and len(fake_sleep.waits) == 1 and rows(gateway)[0].attempts == 2


def test_argument_errors_get_one_correction_then_fail(make_gateway) -> None:
    """422 goes back once as 'arguments' with a hint; the second 422 is final."""
    gateway, seen = make_gateway(lambda r: httpx.Response(422, text="bad field"))
    first = dispatch(gateway, "fetch", {"path": "a"})
    second = dispatch(gateway, "fetch", {"path": "b"})
    assert first["error"] == "arguments" and "hint" in first
    assert second["error"] == "failed" and len(seen) == 2


@pytest.mark.parametrize("status", [401, 403])
def test_auth_failure_stops_at_once_without_retry(make_gateway, fake_sleep: FakeSleep, status: int) -> None:
    """401/403: StopRun auth_failed after one request, and the ledger row says one attempt."""
    gateway, seen = make_gateway(lambda r: httpx.Response(status))
    with pytest.raises(StopRun) as stop:
        dispatch(gateway, "fetch", {"path": "a"})
    assert stop.value.verdict == "auth_failed" and len(seen) == 1 and fake_sleep.waits == []
    assert rows(gateway)[0].attempts == 1


def test_identical_call_is_answered_with_the_earlier_result_not_executed(make_gateway) -> None:
    """Same name and canonical arguments: a dedup hit answered with the first call's result, no second request."""
    gateway, seen = make_gateway()
    first = dispatch(gateway, "fetch", {"path": "a"})
    reply = dispatch(gateway, "fetch", '{ "path" : "a" }')
    assert reply == {**first, "status": "dedup"} and len(seen) == 1
    assert [r.outcome for r in rows(gateway)] == ["ok", "dedup"]


def test_repeating_call_sequence_stops_as_a_loop(make_gateway) -> None:
    """A, B, A, B, A, B within the window stops the run with verdict loop."""
    gateway, _ = make_gateway(run_loop_window=6, run_max_tool_calls=50)
    with pytest.raises(StopRun) as stop:
        for _ in range(3):
            dispatch(gateway, "fetch", {"path": "a"})
            dispatch(gateway, "fetch", {"path": "b"})
    assert stop.value.verdict == "loop"


def test_call_budget_tells_the_model_to_finish_then_stops(make_gateway) -> None:
    """The last call within budget carries a finish notice; the next one stops with verdict budget."""
    gateway, _ = make_gateway(run_max_tool_calls=2)
    dispatch(gateway, "fetch", {"path": "a"})
    assert "notice" in dispatch(gateway, "fetch", {"path": "b"})
    with pytest.raises(StopRun) as stop:
        dispatch(gateway, "fetch", {"path": "c"})
    assert (stop.value.verdict, stop.value.reason) == ("budget", "max_tool_calls")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@hsettings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(["fetch", "publish", "register", "write_draft", "fetch_x"]) | st.text(max_size=30),
       arguments=json_values.map(json.dumps) | st.text(max_size=40))
def test_arbitrary_names_and_arguments_never_crash_or_execute_invalid_calls(make_gateway, name: str, arguments: str) -> None:
    """Any name and any JSON: the gateway answers with a structured reply; invalid calls never reach the platform."""
    gateway, seen = make_gateway(run_max_unknown_tools=1000, run_max_tool_calls=10_000, run_loop_window=1000)
    try:
        reply = dispatch(gateway, name, arguments)
    except StopRun as stop:
        assert stop.verdict in {"budget", "loop", "unavailable"}
        return
    valid = name == "fetch" and _valid_fetch(arguments)
    assert (len(seen) == 1) == valid
    assert reply["status"] == "ok" if valid else "error" in reply


def _valid_fetch(arguments: str) -> bool:
    try:
        data = json.loads(arguments)
    except ValueError:
        return False
    return isinstance(data, dict) and set(data) == {"path"} and isinstance(data["path"], str)
