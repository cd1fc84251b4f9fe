"""factline's claim check around a real OpenAI Agents SDK run, against the scripted OpenAI-protocol model on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

agents = pytest.importorskip("agents", reason="the agents extra: pip install -e '.[agents]'")

from agents import Agent, OpenAIChatCompletionsModel, function_tool, set_tracing_disabled  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402
from sqlalchemy import create_engine, select  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from pipeline.guard import AgentHallucinationError  # noqa: E402
from pipeline.hooks.openai_agents import ClaimCheck  # noqa: E402
from pipeline.ledger.models import Claim, Nudge, Run, ToolCall  # noqa: E402
from testkit.scripted_model import ScriptedModel, call, say, script  # noqa: E402
from tests.cli_helpers import factline_read, user_env  # noqa: E402

CLAIM = "Your reservation ZFA04Y has been successfully cancelled."
CANCEL = call("cancel_reservation", {"reservation_id": "ZFA04Y"})


def in_thread(run_sync: Callable[..., Any], *args: Any) -> Any:
    """``ClaimCheck.run_sync`` in a thread of its own, as a program without an event loop calls it: the suite's
    session-wide browser (Playwright's sync API) keeps an asyncio loop running in the main thread, where
    ``asyncio.run`` refuses to start."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run_sync, *args).result()


def airline_agent(model: ScriptedModel, executed: list[str]) -> Agent[None]:
    set_tracing_disabled(True)

    @function_tool
    def cancel_reservation(reservation_id: str) -> str:
        """Cancel the whole reservation."""
        executed.append(reservation_id)
        return json.dumps({"reservation_id": reservation_id, "status": "cancelled"})

    @function_tool
    def get_reservation_details(reservation_id: str) -> str:
        """Get the details of a reservation."""
        return json.dumps({"reservation_id": reservation_id, "status": "active"})

    client = AsyncOpenAI(base_url=model.base_url, api_key="test", max_retries=0)
    return Agent(name="airline", instructions="You are an airline agent.",
                 model=OpenAIChatCompletionsModel(model="scripted", openai_client=client),
                 tools=[cancel_reservation, get_reservation_details])


def test_claim_of_an_unexecuted_cancellation_is_nudged_then_corrected(model: ScriptedModel) -> None:
    """The agent says it cancelled without calling the tool; after one nudge it calls it, and the run passes."""
    executed: list[str] = []
    model.policy = script(say(CLAIM), CANCEL, say(CLAIM))
    check = ClaimCheck(max_nudges=2)
    result = in_thread(check.run_sync, airline_agent(model, executed), "Please cancel my reservation ZFA04Y.")
    assert result.final_output == CLAIM
    assert check.nudges == 1 and executed == ["ZFA04Y"]
    nudge = model.requests[1]["messages"][-1]
    assert nudge["role"] == "user" and "cancel_reservation" in nudge["content"]


def test_an_agent_that_keeps_claiming_fails_with_factlines_error(model: ScriptedModel) -> None:
    """An agent that never calls the tool is nudged max_nudges times, then AgentHallucinationError is raised."""
    executed: list[str] = []
    model.policy = script(*[say(CLAIM)] * 5)
    check = ClaimCheck(max_nudges=2)
    with pytest.raises(AgentHallucinationError) as failed:
        in_thread(check.run_sync, airline_agent(model, executed), "Please cancel my reservation ZFA04Y.")
    assert failed.value.claimed == {"cancel_reservation"} and failed.value.called == set()
    assert check.nudges == 2 and len(model.requests) == 3 and executed == []


def test_an_honest_run_passes_untouched(model: ScriptedModel) -> None:
    """The agent calls the tool, then says so: no nudge, the model is asked exactly twice."""
    executed: list[str] = []
    model.policy = script(CANCEL, say(CLAIM))
    check = ClaimCheck(max_nudges=2)
    result = in_thread(check.run_sync, airline_agent(model, executed), "Please cancel my reservation ZFA04Y.")
    assert result.final_output == CLAIM and check.nudges == 0 and len(model.requests) == 2
    assert [(c.tool, c.backed) for c in check.audit.claims] == [("cancel_reservation", True)]


def test_calls_claims_and_nudges_are_written_to_a_factline_ledger(model: ScriptedModel, db_url: str) -> None:
    """With a database URL the SDK run is a factline run: its calls, claims, nudge and verdict; factline audit reads it."""
    url = db_url
    model.policy = script(say(CLAIM), CANCEL, say(CLAIM))
    in_thread(ClaimCheck(max_nudges=2, database_url=url).run_sync, airline_agent(model, []), "Please cancel ZFA04Y.")
    with Session(create_engine(url)) as s:
        run = s.scalars(select(Run)).one()
        assert (run.pipeline, run.verdict, run.status) == ("agents-sdk:airline", "success", "finished")
        assert [(c.name, c.outcome) for c in s.scalars(select(ToolCall))] == [("cancel_reservation", "ok")]
        assert [(c.capability, c.backed) for c in s.scalars(select(Claim).order_by(Claim.id))] == [
            ("cancel_reservation", False), ("cancel_reservation", True)]
        assert s.scalars(select(Nudge)).one().kind == "hallucination"
    audited = factline_read(user_env(DATABASE_URL=url), "audit", "--run", str(run.id), "--json")
    assert audited.returncode == 3  # the first text claimed what was not done yet
