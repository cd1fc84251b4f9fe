"""Writing one run into the ledger: every call, claim, nudge, event and the final verdict.

Functions take the session first; ``RunJournal`` binds them to one run and commits each write at
once, so the ledger is true up to the last completed step even if the process is killed.

Every text a run stores passes through its ``Redactor`` (config.secrets): a secret quoted by an endpoint's
error, a target's answer or a crash's message is stored as ``[redacted]``.

Outcomes and kinds are checked against their enums (pipeline.outcome) as they are written: a kind
that is not in its enum fails here, in the code that invents it, not later in whoever reads the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from config.secrets import Redactor
from pipeline.ledger import runs
from pipeline.ledger.models import AgentTurn, Claim, Nudge, Run, RunEvent, ToolCall
from pipeline.outcome import CallOutcome, EventKind, Finding, FindingKind, NudgeKind, Verdict
from pipeline.tracing import NO_TRACING, Tracing


@dataclass(frozen=True)
class CallRecord:
    turn: int
    call_id: str | None
    name: str
    arguments: str
    outcome: CallOutcome
    reason: str | None = None
    shadow_of: str | None = None
    result: dict[str, Any] | None = None
    error_class: str | None = None
    detail: str | None = None
    attempts: int = 0
    latency_ms: int = 0
    idempotency_key: str | None = None


def text(value: str | None) -> str | None:
    """Model output may hold NUL characters, which PostgreSQL text refuses: store them visibly escaped."""
    return value.replace("\x00", "\\x00") if value else value


class RunJournal:
    """The ledger writer of one run. What it records also goes to the span current in the trace (pipeline.tracing):
    a call's outcome onto its execute_tool span, claims, nudges and events as span events."""

    def __init__(self, sessions: sessionmaker[Session], run_id: int, redact: Redactor,
                 tracing: Tracing = NO_TRACING) -> None:
        self.sessions = sessions
        self.run_id = run_id
        self.redact = redact
        self.tracing = tracing
        with sessions() as s:  # a continued run numbers its calls after the ones it already made
            self.seq = s.scalar(select(func.coalesce(func.max(ToolCall.seq), 0)).where(ToolCall.run_id == run_id))

    def last_turn(self) -> int:
        """The run's highest turn number so far (0 for a new run; more for a run continued by another worker)."""
        with self.sessions() as s:
            return max(s.scalar(select(func.coalesce(func.max(AgentTurn.turn), 0)).where(AgentTurn.run_id == self.run_id)),
                       s.scalar(select(func.coalesce(func.max(ToolCall.turn), 0)).where(ToolCall.run_id == self.run_id)))

    def trace_id(self, new: str | None) -> str | None:
        """The run's trace id: the one it has (a continued run stays in its trace), else ``new``, stored."""
        with self.sessions.begin() as s:
            stored = s.scalar(select(Run.trace_id).where(Run.id == self.run_id))
            if stored is None and new is not None:
                s.execute(update(Run).where(Run.id == self.run_id).values(trace_id=new))
        return stored or new

    def tokens_used(self) -> int:
        with self.sessions() as s:
            return s.scalar(select(Run.tokens_used).where(Run.id == self.run_id)) or 0

    def call(self, record: CallRecord) -> int:
        self.seq += 1
        with self.sessions.begin() as s:
            fields = {k: text(self.redact(v)) if k in ("name", "arguments", "detail", "call_id", "reason") and v else v
                      for k, v in record.__dict__.items()}
            fields["result"] = self.redact.data(record.result)
            fields["outcome"] = CallOutcome(record.outcome)
            row = ToolCall(run_id=self.run_id, seq=self.seq, **fields)
            s.add(row)
            s.flush()
            ledger_id = row.id
        self._trace_call(record, ledger_id, fields)
        return ledger_id

    def _trace_call(self, record: CallRecord, ledger_id: int, stored: dict[str, Any]) -> None:
        """The call's row, as attributes of its execute_tool span (its text only with content capture)."""
        span = self.tracing.current()
        span.set({"factline.call.outcome": str(record.outcome), "factline.call.reason": record.reason,
                  "factline.call.attempts": record.attempts, "factline.call.dedup": record.outcome == CallOutcome.dedup,
                  "factline.call.shadow_of": record.shadow_of, "factline.call.ledger_id": ledger_id,
                  "factline.call.seq": self.seq, "factline.call.latency_ms": record.latency_ms})
        span.content({"gen_ai.tool.call.arguments": stored["arguments"], "gen_ai.tool.call.result": stored["result"]})
        if record.outcome == CallOutcome.failed:
            span.fail(record.reason or "failed", stored.get("detail") or "")

    def turn(self, turn: int, text_: str, calls: int, tokens: int) -> None:
        """What the model wrote in this turn, verbatim: the run's story as the dashboard tells it."""
        with self.sessions.begin() as s:
            s.add(AgentTurn(run_id=self.run_id, turn=turn, text=text(self.redact(text_)) or "", calls=calls, tokens=tokens))

    def claims(self, turn: int, findings: Sequence[Finding]) -> None:
        with self.sessions.begin() as s:
            s.add_all(Claim(run_id=self.run_id, turn=turn, kind=FindingKind(f.kind), capability=f.capability,
                            span=text(self.redact(f.span[:2000])), backed=f.backed) for f in findings)
        span = self.tracing.current()
        for f in findings:
            span.event("factline.guard.finding", {"turn": turn, "kind": str(f.kind), "capability": f.capability,
                                                  "backed": f.backed})
            if self.tracing.content_capture:
                span.event("factline.guard.finding.text", {"turn": turn, "span": f.span[:2000]})

    def nudge(self, turn: int, kind: NudgeKind, detail: str) -> None:
        with self.sessions.begin() as s:
            s.add(Nudge(run_id=self.run_id, turn=turn, kind=NudgeKind(kind), detail=text(self.redact(detail))))
        self.tracing.current().event("factline.nudge", {"turn": turn, "kind": str(kind), "detail": detail})

    def event(self, kind: EventKind, **detail: Any) -> None:
        stored = self.redact.data(detail)
        with self.sessions.begin() as s:
            s.add(RunEvent(run_id=self.run_id, kind=EventKind(kind), detail=stored))
        self.tracing.current().event(f"factline.{kind}", stored)

    def tokens(self, total: int) -> None:
        with self.sessions.begin() as s:
            s.execute(update(Run).where(Run.id == self.run_id).values(tokens_used=total))

    def results(self) -> list[tuple[str, dict[str, Any]]]:
        """(tool, payload) of this run's successful tool calls (ok, or answered by dedup): the guard's evidence."""
        with self.sessions() as s:
            return [(name, result) for name, result in s.execute(select(ToolCall.name, ToolCall.result).where(
                ToolCall.run_id == self.run_id, ToolCall.outcome.in_((CallOutcome.ok, CallOutcome.dedup)))
                .order_by(ToolCall.seq)) if result]

    def called(self) -> set[str]:
        with self.sessions() as s:
            return set(s.scalars(select(ToolCall.name).where(ToolCall.run_id == self.run_id, ToolCall.outcome == CallOutcome.ok)))

    def finish(self, *, verdict: Verdict, stop_reason: str | None, error: str | None) -> None:
        """Close the run with its verdict (the status follows from it: pipeline.ledger.runs.status_after)."""
        with self.sessions.begin() as s:
            runs.finish(s, self.run_id, verdict=Verdict(verdict), stop_reason=stop_reason,
                        error=text(self.redact(error)) if error else None)
