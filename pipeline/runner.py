"""One run of the pipeline: the agent loop, judged by the ledger.

    open a runs row -> loop { budget check -> model turn -> gateway per call -> guard -> decide } -> verdict

The loop ends when business state says the job is done (a report after a verified registration)
or a stop rule fires. "The model stopped calling tools" is never success by itself.

A dry run (``factline run --dry-run``) offers the model only the steps before the first with a side effect
(pipeline.catalog.preview_steps: pick_topic, write_draft, humanize), is done once the last of them has made
its version, and renders that version to PREVIEW_DIR as the page it would be: nothing is published or
registered, and the ledger's run row says ``dry_run``.

The chain a run walks is its runtime's catalog (``Runtime.catalog``, capabilities.CATALOG).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from loguru import logger
from sqlalchemy.exc import IntegrityError

from capabilities.base import Capability, CapabilityContext
from pipeline.catalog import USER_PROMPT, preview_kind, preview_steps, system_prompt, tool_schemas
from pipeline.gateway.budget import RunBudget, RunUsage
from pipeline.gateway.dispatch import Gateway
from pipeline.guard import CONTINUE_NUDGE, AgentHallucinationError, Evidence, inspect, nudge_text
from pipeline.ledger import reviews, runs
from pipeline.ledger.journal import RunJournal
from pipeline.ledger.outbox import settle_outbox
from pipeline.ledger.queries import is_done, judge, latest_version, unverified_reason
from pipeline.ledger.store import LedgerStore
from pipeline.model import ChatModel, LLMUnavailable, make_chat_model
from pipeline.review.gate import ReviewGate
from pipeline.review.preview import render_preview
from pipeline.outcome import (
    CallOutcome,
    EventKind,
    Finding,
    FindingKind,
    Interrupted,
    NudgeKind,
    PipelineError,
    StopRun,
    Verdict,
    one_line,
)
from pipeline.runtime import Runtime
from pipeline.tracing import NO_SPAN
from pipeline.turns import Turn


class TickAlreadyClaimed(PipelineError):
    """Another replica already holds the run of this scheduled tick."""


@dataclass(frozen=True)
class RunResult:
    run_id: int
    verdict: Verdict
    seconds: float
    stop_reason: str | None
    error: str | None
    preview: Path | None = None  # a dry run's page, rendered to PREVIEW_DIR

    @property
    def exit_code(self) -> int:
        return self.verdict.exit_code


@dataclass(frozen=True)
class RunAgain:
    message: str | None  # a user message to add before the next turn, if any


@dataclass(frozen=True)
class Finished:
    pass


class AgentLoop:
    """The decisions of one run, as named steps."""

    def __init__(self, runtime: Runtime, journal: RunJournal, llm: ChatModel, gateway: Gateway, usage: RunUsage,
                 cancel: threading.Event, catalog: Mapping[str, Capability[Any, Any]], preview: str | None) -> None:
        self.rt, self.journal, self.llm, self.gateway, self.usage, self.cancel = runtime, journal, llm, gateway, usage, cancel
        self.settings = runtime.settings
        self.preview = preview  # a dry run: the version kind it previews
        self.tools = tool_schemas(catalog)
        self.missing = ("verified registration and report" if "register" in catalog
                        else f"a {list(catalog)[-1]} result")  # what a continue prompt says is missing
        self.nudges = 0
        self.continues = 0
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": system_prompt(catalog, self.settings.language)},
            {"role": "user", "content": USER_PROMPT}]

    def run(self) -> None:
        turn_no = self.journal.last_turn()  # a continued run numbers its turns on
        while True:
            self._check_cancel()
            self.usage.check_before_turn()
            turn_no += 1
            turn = self.llm.next_turn(self.messages, self.tools)
            self.usage.tokens += turn.tokens
            self.journal.turn(turn_no, turn.text, len(turn.calls), turn.tokens, tokens_used=self.usage.tokens)
            self.messages.append(turn.message)
            ok_calls = self._dispatch_all(turn_no, turn)
            match self._decide(turn_no, turn, ok_calls):
                case RunAgain(message=None):
                    continue
                case RunAgain(message=text):
                    self.messages.append({"role": "user", "content": text})
                case Finished():
                    return

    def _check_cancel(self) -> None:
        if self.cancel.is_set():
            raise StopRun(Verdict.interrupted, "signal", "stop requested; no further steps started")

    def _dispatch_all(self, turn_no: int, turn: Turn) -> int:
        ok = 0
        for call in turn.calls:
            self._check_cancel()
            outcome = self.gateway.dispatch(turn_no, call)
            ok += outcome.status == CallOutcome.ok
            self.messages.append(self.llm.tool_result_message(call, outcome.content))
        return ok

    def _decide(self, turn_no: int, turn: Turn, ok_calls: int) -> RunAgain | Finished:
        if ok_calls:
            self.nudges = 0
        if self.settings.agent_hallucination_guard and turn.text.strip():
            if nudge := self._guard(turn_no, turn.text):
                return nudge
        with self.rt.sessions() as s:
            if is_done(s, self.journal.run_id, self.preview):
                return Finished()
        if turn.calls:
            return RunAgain(None)
        if self.continues < self.settings.agent_max_continue_prompts:
            self.continues += 1
            missing = self.missing
            self.journal.nudge(turn_no, NudgeKind.continue_, missing)
            logger.info("run.continue_prompt", count=self.continues)
            return RunAgain(CONTINUE_NUDGE.format(missing=missing))
        return Finished()

    def _guard(self, turn_no: int, text: str) -> RunAgain | None:
        called = self.journal.called()
        catalog = self.rt.catalog  # the whole chain: a dry run's text is read against every tool
        findings = inspect(text, Evidence.from_results(called, self.journal.results(), catalog), set(catalog))
        if findings:
            self.journal.claims(turn_no, findings)
        unbacked: list[Finding] = [f for f in findings if not f.backed]
        if not unbacked:
            return None
        claimed = {f.capability for f in findings if f.kind == FindingKind.claim and f.capability}
        if self.nudges >= self.settings.agent_hallucination_max_nudges:
            logger.error("run.hallucinated", claimed=sorted(claimed), called=sorted(called))
            raise AgentHallucinationError(claimed, called, unbacked)
        self.nudges += 1
        detail = ", ".join(sorted({f"{f.kind}:{f.capability or f.span}" for f in unbacked}))
        self.journal.nudge(turn_no, NudgeKind.hallucination, detail)
        logger.warning("hallucination_detected", hallucinated=detail, nudge=self.nudges,
                       max_nudges=self.settings.agent_hallucination_max_nudges)
        return RunAgain(nudge_text(unbacked))


def run_once(
    runtime: Runtime,
    *,
    trigger: str = "manual",
    scheduled_for: datetime | None = None,
    topic: str | None = None,
    cancel: threading.Event | None = None,
    sleep: Callable[[float], None] = time.sleep,
    run_id: int | None = None,
    dry_run: bool = False,
) -> RunResult:
    """Run the pipeline once and return its verdict, judged from the ledger.

    ``run_id`` continues a run that is already open (a tick claimed by the scheduler and taken by a
    Celery worker, perhaps after another worker died in it): its rows stay, its calls go on numbering,
    and the idempotency keys replay what it already did. ``dry_run`` previews instead of publishing.
    """
    started = time.monotonic()
    tracing = runtime.tracing
    if run_id is None:
        trace_id = tracing.new_trace_id()
        run_id = _open_run(runtime, trigger, scheduled_for, dry_run, trace_id)
        journal = RunJournal(runtime.sessions, run_id, runtime.redact, tracing)
    else:  # a continued run stays in the trace it began
        journal = RunJournal(runtime.sessions, run_id, runtime.redact, tracing)
        trace_id = journal.trace_id(tracing.new_trace_id())
    bound = {"run_id": run_id, "pipeline": runtime.settings.pipeline} | ({"trace_id": trace_id} if trace_id else {})
    with logger.contextualize(**bound), tracing.run(trace_id, _run_attributes(runtime, run_id, trigger, dry_run)):
        logger.info("run.started", trigger=trigger, model=runtime.endpoint.model, mode=runtime.endpoint.mode)
        runtime.deadline.start(runtime.settings.run_max_seconds)  # enforced in flight by every HTTP client
        catalog = preview_steps(runtime.catalog) if dry_run else runtime.catalog
        kind = preview_kind(runtime.catalog) if dry_run else None
        preview = None
        try:  # every way out closes the run row: a stop rule, a crash, a signal
            if not dry_run:  # a preview sends nothing to the target; settling is for runs that publish
                settle_outbox(runtime.sessions, runtime.target, runtime.settings.pipeline)
            loop = _agent_loop(runtime, journal, topic, cancel, sleep, catalog, kind)
            stop = _run_loop(loop, journal)
            if kind is not None and stop is None:
                preview = _render_preview(runtime, journal.run_id, kind)
        except (Interrupted, KeyboardInterrupt) as exc:
            name = exc.signal.name if isinstance(exc, Interrupted) else "SIGINT"
            detail = f"{name} arrived during a step; stopped there"
            journal.event(EventKind.stop, verdict=Verdict.interrupted, reason="signal", detail=detail)
            _close(runtime, journal, StopRun(Verdict.interrupted, "signal", detail), kind)
            logger.warning("run.interrupted", signal=name)
            raise
        except Exception as exc:
            stop = StopRun(Verdict.error, "crash", one_line(exc))
            logger.error("run.crashed", error=runtime.redact(stop.detail))
            logger.opt(exception=exc).debug("run.crashed.traceback")
            journal.event(EventKind.stop, verdict=Verdict.error, reason="crash", detail=stop.detail)
        finally:
            runtime.deadline.clear()
        verdict, error = _close(runtime, journal, stop, kind)
        seconds = time.monotonic() - started
        reason = stop.reason if stop else None
        logger.info("run.finished", verdict=verdict, seconds=round(seconds, 2), reason=reason)
        return RunResult(run_id, verdict, seconds, reason, runtime.redact(error) if error else None,
                         preview if verdict == Verdict.previewed else None)


def _run_attributes(runtime: Runtime, run_id: int, trigger: str, dry_run: bool) -> dict[str, Any]:
    """The invoke_agent span's attributes: the run as the ledger names it."""
    return {"gen_ai.agent.name": runtime.settings.pipeline, "gen_ai.conversation.id": str(run_id),
            "gen_ai.request.model": runtime.endpoint.model, "factline.run.id": run_id,
            "factline.pipeline": runtime.settings.pipeline, "factline.mode": runtime.endpoint.mode,
            "factline.trigger": trigger, "factline.dry_run": dry_run}


def _agent_loop(runtime: Runtime, journal: RunJournal, topic: str | None, cancel: threading.Event | None,
                sleep: Callable[[float], None], catalog: Mapping[str, Capability[Any, Any]],
                preview: str | None) -> AgentLoop:
    """The run's loop with its model, gateway and budget, wired to the journal; ``catalog`` the tools it offers."""
    usage = RunUsage(RunBudget.from_settings(runtime.settings))
    usage.tokens = journal.tokens_used()

    def on_tokens(n: int) -> None:  # a capability's completion (an agent turn's tokens are charged by the loop)
        usage.tokens += n
        journal.tokens(usage.tokens)

    def on_llm_retry(attempt: int, wait: float, exc: Exception) -> None:
        logger.warning("llm.retry", attempt=attempt, wait=round(wait, 3), detail=str(exc))
        journal.event(EventKind.llm_retry, attempt=attempt, wait=round(wait, 3), detail=str(exc))

    llm = make_chat_model(runtime.openai_client, runtime.endpoint, runtime.settings, sleep=sleep,
                          on_retry=on_llm_retry, on_tokens=on_tokens, deadline=runtime.deadline,
                          tracing=runtime.tracing)
    store = LedgerStore(runtime.sessions, journal.run_id, runtime.settings.pipeline, runtime.tracing)
    ctx = CapabilityContext(run_id=journal.run_id, settings=runtime.settings, store=store,
                            http=runtime.http, page_http=runtime.page_http, text_model=llm, target=runtime.target, forced_topic=topic)
    gate = ReviewGate(runtime.settings, runtime.sessions, journal.run_id) if runtime.settings.review != "none" else None
    gateway = Gateway(dict(catalog), ctx, journal, usage, runtime.policy, sleep=sleep, hold=gate)
    return AgentLoop(runtime, journal, llm, gateway, usage, cancel or threading.Event(), catalog, preview)


def _close(runtime: Runtime, journal: RunJournal, stop: StopRun | None,
           preview: str | None) -> tuple[Verdict, str | None]:
    """Judge the run from the ledger and close its row (status, verdict, reason, error): the one place.

    ``stop`` is how the loop stopped (None: it finished). An unverified run's error is what the checks of its
    pages found ("page holds 61% of the article")."""
    stop_reason, error = (stop.reason, stop.detail) if stop else (None, None)
    with runtime.sessions() as s:
        verdict = judge(s, journal.run_id, stop.verdict if stop else None, preview)
        if verdict == Verdict.unverified and error is None:
            error = unverified_reason(s, journal.run_id)
    journal.finish(verdict=verdict, stop_reason=stop_reason, error=error)
    span = journal.tracing.current()  # the run's invoke_agent span
    if span is not NO_SPAN:
        span.set({"factline.verdict": str(verdict), "factline.stop_reason": stop_reason,
                  "factline.tokens_used": journal.tokens_used()})
        if verdict not in (Verdict.success, Verdict.previewed):
            span.fail(str(verdict), error or "")
    return verdict, error


def _render_preview(runtime: Runtime, run_id: int, kind: str) -> Path | None:
    """The page the run's latest version of ``kind`` would be, in PREVIEW_DIR (the local site's layout, whatever
    the target); None when the run made no such version."""
    with runtime.sessions() as s:
        version_id = latest_version(s, run_id, kind)
    store = LedgerStore(runtime.sessions, run_id, runtime.settings.pipeline)
    path = render_preview(runtime.settings, store, version_id, f"run-{run_id}") if version_id is not None else None
    if path is None:
        return None
    logger.info("run.previewed", path=str(path))
    return path


def _open_run(runtime: Runtime, trigger: str, scheduled_for: datetime | None, dry_run: bool = False,
              trace_id: str | None = None) -> int:
    try:
        with runtime.sessions.begin() as s:
            runs.interrupt_stale_runs(s)
            runs.return_orphans(s)
            reviews.expire_due(s, runtime.settings.pipeline, runtime.settings.review_expire_hours)
            return runs.open_run(s, trigger=trigger, scheduled_for=scheduled_for,
                                           pipeline=runtime.settings.pipeline, stamp=runtime.stamp, dry_run=dry_run,
                                           trace_id=trace_id)
    except IntegrityError as exc:
        raise TickAlreadyClaimed(f"tick {scheduled_for} is already claimed") from exc


def _run_loop(loop: AgentLoop, journal: RunJournal) -> StopRun | None:
    """Run the loop; every way it can stop is a StopRun, recorded and returned; None when it finished."""
    try:
        loop.run()
        return None
    except StopRun as stop:
        if isinstance(stop, LLMUnavailable):
            journal.event(EventKind.escalation, tool="llm", detail=stop.detail)
        journal.event(EventKind.stop, verdict=stop.verdict, reason=stop.reason, detail=stop.detail)
        logger.warning("run.stopped", verdict=str(stop.verdict), reason=stop.reason, detail=stop.detail)
        return stop
