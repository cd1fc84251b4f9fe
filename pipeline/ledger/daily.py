"""One day of the ledger, counted from rows: runs, verdicts, publications, hallucinations, failures.

A hallucination caught is one model turn with at least one unbacked claim (the guard's finding),
counted the same way here and by RunDetail.hallucinations_caught (pipeline.metrics).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from sqlalchemy import func, select, true
from sqlalchemy.orm import Session

from pipeline.ledger import reviews
from pipeline.ledger.models import Claim, Publication, Registration, Run
from pipeline.outcome import Verdict


@dataclass(frozen=True)
class DayPublication:
    run_id: int
    url: str
    verified_at: datetime | None  # when a check last found the article on the page; None: not verified
    content_found: str | None
    registration_number: str | None

    @property
    def verified(self) -> bool:
        return self.verified_at is not None


@dataclass(frozen=True)
class DayFailure:
    run_id: int
    verdict: Verdict
    reason: str | None
    error: str | None


@dataclass(frozen=True)
class Waiting:
    """An article waiting for an editor (pipeline.ledger.reviews), and since when."""

    run_id: int
    title: str
    since: datetime

    def hours(self, now: datetime) -> float:
        return (now - self.since).total_seconds() / 3600


@dataclass(frozen=True)
class DayLedger:
    pipeline: str
    day: date
    time_zone: str
    runs: int
    verdicts: dict[str, int]
    publications: list[DayPublication]
    hallucinations_caught: int
    failures: list[DayFailure]
    awaiting_review: list[Waiting] = field(default_factory=list)  # waiting now, whenever they were held




def day_bounds(day: date, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """The day in ``tz`` as a half-open UTC interval."""
    start = datetime.combine(day, time(), tzinfo=tz)
    end = datetime.combine(day + timedelta(days=1), time(), tzinfo=tz)
    return start.astimezone(timezone.utc), end.astimezone(timezone.utc)


def day_ledger(s: Session, day: date, tz: ZoneInfo, pipeline: str | None = None) -> DayLedger:
    """The runs started on ``day`` (in ``tz``) and the publications made on it: of ``pipeline``, or of all."""
    start, end = day_bounds(day, tz)
    mine = (lambda column: column == pipeline) if pipeline else (lambda column: true())
    runs = s.execute(select(Run.id, Run.status, Run.verdict, Run.stop_reason, Run.error)  # columns, not rows
                     .where(mine(Run.pipeline), Run.started_at >= start, Run.started_at < end)
                     .order_by(Run.id)).all()
    run_ids = [r.id for r in runs]
    publications = s.execute(
        select(Publication.run_id, Publication.url, Publication.verified_at, Publication.content_found,
               Registration.number)
        .outerjoin(Registration, Registration.publication_id == Publication.id)
        .where(mine(Publication.pipeline), Publication.created_at >= start, Publication.created_at < end)
        .order_by(Publication.id)).all()
    turns = s.scalar(select(func.count()).select_from(
        select(Claim.run_id, Claim.turn).where(Claim.run_id.in_(run_ids), Claim.backed.is_(False))
        .distinct().subquery()))
    return DayLedger(
        pipeline=pipeline or "all", day=day, time_zone=str(tz), runs=len(runs),
        verdicts=dict(Counter(r.verdict or r.status for r in runs)),
        publications=[DayPublication(p.run_id, p.url, _utc(p.verified_at), p.content_found, p.number)
                      for p in publications],
        hallucinations_caught=turns or 0,
        failures=[DayFailure(r.id, Verdict(r.verdict), r.stop_reason, r.error) for r in runs
                  if r.verdict not in (None, Verdict.success, Verdict.awaiting_review)],
        awaiting_review=[Waiting(w.run_id, w.title, w.requested_at) for w in reviews.pending(s, pipeline)],
    )


def last_publication_time(s: Session, pipeline: str = "content") -> datetime | None:
    """When the pipeline's latest registered publication was last verified (UTC; SQLite returns it naive)."""
    return _utc(s.scalar(select(func.max(Publication.verified_at)).where(Publication.pipeline == pipeline).join(
        Registration, Registration.publication_id == Publication.id)))


def _utc(when: datetime | None) -> datetime | None:
    return when.replace(tzinfo=timezone.utc) if when is not None and when.tzinfo is None else when
