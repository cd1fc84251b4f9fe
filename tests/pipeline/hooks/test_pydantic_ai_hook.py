"""factline's claim check inside a real Pydantic AI agent, against the scripted OpenAI-protocol model on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra: pip install -e '.[pydantic-ai]'")

from pydantic_ai import Agent, ModelRetry  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402

from pipeline.guard import AgentHallucinationError  # noqa: E402
from pipeline.hooks.pydanticai import ClaimCheck  # noqa: E402
from testkit.scripted_model import ScriptedModel, call, say, script  # noqa: E402

CLAIM = "Your reservation ZFA04Y has been successfully cancelled."
CANCEL = call("cancel_reservation", {"reservation_id": "ZFA04Y"})


def in_thread(run: Callable[..., Any], *args: Any) -> Any:
    """``Agent.run_sync`` in a thread of its own: the suite's session-wide browser (Playwright's sync API) keeps
    an asyncio loop running in the main thread."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run, *args).result()


def airline_agent(model: ScriptedModel, executed: list[str], refuse: bool = False) -> Agent[None, str]:
    provider = OpenAIProvider(base_url=model.base_url, api_key="test")
    agent: Agent[None, str] = Agent(OpenAIChatModel("scripted", provider=provider), name="airline",
                                    instructions="You are an airline agent.", retries=3)

    @agent.tool_plain
    def cancel_reservation(reservation_id: str) -> str:
        """Cancel the whole reservation."""
        if refuse:
            raise ModelRetry(f"reservation {reservation_id} is not cancellable")
        executed.append(reservation_id)
        return json.dumps({"reservation_id": reservation_id, "status": "cancelled"})

    @agent.tool_plain
    def get_reservation_details(reservation_id: str) -> str:
        """Get the details of a reservation."""
        return json.dumps({"reservation_id": reservation_id, "status": "active"})

    return agent


def test_claim_of_an_unexecuted_cancellation_is_nudged_then_corrected(model: ScriptedModel) -> None:
    """The agent says it cancelled without calling the tool; after one nudge it calls it, and the run passes."""
    executed: list[str] = []
    model.policy = script(say(CLAIM), CANCEL, say(CLAIM))
    agent = airline_agent(model, executed)
    ClaimCheck(max_nudges=2).install(agent)
    result = in_thread(agent.run_sync, "Please cancel my reservation ZFA04Y.")
    assert result.output == CLAIM and executed == ["ZFA04Y"] and len(model.requests) == 3
    nudge = model.requests[1]["messages"][-1]
    assert nudge["role"] == "user" and "claim:cancel_reservation" in nudge["content"]


def test_an_agent_that_keeps_claiming_fails_with_factlines_error(model: ScriptedModel) -> None:
    """An agent that never calls the tool is nudged max_nudges times, then AgentHallucinationError ends the run."""
    executed: list[str] = []
    model.policy = script(*[say(CLAIM)] * 5)
    agent = airline_agent(model, executed)
    ClaimCheck(max_nudges=2).install(agent)
    with pytest.raises(AgentHallucinationError) as failed:
        in_thread(agent.run_sync, "Please cancel my reservation ZFA04Y.")
    assert failed.value.claimed == {"cancel_reservation"} and failed.value.called == set()
    assert len(model.requests) == 3 and executed == []


def test_a_claim_after_a_failed_call_is_nudged(model: ScriptedModel) -> None:
    """The tool refused (ModelRetry); the agent still says it cancelled: that claim is unbacked and ends the run."""
    model.policy = script(CANCEL, *[say(CLAIM)] * 4)
    agent = airline_agent(model, [], refuse=True)
    check = ClaimCheck(max_nudges=1).install(agent)
    with pytest.raises(AgentHallucinationError):
        in_thread(agent.run_sync, "Please cancel my reservation ZFA04Y.")
    assert check.audit is not None and [c.outcome for c in check.audit.calls] == ["error"]


def test_an_honest_run_passes_untouched(model: ScriptedModel) -> None:
    """The agent calls the tool, then says so: no nudge, the model is asked exactly twice."""
    executed: list[str] = []
    model.policy = script(CANCEL, say(CLAIM))
    agent = airline_agent(model, executed)
    check = ClaimCheck(max_nudges=2).install(agent)
    result = in_thread(agent.run_sync, "Please cancel my reservation ZFA04Y.")
    assert result.output == CLAIM and len(model.requests) == 2 and executed == ["ZFA04Y"]
    assert check.audit is not None and [(c.tool, c.backed) for c in check.audit.claims] == [("cancel_reservation", True)]
