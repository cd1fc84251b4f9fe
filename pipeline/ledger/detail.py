"""One run's whole record, read from the ledger into frozen dataclasses: what the CLI, metrics, alerts
and the daemon read, and what `factline runs --run N --json` prints (``RunDetail.as_json``).

Times are timezone-aware UTC (SQLite hands them back naive; they were written in UTC).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pipeline.ledger.models import (Claim, FactCheck, FactCheckItem, Nudge, Publication, Registration, Run, RunEvent,
                                   Source, ToolCall)
from pipeline.ledger.queries import run_publication_ids
from pipeline.outcome import CallOutcome, EventKind, FindingKind, NudgeKind, RunStatus, Verdict


@dataclass(frozen=True)
class CallRow:
    seq: int
    turn: int
    name: str
    arguments: str
    outcome: CallOutcome
    reason: str | None
    shadow_of: str | None
    attempts: int
    latency_ms: int
    detail: str | None
    result: dict[str, Any] | None


@dataclass(frozen=True)
class ClaimRow:
    turn: int
    kind: FindingKind
    capability: str | None
    span: str
    backed: bool


@dataclass(frozen=True)
class NudgeRow:
    turn: int
    kind: NudgeKind
    detail: str | None


@dataclass(frozen=True)
class EventRow:
    kind: EventKind
    detail: dict[str, Any]


@dataclass(frozen=True)
class RegistrationRow:
    number: str
    url: str
    retracted_at: datetime | None = None  # its publication was retracted (the number is kept)
    corrections: int = 0  # corrected in place this many times


@dataclass(frozen=True)
class PublicationRow:
    """A publication the run made or touched, with what the last check of its page found."""

    url: str
    verified_at: datetime | None
    content_coverage: float | None
    found: str | None


@dataclass(frozen=True)
class SourceRow:
    """A source of the run's topic as it was read (capabilities.sources)."""

    number: int
    source: str
    final_url: str | None
    status: int | None
    ok: bool
    title: str | None
    digest: str | None
    failure: str | None


@dataclass(frozen=True)
class FactRow:
    kind: str
    fact: str
    sentence: str
    supported: bool
    source_number: int | None  # 0 the brief
    passage: str | None


@dataclass(frozen=True)
class FactCheckRow:
    """One fact check of a version (capabilities.fact_check), with each fact and its verdict."""

    draft_version_id: int
    round: int
    mode: str
    status: str
    detail: str | None
    facts: tuple[FactRow, ...]


@dataclass(frozen=True)
class RunDetail:
    run_id: int
    pipeline: str
    trigger: str
    scheduled_for: datetime | None
    status: RunStatus
    verdict: Verdict | None  # None while the run is running
    stop_reason: str | None
    error: str | None
    model: str | None
    tool_call_mode: str | None
    started_at: datetime
    finished_at: datetime | None
    tokens: int
    tool_calls: tuple[CallRow, ...]
    claims: tuple[ClaimRow, ...]
    nudges: tuple[NudgeRow, ...]
    events: tuple[EventRow, ...]
    registrations: tuple[RegistrationRow, ...]
    publications: tuple[PublicationRow, ...] = ()
    dry_run: bool = False
    sources: tuple[SourceRow, ...] = ()
    fact_checks: tuple[FactCheckRow, ...] = ()
    trace_id: str | None = None  # the run's OpenTelemetry trace, when traces were on
    sent_at: datetime | None = None  # EXECUTOR=celery: when its task was (last) sent to the broker
    pruned_at: datetime | None = None  # factline db prune cleared its bulky texts (pipeline.ledger.prune)

    def lateness(self) -> dict[str, float]:
        """How late the tick went, by stage (``tick_lateness``); empty for a run no schedule made."""
        return tick_lateness(self.scheduled_for, self.started_at, self.sent_at)

    def hallucinations_caught(self) -> int:
        """Model turns with at least one unbacked finding, counted as pipeline.ledger.daily counts them."""
        return len({c.turn for c in self.claims if not c.backed})

    def as_json(self) -> dict[str, Any]:
        """The JSON of `factline runs --run N --json`: every row a flat object, events with their detail inlined."""
        return {
            "run_id": self.run_id, "pipeline": self.pipeline, "trigger": self.trigger,
            "scheduled_for": self.scheduled_for.isoformat() if self.scheduled_for else None, "status": self.status, "verdict": self.verdict,
            "stop_reason": self.stop_reason, "error": self.error, "model": self.model,
            "tool_call_mode": self.tool_call_mode, "started_at": self.started_at.isoformat(),
            "finished_at": self.finished_at.isoformat() if self.finished_at else None, "tokens": self.tokens,
            "tool_calls": [vars(c) for c in self.tool_calls],
            "claims": [vars(c) for c in self.claims],
            "nudges": [vars(n) for n in self.nudges],
            "events": [{"kind": e.kind, **e.detail} for e in self.events],
            "registrations": [vars(r) for r in self.registrations],
            "publications": [vars(p) for p in self.publications], "dry_run": self.dry_run,
            "sources": [vars(src) for src in self.sources],
            "fact_checks": [{**vars(c), "facts": [vars(f) for f in c.facts]} for c in self.fact_checks],
            "trace_id": self.trace_id, "lateness": self.lateness(),
            "pruned_at": self.pruned_at.isoformat() if self.pruned_at else None,
        }


def tick_lateness(scheduled_for: datetime | None, started_at: datetime | None,
                  sent_at: datetime | None) -> dict[str, float]:
    """Seconds from a tick's scheduled time, from the runs row: ``start`` (inline: the run opened), or ``sent``
    (celery: the broker confirmed the task; a re-sent tick counts its last send) and ``taken`` (a worker took
    it: a celery run's started_at is set when it is taken). Empty for a manual run."""
    scheduled, started, sent = _utc(scheduled_for), _utc(started_at), _utc(sent_at)
    if scheduled is None or started is None:
        return {}
    if sent is None:
        return {"start": (started - scheduled).total_seconds()}
    return {"sent": (sent - scheduled).total_seconds(), "taken": (started - scheduled).total_seconds()}


def _utc(when: datetime | None) -> datetime | None:
    return when.replace(tzinfo=timezone.utc) if when is not None and when.tzinfo is None else when


def run_detail(s: Session, run_id: int) -> RunDetail | None:
    """One run with its verdict, tool calls, claims, nudges, events and registrations; None if there is none."""
    run = s.get(Run, run_id)
    if run is None:
        return None
    calls = tuple(
        CallRow(c.seq, c.turn, c.name, c.arguments, CallOutcome(c.outcome), c.reason, c.shadow_of, c.attempts,
                c.latency_ms, c.detail, c.result)
        for c in s.scalars(select(ToolCall).where(ToolCall.run_id == run_id).order_by(ToolCall.seq)))
    claims = tuple(ClaimRow(c.turn, FindingKind(c.kind), c.capability, c.span, c.backed)
                   for c in s.scalars(select(Claim).where(Claim.run_id == run_id).order_by(Claim.id)))
    nudges = tuple(NudgeRow(n.turn, NudgeKind(n.kind), n.detail)
                   for n in s.scalars(select(Nudge).where(Nudge.run_id == run_id).order_by(Nudge.id)))
    events = tuple(EventRow(EventKind(e.kind), e.detail)
                   for e in s.scalars(select(RunEvent).where(RunEvent.run_id == run_id).order_by(RunEvent.id)))
    registrations = tuple(RegistrationRow(number, url, retracted, corrections) for number, url, retracted, corrections
                          in s.execute(select(Registration.number, Publication.url, Registration.retracted_at,
                                              Registration.corrections).join(Publication, Publication.id == Registration.publication_id)
        .where(Registration.run_id == run_id).order_by(Registration.id)))
    publications = tuple(
        PublicationRow(p.url, _utc(p.verified_at), p.content_coverage, p.content_found)
        for p in s.scalars(select(Publication).where(Publication.id.in_(run_publication_ids(s, run_id)))
                           .order_by(Publication.id)))
    sources = tuple(SourceRow(r.number, r.source, r.final_url, r.status, r.ok, r.title, r.digest, r.failure)
                    for r in s.scalars(select(Source).where(Source.run_id == run_id).order_by(Source.number)))
    started_at = _utc(run.started_at)
    assert started_at is not None
    return RunDetail(
        run_id=run.id, pipeline=run.pipeline, trigger=run.trigger, scheduled_for=_utc(run.scheduled_for), status=RunStatus(run.status), verdict=Verdict(run.verdict) if run.verdict else None,
        stop_reason=run.stop_reason, error=run.error, model=run.model, tool_call_mode=run.tool_call_mode,
        started_at=started_at, finished_at=_utc(run.finished_at), tokens=run.tokens_used, tool_calls=calls,
        claims=claims, nudges=nudges, events=events, registrations=registrations, publications=publications,
        dry_run=run.dry_run, trace_id=run.trace_id, sources=sources, fact_checks=_fact_checks(s, run_id),
        sent_at=_utc(run.sent_at), pruned_at=_utc(run.pruned_at))


def _fact_checks(s: Session, run_id: int) -> tuple[FactCheckRow, ...]:
    checks = s.scalars(select(FactCheck).where(FactCheck.run_id == run_id).order_by(FactCheck.id)).all()
    items: dict[int, list[FactRow]] = {c.id: [] for c in checks}
    if checks:
        for item in s.scalars(select(FactCheckItem).where(FactCheckItem.fact_check_id.in_(list(items)))
                              .order_by(FactCheckItem.id)):
            items[item.fact_check_id].append(FactRow(item.kind, item.fact, item.sentence, item.supported,
                                                     item.source_number, item.passage))
    return tuple(FactCheckRow(c.draft_version_id, c.round, c.mode, c.status, c.detail, tuple(items[c.id]))
                 for c in checks)
