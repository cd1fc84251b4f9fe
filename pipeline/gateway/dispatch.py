"""The gateway: every tool call the model emits passes here, and only here, on its way to a capability.

    whitelist (exact names) -> schema (strict) -> dedup -> prepare (business validation, key, once)
      -> hold? (the review gate: recorded `held`, the run stops awaiting review) -> execute (retry state machine)

Each step's failure has an explicit path: a structured error back to the model, or a StopRun.
Every call, whatever its fate, becomes one tool_calls row.
"""

from __future__ import annotations

import functools
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from loguru import logger
from pydantic import ValidationError

from capabilities.base import Capability, CapabilityContext, Prepared, ToolResult
from capabilities.errors import ArgumentsRejected, AuthFailed, Retryable, StopPipeline, ToolFailed, ToolRejected
from pipeline.gateway.budget import LoopDetector, RunUsage
from pipeline.gateway.names import fingerprint, resembles
from pipeline.ledger.journal import CallRecord, RunJournal
from pipeline.outcome import CallOutcome, EventKind, StopRun, Verdict
from pipeline.retry import RetryExhausted, RetryPolicy, call_with_retries
from pipeline.turns import ToolCallRequest


@dataclass(frozen=True)
class ToolOutcome:
    status: CallOutcome
    content: str  # JSON text that goes back to the model
    ledger_id: int


Hold = Callable[[str, Prepared[Any]], str | None]
"""The review gate (pipeline.review.gate): a reason to stop before executing this prepared call, or None."""


def _error(kind: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"error": kind, "detail": detail, **extra}


def _schema_detail(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()[:5])


class Gateway:
    """One run's gateway: holds the run-wide counters (unknown names, dedup cache, escalations)."""

    def __init__(
        self,
        catalog: dict[str, Capability],
        ctx: CapabilityContext,
        journal: RunJournal,
        usage: RunUsage,
        policy: RetryPolicy,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        hold: Hold | None = None,
    ) -> None:
        self.catalog, self.ctx, self.journal, self.usage, self.policy = catalog, ctx, journal, usage, policy
        self.hold = hold
        self.sleep, self.rng = sleep, rng or random.Random()
        self.loops = LoopDetector(usage.budget.loop_window)
        self.answers: dict[str, str] = {}  # fingerprint -> content of a successful call
        self.unavailable: set[str] = set()
        self.argument_rejections: dict[str, int] = {}

    def dispatch(self, turn: int, call: ToolCallRequest) -> ToolOutcome:
        """One call, whatever its fate, as one execute_tool span (the journal writes its outcome onto it)."""
        with self.journal.tracing.tool(call.name[:200], call.id):
            return self._dispatch(turn, call)

    def _dispatch(self, turn: int, call: ToolCallRequest) -> ToolOutcome:
        log = logger.bind(tool=call.name, call_id=call.id)
        self.usage.check_before_call()
        capability = self.catalog.get(call.name)
        if capability is None:
            return self._unknown(turn, call, log)
        try:
            args = capability.Args.model_validate_json(call.arguments or "{}", strict=True)
        except ValidationError as exc:
            self.loops.observe(fingerprint(call.name, call.arguments))
            return self._reply(turn, call, CallOutcome.rejected, "schema", _error("schema", _schema_detail(exc)), log)
        print_ = fingerprint(call.name, args.model_dump(mode="json"))
        self.loops.observe(print_)
        if print_ in self.answers:
            record = CallRecord(turn, call.id, call.name, call.arguments, CallOutcome.dedup, "duplicate_call",
                                result=json.loads(self.answers[print_]))
            log.info("tool.dedup")
            return ToolOutcome(CallOutcome.dedup, self.answers[print_], self.journal.call(record))
        if capability.name in self.unavailable:
            self._record(turn, call, CallOutcome.failed, "unavailable_again", detail="called again after escalation")
            raise StopRun(Verdict.unavailable, "unavailable_again", f"{capability.name} was already escalated as unavailable")
        return self._execute(turn, call, capability, args, print_, log)

    def _unknown(self, turn: int, call: ToolCallRequest, log: Any) -> ToolOutcome:
        self.loops.observe(fingerprint(call.name, call.arguments))
        shadow = resembles(call.name, list(self.catalog))
        reason = "shadow" if shadow else "unknown_tool"
        available = sorted(self.catalog)
        error = _error("unknown_tool", f"no tool named {call.name!r}; use one of the available names exactly",
                       available=available)
        outcome = self._reply(turn, call, CallOutcome.rejected, reason, error, log, shadow_of=shadow)
        self.usage.count_unknown_tool()
        return outcome

    def _execute(self, turn: int, call: ToolCallRequest, capability: Capability[Any, Any], args: Any, print_: str,
                 log: Any) -> ToolOutcome:
        started = time.monotonic()
        attempts = 0  # executions started: what the ledger's attempts column records on every path

        def attempt() -> ToolResult:
            nonlocal attempts
            self.usage.check_time()
            attempts += 1
            return capability.execute(self.ctx, prepared)

        def on_retry(attempt_no: int, wait: float, exc: Retryable) -> None:
            log.warning("tool.retry", attempt=attempt_no, wait=round(wait, 3), detail=exc.detail)
            self.journal.event(EventKind.tool_retry, tool=call.name, turn=turn, call_id=call.id, attempt=attempt_no,
                               wait=round(wait, 3), detail=exc.detail)

        held: str | None = None
        try:
            prepared = capability.prepare(self.ctx, args)  # once: validation, key, records; no side effect
            if self.hold is not None and (held := self.hold(capability.name, prepared)) is not None:
                self._record(turn, call, CallOutcome.held, "review", detail=held, started=started,
                             result={"held": held}, key=prepared.key)
                log.info("tool.held", reason="review", detail=held)
                raise StopRun(Verdict.awaiting_review, "review", held)
            result, _ = call_with_retries(attempt, self.policy, self.sleep, on_retry, self.rng)
        except (ToolRejected, ToolFailed, RetryExhausted, AuthFailed) as exc:
            return self._not_done(turn, call, exc, log, started, attempts)
        except StopPipeline as exc:  # the capability found the run cannot end well (e.g. no source could be read)
            self._record(turn, call, CallOutcome.failed, exc.reason, detail=exc.detail, started=started,
                         error_class="StopPipeline", attempts=attempts, result=_error("failed", exc.detail))
            raise StopRun(Verdict(exc.verdict), exc.reason, exc.detail) from exc
        except StopRun as stop:  # the run's deadline passed (or a stop was asked) during the call
            if held is not None:
                raise
            self._record(turn, call, CallOutcome.failed, stop.reason, detail=stop.detail, started=started,
                         error_class="StopRun", attempts=attempts)
            raise
        except Exception as exc:  # a bug in a capability: record it and stop, never hide it
            self._record(turn, call, CallOutcome.failed, "internal", detail=str(exc)[:500], started=started,
                         error_class=exc.__class__.__name__, attempts=attempts)
            log.exception("tool.crashed")
            raise StopRun(Verdict.error, "internal", f"{call.name} raised {exc.__class__.__name__}: {exc}") from exc
        content = result.payload
        if self.usage.calls_spent:
            content = {**content, "notice": "tool-call budget spent: finish now without calling tools"}
        text = json.dumps(content, ensure_ascii=False)
        self.answers[print_] = text
        ledger_id = self._record(turn, call, CallOutcome.ok, None, result=result.payload, started=started,
                                 attempts=attempts, key=prepared.key)
        log.info("tool.finished", outcome="ok", summary=result.summary, attempts=attempts)
        return ToolOutcome(CallOutcome.ok, text, ledger_id)

    def _not_done(self, turn: int, call: ToolCallRequest, exc: ToolRejected | ToolFailed | RetryExhausted | AuthFailed,
                  log: Any, started: float, attempts: int) -> ToolOutcome:
        """The answer to the model, and the ledger row, of a call a capability refused or failed; auth stops the run."""
        reply = functools.partial(self._reply, turn, call, log=log, started=started, attempts=attempts)
        match exc:
            case ToolRejected(hallucinated_argument=True):
                return reply(CallOutcome.rejected, "hallucinated_argument", _error("validation", exc.detail))
            case ToolRejected():
                return reply(CallOutcome.rejected, "validation", _error("validation", exc.detail))
            case ArgumentsRejected() if self._argument_rejections(call.name) == 1:
                hint = "correct the arguments once; a second refusal is final"
                return reply(CallOutcome.failed, "arguments", _error("arguments", exc.detail, hint=hint))
            case ArgumentsRejected():
                return reply(CallOutcome.failed, "arguments_final", _error("failed", exc.detail))
            case ToolFailed():
                return reply(CallOutcome.failed, "failed", _error("failed", exc.detail))
            case RetryExhausted():
                self.unavailable.add(call.name)
                self.journal.event(EventKind.escalation, tool=call.name, attempts=exc.attempts, detail=exc.last.detail)
                hint = "the service is unavailable; do not call this tool again, finish"
                return reply(CallOutcome.failed, "retry_exhausted", _error("unavailable", str(exc), hint=hint))
            case _:  # AuthFailed: stop the run at once, without retry
                self._record(turn, call, CallOutcome.failed, "auth", detail=exc.detail, started=started,
                             error_class="AuthFailed", attempts=attempts)
                raise StopRun(Verdict.auth_failed, "auth", exc.detail) from exc

    def _argument_rejections(self, name: str) -> int:
        self.argument_rejections[name] = self.argument_rejections.get(name, 0) + 1
        return self.argument_rejections[name]

    def _reply(self, turn: int, call: ToolCallRequest, outcome: CallOutcome, reason: str, error: dict[str, Any], log: Any,
               *, shadow_of: str | None = None, started: float | None = None, attempts: int = 0) -> ToolOutcome:
        ledger_id = self._record(turn, call, outcome, reason, detail=error["detail"], shadow_of=shadow_of,
                                 started=started, attempts=attempts, result=error)
        log.warning("tool.finished", outcome=str(outcome), reason=reason, detail=error["detail"])
        return ToolOutcome(outcome, json.dumps(error, ensure_ascii=False), ledger_id)

    def _record(self, turn: int, call: ToolCallRequest, outcome: CallOutcome, reason: str | None, *,
                result: dict[str, Any] | None = None, detail: str | None = None, shadow_of: str | None = None,
                started: float | None = None, attempts: int = 0, key: str | None = None,
                error_class: str | None = None) -> int:
        latency = int((time.monotonic() - started) * 1000) if started is not None else 0
        return self.journal.call(CallRecord(
            turn=turn, call_id=call.id, name=call.name[:200], arguments=call.arguments, outcome=outcome, reason=reason,
            shadow_of=shadow_of, result=result, error_class=error_class, detail=detail, attempts=attempts,
            latency_ms=latency, idempotency_key=key,
        ))
