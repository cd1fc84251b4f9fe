"""The LLM endpoint goes through the same state machine: our retries (the SDK's are off), auth stops the run."""

from __future__ import annotations

import pytest

from capabilities import CATALOG
from config import Settings
from pipeline.ledger.detail import run_detail
from pipeline.runner import run_once
from pipeline.runtime import open_runtime
from tests.conftest import FakeSleep
from testkit.scripted_model import Request, ScriptedModel, default_writer, fail, failing, happy_path, script


def _run(settings: Settings, fake_sleep: FakeSleep, **overrides: object):  # type: ignore[no-untyped-def]
    with open_runtime(settings.model_copy(update=overrides)) as rt:
        result = run_once(rt, sleep=fake_sleep)
        with rt.sessions() as s:
            return result, run_detail(s, result.run_id)


def test_endpoint_503_is_retried_by_factline_honouring_retry_after(
    settings: Settings, model: ScriptedModel, fake_sleep: FakeSleep
) -> None:
    """503 (Retry-After 1) then answers: one wait of 1 s, one extra request, a recorded llm_retry, success."""
    model.policy = failing(1, fail(503, retry_after="1"), then=happy_path)
    calls_before = len(model.requests)
    result, detail = _run(settings, fake_sleep)
    assert result.verdict == "success"
    assert fake_sleep.waits[0] == 1.0
    assert [e.kind for e in detail.events].count("llm_retry") == 1
    agent_turns = [r for r in model.requests[calls_before:] if "tools" in r]
    assert len(agent_turns) == len(CATALOG) + 1  # a turn per step (the run ends at the report) and the refused attempt


def test_endpoint_429_past_the_cap_ends_unavailable(settings: Settings, model: ScriptedModel, fake_sleep: FakeSleep) -> None:
    """429 on every attempt: exactly RETRY_MAX_ATTEMPTS requests, then verdict unavailable (exit 4)."""
    model.policy = script(then=lambda request: fail(429))
    result, detail = _run(settings, fake_sleep, retry_max_attempts=3)
    assert (result.verdict, result.exit_code) == ("unavailable", 4)
    assert len(model.requests) == 3 and len(fake_sleep.waits) == 2


def test_endpoint_401_stops_at_once_with_exit_6(settings: Settings, model: ScriptedModel, fake_sleep: FakeSleep) -> None:
    """401 from the endpoint: no retry, verdict auth_failed, exit 6."""
    model.policy = script(then=lambda request: fail(401))
    result, _ = _run(settings, fake_sleep)
    assert (result.verdict, result.exit_code) == ("auth_failed", 6)
    assert len(model.requests) == 1 and fake_sleep.waits == []


def test_token_budget_stops_the_run(settings: Settings, model: ScriptedModel, fake_sleep: FakeSleep) -> None:
    """Each scripted turn reports 70 tokens; a 100-token budget stops before the third turn (exit 5)."""
    result, detail = _run(settings, fake_sleep, run_max_tokens=100)
    assert (result.verdict, result.exit_code, result.stop_reason) == ("budget", 5, "max_tokens")
    assert detail.tokens >= 100


def test_a_slow_writer_that_keeps_streaming_is_not_cut_off_by_the_llm_timeout(
    settings: Settings, model: ScriptedModel, fake_sleep: FakeSleep
) -> None:
    """Each draft arrives in pieces 0.15 s apart, seconds in all, with LLM_TIMEOUT_SECONDS=1: the run succeeds."""
    model.text_gap, model.piece_words = 0.15, 6  # 6 words a piece: fewer gaps, still well over 1 s a draft
    result, detail = _run(settings, fake_sleep, llm_timeout_seconds=1.0)
    assert result.verdict == "success"
    plain = [r for r in model.requests if "tools" not in r and "response_format" not in r]
    assert plain and all(r.get("stream") for r in plain)
    draft = default_writer(Request(plain[0]))
    assert len(draft.split()) // model.piece_words * model.text_gap > 1.5  # its pieces took longer than 1 s in all
    assert [c.outcome for c in detail.tool_calls if c.name == "write_draft"] == ["ok"]


def test_a_writer_silent_past_the_llm_timeout_is_still_cut_off(
    settings: Settings, model: ScriptedModel, fake_sleep: FakeSleep
) -> None:
    """No byte of the draft for 1.5 s with LLM_TIMEOUT_SECONDS=1: write_draft times out and the run publishes nothing."""
    model.text_silence = 1.5
    result, detail = _run(settings, fake_sleep, llm_timeout_seconds=1.0)
    assert result.verdict != "success"
    drafts = [c for c in detail.tool_calls if c.name == "write_draft"]
    assert drafts and all(c.outcome != "ok" for c in drafts)
    assert "timed out" in (drafts[0].detail or "") and drafts[0].attempts == settings.retry_max_attempts
    assert detail.publications == ()


def test_an_endpoint_that_ignores_stream_and_answers_one_completion_still_writes_the_draft(
    settings: Settings, model: ScriptedModel, fake_sleep: FakeSleep
) -> None:
    """A server that answers a stream request with one JSON completion: the draft is read from it, the run succeeds."""
    model.streams = False
    result, _ = _run(settings, fake_sleep)
    assert result.verdict == "success"


@pytest.mark.parametrize("mode", ["native", "constrained"])
def test_requests_are_what_the_sdks_create_would_send(settings: Settings, model: ScriptedModel, mode: str) -> None:
    """Every agent-turn request of a run (the tool schemas, the tool-call history) comes out of the SDK's own body
    transform unchanged: posting it directly (pipeline.model.post_chat) sends what create() would."""
    from openai._utils._transform import maybe_transform
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    with open_runtime(settings.model_copy(update={"tool_call_mode": mode})) as rt:
        assert run_once(rt).verdict == "success"
    turns = [r for r in model.requests if "tools" in r or "response_format" in r]
    assert len(turns) >= len(CATALOG)  # a turn per step at least
    for body in turns:
        assert maybe_transform(body, CompletionCreateParamsNonStreaming) == body
