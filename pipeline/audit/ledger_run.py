"""A factline run from the ledger as a transcript: each turn's text, then its tool calls and their outcomes.

A call's outcome is the ledger's: ``ok`` and ``dedup`` (answered from an earlier identical call) back
claims; rejected, failed, shadow and every other outcome are errors.
"""

from __future__ import annotations

import json

from sqlalchemy import select
from sqlalchemy.orm import Session

from pipeline.audit.transcripts import Message, ToolCall, Transcript
from pipeline.ledger.models import AgentTurn, ToolCall as CallRow
from pipeline.outcome import CallOutcome

BACKING = (CallOutcome.ok, CallOutcome.dedup)


def run_transcript(s: Session, run_id: int) -> Transcript:
    turns = {t.turn: t.text for t in s.scalars(select(AgentTurn).where(AgentTurn.run_id == run_id))}
    calls: dict[int, list[CallRow]] = {}
    for row in s.scalars(select(CallRow).where(CallRow.run_id == run_id).order_by(CallRow.seq)):
        calls.setdefault(row.turn, []).append(row)
    messages: list[Message] = []
    for turn in sorted(set(turns) | set(calls)):
        rows = calls.get(turn, [])
        messages.append(Message("assistant", turns.get(turn, ""), tuple(
            ToolCall(r.call_id or f"seq-{r.seq}", r.name, _arguments(r.arguments)) for r in rows)))
        for r in rows:
            ok = r.outcome in BACKING
            content = json.dumps(r.result, ensure_ascii=False) if ok and r.result else f"Error: {r.outcome} {r.detail or ''}"
            messages.append(Message("tool", content, tool_call_id=r.call_id or f"seq-{r.seq}", name=r.name, error=not ok))
    return Transcript(f"run {run_id}", tuple(messages))


def _arguments(raw: str) -> object:
    try:
        return json.loads(raw)
    except ValueError:
        return raw
