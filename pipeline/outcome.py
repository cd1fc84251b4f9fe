"""How a run ends and what it records, as types: the bottom of the pipeline's layers (imports nothing of it).

    Verdict       the run's verdict, stored in runs.verdict; ``exit_code`` is the CLI's exit code for it
    CallOutcome   a tool_calls row's outcome (ok, rejected, failed, dedup)
    EventKind     a run_events row's kind; NudgeKind a nudge's; FindingKind a claims row's
    Finding       one thing the guard found in the model's text, recorded as a claims row
    StopRun       the one way to stop a run: it carries the Verdict the run ends with

The enums are ``StrEnum``: a member *is* its string, so the values stored in the ledger, the JSON
of ``factline runs --json`` and comparisons with plain strings are what they were before the types.

Exceptions (one tree; the model client, the gateway, the budget and the guard raise subclasses or
instances of StopRun at their own boundary, so the run loop has one except clause for them all):

    Interrupted (a BaseException, like KeyboardInterrupt)   SIGINT or SIGTERM arrived: the run ends `interrupted`
    PipelineError
    └── StopRun                 verdict, reason (a short code), detail (one line)
        ├── LLMError            pipeline.model: auth_failed / unavailable / error
        └── AgentHallucinationError   pipeline.guard: hallucinated, the nudges are spent
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from enum import StrEnum


class Verdict(StrEnum):
    """A run's verdict, judged from the ledger (pipeline.ledger.queries.judge) or set by a stop rule."""

    success = "success"
    previewed = "previewed"  # factline run --dry-run: drafted, humanized and rendered to var/preview/, nothing published
    error = "error"
    interrupted = "interrupted"
    hallucinated = "hallucinated"
    unverified = "unverified"
    unavailable = "unavailable"
    incomplete = "incomplete"
    budget = "budget"
    loop = "loop"
    auth_failed = "auth_failed"
    awaiting_review = "awaiting_review"  # REVIEW=required/flagged: stopped before publish, waits for an editor
    rejected = "rejected"  # an editor rejected the article (factline review reject): nothing was published
    expired = "expired"  # no editor decided within REVIEW_EXPIRE_HOURS: nothing was published

    @property
    def exit_code(self) -> int:
        """The exit code of `factline run` for this verdict (docs/architecture.md, "Verdicts and exit codes")."""
        return EXIT_CODES[self]


EXIT_CODES: dict[Verdict, int] = {
    Verdict.success: 0,
    Verdict.previewed: 0,
    Verdict.error: 1,
    Verdict.interrupted: 130,
    Verdict.hallucinated: 3,
    Verdict.unverified: 4,
    Verdict.unavailable: 4,
    Verdict.incomplete: 4,
    Verdict.budget: 5,
    Verdict.loop: 5,
    Verdict.auth_failed: 6,
    Verdict.awaiting_review: 0,
    Verdict.rejected: 0,
    Verdict.expired: 4,
}
"""Beside the enum, complete: 2 (usage/config) is the CLI's own. ``interrupted`` is 130, the shell's code for
Ctrl-C (128 + SIGINT); a run stopped by SIGTERM exits 143 (128 + SIGTERM): ``Interrupted.exit_code``."""


class RunStatus(StrEnum):
    queued = "queued"  # EXECUTOR=celery: a tick claimed by the scheduler, waiting for a worker
    running = "running"
    finished = "finished"
    interrupted = "interrupted"
    awaiting_review = "awaiting_review"  # held before publish for an editor; it keeps its topic
    approved = "approved"  # an editor approved it; the publish is owed, no process is on it yet


HOLDS_TOPIC = (RunStatus.running, RunStatus.awaiting_review, RunStatus.approved)
"""The statuses in which a run owns its topic (the partial unique index uq_runs_running_topic)."""
CLOSED = (RunStatus.finished, RunStatus.interrupted)
"""The statuses of a run that has ended (its verdict set, nothing owed)."""


class ReviewAction(StrEnum):
    """A reviews row's action (pipeline.ledger.reviews): the request, and every editor's attempt."""

    requested = "requested"  # the gate held the run before publish
    approve = "approve"
    reject = "reject"
    expire = "expire"  # REVIEW_EXPIRE_HOURS passed without a decision


class IntentStatus(StrEnum):
    """A row of the publication outbox (pipeline.ledger.models.PublicationIntent)."""

    pending = "pending"  # written before the request to the target; the outcome not yet known
    published = "published"  # the target holds it; the publications row exists


class CallOutcome(StrEnum):
    """What became of one tool call the model emitted."""

    ok = "ok"  # executed and succeeded
    rejected = "rejected"  # not executed: unknown name, schema, business validation
    failed = "failed"  # executed (or attempted) and failed
    dedup = "dedup"  # identical to an earlier successful call of this run: answered with that call's result
    held = "held"  # valid, not executed: the review gate stopped the run before it (pipeline.review)


class EventKind(StrEnum):
    tool_retry = "tool_retry"
    llm_retry = "llm_retry"
    escalation = "escalation"  # a capability (or the LLM endpoint) stayed down past the retry cap
    stop = "stop"  # a stop rule fired (StopRun): its verdict, reason and detail
    resumed = "resumed"  # EXECUTOR=celery: a worker continued this run after its worker died (host, pid)
    review = "review"  # an editor's decision was carried out on this run (approved: the publish continues)


class NudgeKind(StrEnum):
    hallucination = "hallucination"
    continue_ = "continue"


class FindingKind(StrEnum):
    claim = "claim"  # the text asserts a capability completed
    ungrounded = "ungrounded"  # a URL, registration number or score that no tool result of the run holds
    prose_call = "prose_call"  # a tool call written as text


@dataclass(frozen=True)
class Finding:
    """One thing the guard read in the model's text; ``backed`` tells whether the ledger supports it."""

    kind: FindingKind
    capability: str | None
    span: str
    backed: bool


class PipelineError(Exception):
    """Base of errors raised by the pipeline itself."""


class StopRun(PipelineError):
    """Stop the run now; it ends with ``verdict``. ``reason`` is a short code, ``detail`` one line for people."""

    def __init__(self, verdict: Verdict, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.verdict, self.reason, self.detail = Verdict(verdict), reason, detail


class Interrupted(BaseException):
    """SIGINT (Ctrl-C) or SIGTERM arrived; raised in the main thread by the signal
    handlers of `factline run` (pipeline.commands.run).

    A BaseException, as KeyboardInterrupt is, so that no ``except Exception`` on the way swallows it: it
    reaches the run's ``finally``, which closes the run row as ``interrupted``. ``exit_code`` is the shell's
    convention, 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM).
    """

    def __init__(self, signum: int) -> None:
        self.signal = signal.Signals(signum)
        super().__init__(self.signal.name)

    @property
    def exit_code(self) -> int:
        return 128 + self.signal.value



def one_line(exc: BaseException) -> str:
    """An exception as one line for people and the ledger: its class and the first line of its message."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0][:300]}" if lines else type(exc).__name__
