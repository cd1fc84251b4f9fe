"""factline's claim check inside a Pydantic AI agent (``pip install 'factline[pydantic-ai]'``).

    agent = Agent(model, tools=[cancel_reservation, ...], retries=3)
    check = ClaimCheck(max_nudges=2).install(agent)        # an output validator of the agent
    result = await agent.run("Cancel my reservation ZFA04Y")   # or agent.run_sync(...)

Pydantic AI already has the turn this needs: an output validator that raises ``ModelRetry`` sends its message
back to the model as a retry prompt, and the run goes on. The validator installed here audits the run's
messages (``RunContext.messages``: tool calls, tool returns, retry prompts, the assistant's text) as
``factline audit`` audits a transcript (pipeline.audit.check, the guard's claim reader, vocabularies derived
from the agent's tool names and descriptions). When the final text claims an action no successful call backs
- "your reservation has been cancelled" without a cancel_reservation call, or after one that failed - it
raises ``ModelRetry`` with factline's nudge, up to ``max_nudges`` times (and never more than the agent's own
output retries allow); then ``AgentHallucinationError`` (pipeline.guard), which ends the run. An honest run's
output passes untouched.

A tool return whose ``outcome`` is not ``success`` (the tool raised, was denied, or asked for a retry with
``ModelRetry``), a ``RetryPromptPart`` naming a tool, or a return starting with "Error:" is a failed call and
backs nothing. Only text output (``output_type=str``) is read: a structured output is
data, not a claim.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.messages import (ModelRequest, ModelResponse, RetryPromptPart, SystemPromptPart, TextPart,
                                  ToolCallPart, ToolReturnPart, UserPromptPart)

from pipeline.audit.check import Audit, Auditor
from pipeline.audit.transcripts import Message, ToolCall, Transcript
from pipeline.guard import AgentHallucinationError, nudge_text
from pipeline.outcome import Finding, FindingKind


def transcript(messages: list[Any], tools: tuple[tuple[str, str], ...] = (), source: str = "pydantic-ai") -> Transcript:
    """Pydantic AI's message history (ModelRequest / ModelResponse) as a transcript."""
    out: list[Message] = []
    for message in messages:
        if isinstance(message, ModelResponse):
            text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
            calls = tuple(ToolCall(p.tool_call_id, p.tool_name, p.args_as_dict())
                          for p in message.parts if isinstance(p, ToolCallPart))
            out.append(Message("assistant", text, calls))
        elif isinstance(message, ModelRequest):
            out += [m for part in message.parts if (m := _request_part(part)) is not None]
    return Transcript(source, tuple(out), tools)


def _request_part(part: Any) -> Message | None:
    if isinstance(part, SystemPromptPart):
        return Message("system", part.content)
    if isinstance(part, UserPromptPart):
        return Message("user", part.content if isinstance(part.content, str) else
                       "\n".join(c for c in part.content if isinstance(c, str)))
    if isinstance(part, ToolReturnPart):  # outcome: success, or failed / denied / interrupted / retried
        text = part.model_response_str()
        failed = getattr(part, "outcome", "success") != "success" or text.lstrip().startswith("Error:")
        return Message("tool", text, tool_call_id=part.tool_call_id, name=part.tool_name, error=failed)
    if isinstance(part, RetryPromptPart):
        text = part.content if isinstance(part.content, str) else json.dumps(part.content, default=str)
        if part.tool_name:  # the tool raised ModelRetry, or its arguments did not validate: it did not run
            return Message("tool", text, tool_call_id=part.tool_call_id, name=part.tool_name, error=True)
        return Message("user", text)  # a retry prompt of an output validator (factline's nudge among them)
    return None


@dataclass
class ClaimCheck:
    """An output validator holding a Pydantic AI agent's final text to the tool calls that succeeded."""

    max_nudges: int = 2
    catalog: Mapping[str, Mapping[str, Any]] | None = None  # claim words per tool, as ``factline audit --catalog``
    audit: Audit | None = field(default=None, init=False)  # of the last text checked

    def install(self, agent: Agent[Any, Any]) -> ClaimCheck:
        agent.output_validator(self.validate)
        return self

    async def validate(self, ctx: RunContext[Any], output: Any) -> Any:
        if not isinstance(output, str):
            return output
        tools = tuple((d.name, d.description or "") for d in ctx.tool_manager.tool_defs) if ctx.tool_manager else ()
        auditor = Auditor(self.catalog)
        auditor.know(name for name, _ in tools)
        conversation = transcript(list(ctx.messages), tools)
        if not any(m.role == "assistant" and m.content == output for m in conversation.messages[-1:]):
            conversation = Transcript(conversation.source, (*conversation.messages, Message("assistant", output)), tools)
        self.audit = auditor.audit(conversation)
        last = len(conversation.messages) - 1
        unbacked = [c for c in self.audit.claims if c.message == last and not c.backed]
        if not unbacked:
            return output
        findings = [Finding(FindingKind.claim, c.tool, c.span, False) for c in unbacked]
        if ctx.retry >= min(self.max_nudges, ctx.max_retries):
            called = {c.name for c in self.audit.calls if c.outcome == "ok"}
            raise AgentHallucinationError({c.tool for c in unbacked}, called, findings)
        raise ModelRetry(nudge_text(findings))
