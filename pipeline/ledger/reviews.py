"""The review gate in the ledger: a run held before publish, and every editor's decision on it.

    running --gate--> awaiting_review --approve--> approved --taken--> running --> finished (success, ...)
                                      --reject---> finished (rejected)     the topic stays held unless --requeue
                                      --expire---> finished (expired)      REVIEW_EXPIRE_HOURS after the request

Each decision is one compare-and-set UPDATE on ``runs.status = 'awaiting_review'`` taken under the
run's writer lock (pipeline.ledger.locks), so two editors, two terminals or an editor and the expiry can
never both win. Every attempt, won or lost, is a ``reviews`` row with who and when; the loser gets one
line saying who decided first. The runs row's moves are pipeline.ledger.runs' (its life cycle); this module
keeps the reviews rows. A run taken to publish whose process died goes back to ``approved``
(``runs.return_orphans``), so the publish the editor approved is owed until it is done, never lost or doubled
(publish and register replay by idempotency key).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import partial

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from pipeline.ledger import runs
from pipeline.ledger.locks import writer_lock
from pipeline.ledger.models import Claim, DraftVersion, FactCheck, Nudge, Review, Run, Topic
from pipeline.outcome import NudgeKind, ReviewAction, RunStatus, Verdict

REVIEWED_STEP = "publish"  # the capability the gate holds: nothing reaches the target before a decision


@dataclass(frozen=True)
class Decision:
    """What became of an editor's attempt: ``accepted``, and one line for the editor either way."""

    accepted: bool
    line: str
    run_id: int
    version_id: int | None = None


@dataclass(frozen=True)
class Pending:
    """A run waiting for an editor, as ``factline review list`` and the dashboard show it."""

    run_id: int
    pipeline: str
    title: str
    topic: str
    requested_at: datetime
    version_id: int
    preview: str | None
    flags: list[str]
    fact_check: str = ""


def now() -> datetime:
    return datetime.now(timezone.utc)


def aware(when: datetime) -> datetime:
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when


def run_flags(s: Session, run_id: int) -> list[str]:
    """What the guard found in this run that the ledger did not back (each once), and its hallucination nudges.

    A fact check (issue #22) that failed or warned on the run's latest checked version flags it too: this is
    the one place "flagged" is read.
    """
    flags = [f"{kind}: {capability or span[:80]}" for kind, capability, span in s.execute(
        select(Claim.kind, Claim.capability, Claim.span).where(Claim.run_id == run_id, Claim.backed.is_(False))
        .order_by(Claim.id))]
    nudges = s.scalar(select(Nudge.id).where(Nudge.run_id == run_id, Nudge.kind == NudgeKind.hallucination).limit(1))
    if nudges is not None:
        flags.append("the guard nudged the model for a false claim")
    check = last_fact_check(s, run_id)
    if check is not None and check.status in ("failed", "warned"):
        flags.append(f"fact check {check.status}: {check.detail or ''}".rstrip(": "))
    return list(dict.fromkeys(flags))


def last_fact_check(s: Session, run_id: int) -> FactCheck | None:
    return s.scalars(select(FactCheck).where(FactCheck.run_id == run_id).order_by(FactCheck.id.desc()).limit(1)).first()


def fact_check_line(s: Session, run_id: int) -> str:
    """The run's latest fact check in one line, as the editor reads it."""
    check = last_fact_check(s, run_id)
    if check is None:
        return "no fact check recorded"
    return f"{check.status} ({check.mode}, {check.facts} facts, {check.unsupported} unsupported)" + (
        f": {check.detail}" if check.detail else "")


def request_review(s: Session, run_id: int, version_id: int, preview: str | None, flags: list[str]) -> None:
    """The gate's request: the version held, its preview page and why it waits (the run closes awaiting_review)."""
    s.add(Review(run_id=run_id, action=ReviewAction.requested, accepted=True, version_id=version_id,
                 preview=preview, detail="; ".join(flags) or None, requeue=False))


def requested(s: Session, run_id: int) -> Review | None:
    return s.scalars(select(Review).where(Review.run_id == run_id, Review.action == ReviewAction.requested)
                     .order_by(Review.id.desc()).limit(1)).first()


def decision_of(s: Session, run_id: int) -> Review | None:
    """The accepted decision on a run (approve, reject or expire), if there is one."""
    return s.scalars(select(Review).where(
        Review.run_id == run_id, Review.accepted.is_(True),
        Review.action.in_((ReviewAction.approve, ReviewAction.reject, ReviewAction.expire)))
        .order_by(Review.id).limit(1)).first()


def _when(at: datetime) -> str:
    return aware(at).strftime("%Y-%m-%d %H:%M:%S UTC")


def why_not(s: Session, run: Run) -> str:
    """One line: why a decision on ``run`` is no longer possible (who decided first, and when)."""
    first = decision_of(s, run.id)
    if first is None:
        return f"run {run.id} is not awaiting review (status {run.status}, verdict {run.verdict or '-'})"
    who = f" by {first.editor}" if first.editor else ""
    match first.action:
        case ReviewAction.approve:
            state = "published" if run.verdict == Verdict.success else f"now {run.status}"
            return f"run {run.id} was already approved{who} at {_when(first.created_at)} ({state})"
        case ReviewAction.reject:
            return f"run {run.id} was rejected{who} at {_when(first.created_at)}: {first.reason}"
        case _:
            return f"run {run.id} expired at {_when(first.created_at)} without a decision"


def _decide(s: Session, run_id: int, action: ReviewAction, editor: str | None,
            transition: Callable[[Session, int], bool], **row: object) -> Decision:
    """The compare-and-set on ``awaiting_review`` (``transition``, pipeline.ledger.runs) and the reviews row of
    the attempt, won or lost.

    The caller's transaction began with ``writer_lock`` (``lock``), so the run's state is read and written
    by one writer."""
    run = s.get(Run, run_id)
    if run is None:
        raise LookupError(f"no run {run_id} in the ledger")
    won = transition(s, run_id)
    s.refresh(run)
    line = "" if won else why_not(s, run)
    s.add(Review(run_id=run_id, action=action, accepted=won, editor=editor, detail=line or None,
                 requeue=bool(row.pop("requeue", False)), **row))
    return Decision(won, line, run_id, row.get("version_id"))  # type: ignore[arg-type]


def lock(s: Session, run_id: int) -> None:
    """The first statement of a transaction that decides on ``run_id``: one decider at a time."""
    writer_lock(s, f"review:{run_id}")


def approve(s: Session, run_id: int, editor: str | None, version_id: int | None = None, *,
            take: bool = False) -> Decision:
    """awaiting_review -> approved, publishing ``version_id`` (an edit) or the version held.

    ``take``: this process publishes it (the inline executor), so the run goes straight to ``running``, owned
    by this process, in the same compare-and-set: no moment in which another process could take it for owed.
    """
    lock(s, run_id)
    held = requested(s, run_id)
    chosen = version_id or (held.version_id if held else None)
    decision = _decide(s, run_id, ReviewAction.approve, editor, partial(runs.approve, take=take), version_id=chosen)
    if decision.accepted:
        return Decision(True, f"run {run_id} approved{f' by {editor}' if editor else ''}: publishing version "
                              f"{chosen}", run_id, chosen)
    return decision


def reject(s: Session, run_id: int, editor: str | None, reason: str, requeue: bool) -> Decision:
    """awaiting_review -> finished (rejected): nothing published; the topic is freed only with ``requeue``."""
    lock(s, run_id)
    close = partial(runs.close_review, verdict=Verdict.rejected, stop_reason="rejected",
                    error=f"rejected{f' by {editor}' if editor else ''}: {reason}")
    decision = _decide(s, run_id, ReviewAction.reject, editor, close, reason=reason, requeue=requeue)
    if decision.accepted:
        freed = "its topic goes back to the queue" if requeue else "its topic is not picked again"
        return Decision(True, f"run {run_id} rejected{f' by {editor}' if editor else ''}: nothing published; {freed}",
                        run_id)
    return decision


def expire_due(s: Session, pipeline: str, hours: float) -> list[int]:
    """Close the pipeline's runs awaiting review longer than ``hours`` as expired; their ids."""
    cutoff = now() - timedelta(hours=hours)
    due = []
    for run_id, at in s.execute(select(Run.id, Review.created_at).join(Review, Review.run_id == Run.id).where(
            Run.pipeline == pipeline, Run.status == RunStatus.awaiting_review,
            Review.action == ReviewAction.requested)):
        if aware(at) < cutoff:
            due.append(run_id)
    expired = []
    for run_id in due:
        if runs.close_review(s, run_id, verdict=Verdict.expired, stop_reason="review_expired",
                             error=f"no editor decided within REVIEW_EXPIRE_HOURS ({hours:g} h)"):
            s.add(Review(run_id=run_id, action=ReviewAction.expire, accepted=True, requeue=True,
                         detail=f"waited more than {hours:g} h"))
            expired.append(run_id)
    return expired


def approved_version(s: Session, run_id: int) -> int | None:
    """The version an accepted approval names: what the continued run publishes."""
    first = decision_of(s, run_id)
    return first.version_id if first is not None and first.action == ReviewAction.approve else None


def owed(s: Session, pipeline: str) -> list[int]:
    """The pipeline's approved runs no process is publishing (not sent to Celery workers)."""
    return list(s.scalars(select(Run.id).where(Run.pipeline == pipeline, Run.status == RunStatus.approved,
                                               Run.sent_at.is_(None)).order_by(Run.id)))



def pending(s: Session, pipeline: str | None = None) -> list[Pending]:
    """Runs awaiting review, oldest first, with their title, topic, preview and flags."""
    query = (select(Run, Review, DraftVersion, Topic).join(Review, and_(
        Review.run_id == Run.id, Review.action == ReviewAction.requested))
        .join(DraftVersion, DraftVersion.id == Review.version_id).join(Topic, Topic.id == Run.topic_id)
        .where(Run.status == RunStatus.awaiting_review).order_by(Review.created_at, Run.id))
    if pipeline is not None:
        query = query.where(Run.pipeline == pipeline)
    seen: set[int] = set()
    found = []
    for run, review, version, topic in s.execute(query).tuples():
        if run.id in seen:
            continue
        seen.add(run.id)
        found.append(Pending(run.id, run.pipeline, version.title, topic.title, aware(review.created_at), version.id,
                             review.preview, review.detail.split("; ") if review.detail else [],
                             fact_check_line(s, run.id)))
    return found


def attempts(s: Session, run_id: int) -> list[Review]:
    """Every reviews row of a run, oldest first (the audit trail: requests, decisions, refused attempts)."""
    return list(s.scalars(select(Review).where(Review.run_id == run_id).order_by(Review.id)))


def rejected_topics(s: Session, pipeline: str) -> set[int]:
    """Topics of runs an editor rejected without --requeue: never picked again."""
    return set(s.scalars(select(Run.topic_id).join(Review, Review.run_id == Run.id).where(
        Run.pipeline == pipeline, Run.topic_id.is_not(None), Review.action == ReviewAction.reject,
        Review.accepted.is_(True), Review.requeue.is_(False))))
