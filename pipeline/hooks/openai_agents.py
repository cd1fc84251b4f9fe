"""factline's claim check around an OpenAI Agents SDK run (``pip install 'factline[agents]'``).

    check = ClaimCheck(max_nudges=2, database_url="sqlite:///var/agents.db")   # the ledger is optional
    result = await check.run(agent, "Cancel my reservation ZFA04Y")             # or check.run_sync(...)

After the agent's run ends, its conversation (``RunResult.to_input_list()``: the function calls, their outputs,
the assistant's text) is audited as ``factline audit`` audits a transcript (pipeline.audit.check, the guard's
claim reader, vocabularies derived from the agent's tool names and descriptions). When the final text claims
an action no successful call backs - "your reservation has been cancelled" without a cancel_reservation call,
or after one that failed - the run is continued with a corrective message (factline's nudge), up to
``max_nudges`` times; then ``AgentHallucinationError`` (pipeline.guard) is raised. An honest run is returned
untouched, after one audit.

A function output the SDK produced from an exception ("An error occurred while running the tool ...") or one
starting with "Error:" is a failed call and backs nothing. With ``database_url``, the run is written to that
factline ledger like a factline run (a ``runs`` row with pipeline ``agents-sdk:<agent name>``, every tool call,
every assistant text as a turn, every claim, every nudge, the verdict), so ``factline runs --run N``,
``factline diff`` and ``factline audit --run N`` read it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents import Agent, Runner, RunResult

from pipeline.audit.check import Audit, Auditor
from pipeline.audit.transcripts import Message, ToolCall, Transcript
from pipeline.guard import AgentHallucinationError, nudge_text
from pipeline.outcome import Finding, FindingKind

SDK_TOOL_ERROR = "An error occurred while running the tool"


def transcript(items: Sequence[Any], tools: Sequence[tuple[str, str]] = (), source: str = "agents-sdk") -> Transcript:
    """A Responses-API input list (what ``RunResult.to_input_list()`` returns) as a transcript."""
    messages: list[Message] = []
    for item in items:
        item = dict(item) if isinstance(item, Mapping) else item.model_dump()
        kind = item.get("type")
        if kind == "function_call":
            messages.append(Message("assistant", "", (ToolCall(item.get("call_id"), item.get("name", ""),
                                                               _arguments(item.get("arguments"))),)))
        elif kind == "function_call_output":
            output = item.get("output")
            text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
            error = text.startswith(SDK_TOOL_ERROR) or text.lstrip().startswith("Error:")
            messages.append(Message("tool", text, tool_call_id=item.get("call_id"), error=error))
        elif item.get("role") in ("user", "system", "developer", "assistant"):
            messages.append(Message(item["role"], _text(item.get("content"))))
    return Transcript(source, tuple(messages), tuple(tools))


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for part in content or ():
        if isinstance(part, Mapping) and isinstance(part.get("text"), str):
            parts.append(part["text"])
    return "\n".join(parts)


def agent_tools(agent: Agent[Any]) -> list[tuple[str, str]]:
    return [(t.name, getattr(t, "description", "") or "") for t in agent.tools if getattr(t, "name", None)]


@dataclass
class ClaimCheck:
    """Runs an Agents SDK agent and holds its final text to the tool calls that succeeded."""

    max_nudges: int = 2
    catalog: Mapping[str, Mapping[str, Any]] | None = None  # claim words per tool, as ``factline audit --catalog``
    database_url: str | None = None  # a factline ledger to write the run to
    nudges: int = field(default=0, init=False)  # of the last run
    audit: Audit | None = field(default=None, init=False)  # of the last run's conversation

    async def run(self, agent: Agent[Any], input: str | list[Any], **runner: Any) -> RunResult:
        auditor = Auditor(self.catalog)
        tools = agent_tools(agent)
        auditor.know(name for name, _ in tools)
        ledger = _Ledger.open(self.database_url, agent) if self.database_url else None
        self.nudges = 0
        items: str | list[Any] = input
        try:
            while True:
                result = await Runner.run(agent, items, **runner)
                conversation = result.to_input_list()
                self.audit = auditor.audit(transcript(conversation, tools))
                last = _last_text(conversation, tools)
                unbacked = [c for c in self.audit.claims if not c.backed and c.message == last]
                findings = [Finding(FindingKind.claim, c.tool, c.span, c.backed) for c in self.audit.claims
                            if c.message == last]
                if ledger:
                    ledger.record(conversation, tools, self.audit, last)
                if not unbacked:
                    if ledger:
                        ledger.finish("success")
                    return result
                if self.nudges >= self.max_nudges:
                    claimed = {c.tool for c in unbacked}
                    called = {c.name for c in self.audit.calls if c.outcome == "ok"}
                    if ledger:
                        ledger.finish("hallucinated")
                    raise AgentHallucinationError(claimed, called, [f for f in findings if not f.backed])
                self.nudges += 1
                nudge = nudge_text([f for f in findings if not f.backed])
                if ledger:
                    ledger.nudge(nudge)
                items = [*conversation, {"role": "user", "content": nudge}]
        finally:
            if ledger:
                ledger.close()

    def run_sync(self, agent: Agent[Any], input: str | list[Any], **runner: Any) -> RunResult:
        return asyncio.run(self.run(agent, input, **runner))


def _last_text(conversation: list[Any], tools: Sequence[tuple[str, str]]) -> int:
    """The index of the final assistant text in the audited transcript (-1 when there is none)."""
    messages = transcript(conversation, tools).messages
    return max((i for i, m in enumerate(messages) if m.role == "assistant" and m.content.strip()), default=-1)


class _Ledger:
    """The run written to a factline ledger through RunJournal, as factline writes its own runs."""

    def __init__(self, engine: Any, journal: Any) -> None:
        self.engine, self.journal, self.turn, self.written = engine, journal, 0, 0

    @classmethod
    def open(cls, database_url: str, agent: Agent[Any]) -> _Ledger:
        from config.secrets import Redactor
        from pipeline.ledger.db import make_engine, session_factory, upgrade
        from pipeline.ledger.journal import RunJournal
        from pipeline.ledger.runs import open_run
        from pipeline.ledger.models import Run

        engine = make_engine(database_url)
        upgrade(engine)
        sessions = session_factory(engine)
        model = agent.model if isinstance(agent.model, str) else getattr(agent.model, "model", None)
        with sessions.begin() as s:  # no RunStamp: the SDK's prompt and tools are not factline's catalog
            run_id = open_run(s, trigger="agents-sdk", pipeline=f"agents-sdk:{agent.name}"[:64])
            s.get_one(Run, run_id).model = str(model) if model else None
        return cls(engine, RunJournal(sessions, run_id, Redactor(())))

    @property
    def run_id(self) -> int:
        return int(self.journal.run_id)

    def record(self, conversation: list[Any], tools: Sequence[tuple[str, str]], audit: Audit, last: int) -> None:
        """What this SDK run added since the last one: its calls, its texts as turns, the final text's claims."""
        from pipeline.ledger.journal import CallRecord
        from pipeline.outcome import CallOutcome

        messages = transcript(conversation, tools).messages
        outcomes = {c.id: c for c in audit.calls}
        for i in range(self.written, len(messages)):
            m = messages[i]
            if m.role != "assistant":
                continue
            self.turn += 1
            for call in m.tool_calls:
                done = outcomes.get(call.id)
                ok = done is not None and done.outcome == "ok"
                result = _arguments(done.result) if done else None
                self.journal.call(CallRecord(
                    turn=self.turn, call_id=call.id, name=call.name,
                    arguments=json.dumps(call.arguments, ensure_ascii=False, default=str),
                    outcome=CallOutcome.ok if ok else CallOutcome.failed,
                    result=result if isinstance(result, dict) else {"output": done.result} if done else None,
                    detail=None if ok else (done.result[:500] if done else "no output")))
            if m.content.strip():
                self.journal.turn(self.turn, m.content, len(m.tool_calls), 0)
                if i == last:
                    self.journal.claims(self.turn, [Finding(FindingKind.claim, c.tool, c.span, c.backed)
                                                    for c in audit.claims if c.message == last])
        self.written = len(messages)

    def nudge(self, text: str) -> None:
        from pipeline.outcome import NudgeKind

        self.journal.nudge(self.turn, NudgeKind.hallucination, text)
        self.written += 1  # the nudge is the next input item, not the model's

    def finish(self, verdict: str) -> None:
        from pipeline.outcome import Verdict

        self.journal.finish(verdict=Verdict(verdict),
                            stop_reason=None if verdict == "success" else "nudges_exhausted", error=None)

    def close(self) -> None:
        self.engine.dispose()
