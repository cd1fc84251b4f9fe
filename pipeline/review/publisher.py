"""An approved run, continued: publish exactly the approved version, register, report. No model is involved.

The three calls pass the run's gateway like the model's would, as tool calls of the same run numbered on
after its turns, so the ledger, ``factline diff``, the report and the dashboard read them as they read any
call, and the run's verdict is judged from its rows (``success`` needs the verified registration and the
report after it). Publish and register replay by idempotency key: a continuation after its process died
(pipeline.ledger.runs.return_orphans) finds the post the dead one made (the outbox's lookup) and the
registration it made, and makes neither twice.

The caller has taken the run (``approved -> running``, pipeline.ledger.runs.take_approved): the CLI in
its own process, a Celery worker on its thread.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from loguru import logger

from capabilities import CATALOG
from capabilities.base import CapabilityContext
from capabilities.errors import ToolFailed
from pipeline.gateway.budget import RunBudget, RunUsage
from pipeline.gateway.dispatch import Gateway
from pipeline.ledger import reviews, runs
from pipeline.ledger.journal import RunJournal
from pipeline.ledger.outbox import settle_outbox
from pipeline.ledger.queries import judge, unverified_reason
from pipeline.ledger.store import LedgerStore
from pipeline.outcome import CallOutcome, EventKind, Interrupted, StopRun, Verdict, one_line
from pipeline.runtime import Publisher
from pipeline.turns import ToolCallRequest

STEPS = ("publish", "register", "report")


@dataclass(frozen=True)
class Continued:
    run_id: int
    verdict: Verdict
    seconds: float
    error: str | None

    @property
    def exit_code(self) -> int:
        return self.verdict.exit_code


class NoTextModel:
    """A continued run writes nothing: its text was written, reviewed and approved before."""

    def complete(self, system: str, prompt: str) -> str:
        raise ToolFailed("an approved run writes no text")


def continue_approved(rt: Publisher, run_id: int) -> Continued:
    """Publish what the editor approved in run ``run_id`` (taken by this process), then register and report."""
    started = time.monotonic()
    with logger.contextualize(run_id=run_id, pipeline=rt.settings.pipeline):
        journal = RunJournal(rt.sessions, run_id, rt.redact)
        with rt.sessions() as s:
            version_id = reviews.approved_version(s, run_id)
        assert version_id is not None, f"run {run_id} has no accepted approval"
        journal.event(EventKind.review, action="continue", version_id=version_id)
        logger.info("review.continue", version_id=version_id)
        rt.deadline.start(rt.settings.run_max_seconds)
        stop_verdict, stop_reason, error = None, None, None
        try:
            settle_outbox(rt.sessions, rt.target, rt.settings.pipeline)
            _publish_register_report(rt, journal, version_id)
        except StopRun as stop:
            journal.event(EventKind.stop, verdict=stop.verdict, reason=stop.reason, detail=stop.detail)
            stop_verdict, stop_reason, error = stop.verdict, stop.reason, stop.detail
        except (Interrupted, KeyboardInterrupt):  # the publish is still owed: back to approved, for the next start
            with rt.sessions.begin() as s:
                runs.give_back(s, run_id)
            raise
        except Exception as exc:
            stop_verdict, stop_reason, error = Verdict.error, "crash", one_line(exc)
            logger.error("review.crashed", error=rt.redact(error))
            journal.event(EventKind.stop, verdict=Verdict.error, reason="crash", detail=error)
        finally:
            rt.deadline.clear()
        with rt.sessions() as s:
            verdict = judge(s, run_id, stop_verdict)
            if verdict == Verdict.unverified and error is None:
                error = unverified_reason(s, run_id)
        journal.finish(verdict=verdict, stop_reason=stop_reason, error=error)
        seconds = time.monotonic() - started
        logger.info("run.finished", verdict=verdict, seconds=round(seconds, 2), reason=stop_reason)
        return Continued(run_id, verdict, seconds, rt.redact(error) if error else None)


def _publish_register_report(rt: Publisher, journal: RunJournal, version_id: int) -> None:
    """The three calls, each through the gateway; a step that does not succeed ends the sequence there."""
    store = LedgerStore(rt.sessions, journal.run_id, rt.settings.pipeline)
    ctx = CapabilityContext(run_id=journal.run_id, settings=rt.settings, store=store, http=rt.http,
                            page_http=rt.page_http, text_model=NoTextModel(), target=rt.target)
    usage = RunUsage(RunBudget.from_settings(rt.settings))
    gateway = Gateway({name: CATALOG[name] for name in STEPS}, ctx, journal, usage, rt.policy)
    turn = journal.last_turn() + 1
    arguments: dict[str, Any] = {"version_id": version_id}
    for step in STEPS:
        call = ToolCallRequest(f"review-{journal.run_id}-{step}", step, json.dumps(arguments))
        outcome = gateway.dispatch(turn, call)
        if outcome.status != CallOutcome.ok:
            logger.warning("review.step_failed", step=step, detail=outcome.content[:300])
            return
        result = json.loads(outcome.content)
        arguments = {"publication_id": result["publication_id"]} if step == "publish" else {}
