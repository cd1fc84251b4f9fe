"""What the Today and Publications pages show, read from the ledger in a fixed number of queries per page.

Rows in, frozen dataclasses out. Every list is one page (``PAGE_SIZE`` rows, one more fetched to know
whether a next page exists, so no ``count(*)`` over the whole ledger); everything a row shows (topic,
publications, registrations) comes from one batched query over the page's run ids, never one per row.

Pipelines: runs carry a ``pipeline`` column; publications are filtered by the pipeline of the run that made
them (``Run.pipeline`` below is the one place that says so; when publications get their own column, this
join is where it changes).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Select, case, distinct, func, select
from sqlalchemy.orm import Session

from pipeline.ledger.daily import day_bounds
from pipeline.ledger.models import Claim, Publication, Registration, Run, Topic

__all__ = ["PAGE_SIZE", "Filters", "Link", "PipelineTotals", "PublicationLine", "PublicationsPage", "RunLine",
           "TodayPage", "publications_page", "run_links", "today_page", "utc"]

PAGE_SIZE = 50


def utc(when: datetime | None) -> datetime | None:
    """Ledger times are UTC; SQLite hands them back naive."""
    return when.replace(tzinfo=timezone.utc) if when is not None and when.tzinfo is None else when


@dataclass(frozen=True)
class Filters:
    """The query string every list page understands; ``None`` means "any"."""

    day: date | None = None
    pipeline: str | None = None
    verdict: str | None = None
    model: str | None = None
    page: int = 1

    def query(self, **changes: Any) -> dict[str, str]:
        """These filters (with ``changes``) as query parameters, empty ones left out."""
        values = {"day": self.day, "pipeline": self.pipeline, "verdict": self.verdict, "model": self.model,
                  "page": self.page if self.page > 1 else None} | changes
        return {k: str(v) for k, v in values.items() if v not in (None, "")}

    def run_filter(self, stmt: Select[Any]) -> Select[Any]:
        if self.pipeline:
            stmt = stmt.where(Run.pipeline == self.pipeline)
        if self.model:
            stmt = stmt.where(Run.model == self.model)
        return stmt


@dataclass(frozen=True)
class Link:
    """A publication as a run row shows it: where it is, whether it was verified, its registration."""

    publication_id: int
    url: str
    head_status: int | None
    verified_at: datetime | None
    registration: str | None


@dataclass(frozen=True)
class RunLine:
    id: int
    pipeline: str
    trigger: str
    started_at: datetime
    seconds: float | None
    status: str
    verdict: str | None
    stop_reason: str | None
    error: str | None
    model: str | None
    topic: str | None
    links: list[Link] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.verdict is not None and self.verdict != "success"


@dataclass(frozen=True)
class PipelineTotals:
    """One pipeline's day, counted as ``factline report --day`` counts it (pipeline.ledger.daily)."""

    pipeline: str
    runs: int
    verdicts: dict[str, int]
    publications: int
    verified: int
    registered: int
    hallucinations_caught: int


@dataclass(frozen=True)
class TodayPage:
    day: date
    time_zone: str
    filters: Filters
    totals: list[PipelineTotals]
    runs: list[RunLine]
    has_next: bool
    pipelines: list[str]
    models: list[str]

    @property
    def prev_day(self) -> date:
        return self.day - timedelta(days=1)

    @property
    def next_day(self) -> date:
        return self.day + timedelta(days=1)


def _failures_first() -> Any:
    """Failed runs first, then runs still going, then successes."""
    return case((Run.verdict.is_(None), 1), (Run.verdict == "success", 2), else_=0)


def today_page(s: Session, filters: Filters, day: date, tz: ZoneInfo) -> TodayPage:
    """Runs started on ``day`` (in ``tz``): totals per pipeline, then one page of runs, failures first.

    The pipeline and model filters apply to the totals and the list; the verdict filter to the list only.
    """
    start, end = day_bounds(day, tz)
    in_day = (Run.started_at >= start, Run.started_at < end)
    stmt = filters.run_filter(select(Run, Topic.title).outerjoin(Topic, Topic.id == Run.topic_id).where(*in_day))
    if filters.verdict:
        stmt = stmt.where(Run.verdict == filters.verdict)
    rows = s.execute(stmt.order_by(Run.pipeline, _failures_first(), Run.id.desc())
                     .limit(PAGE_SIZE + 1).offset((filters.page - 1) * PAGE_SIZE)).all()
    links = run_links(s, [run.id for run, _ in rows[:PAGE_SIZE]])
    runs = [_line(run, title, links.get(run.id, [])) for run, title in rows[:PAGE_SIZE]]
    options = s.execute(select(Run.pipeline, Run.model).where(*in_day).distinct()).all()
    return TodayPage(
        day=day, time_zone=str(tz), filters=filters, totals=_totals(s, filters, start, end), runs=runs,
        has_next=len(rows) > PAGE_SIZE,
        pipelines=sorted({p for p, _ in options} | ({filters.pipeline} if filters.pipeline else set())),
        models=sorted({m for _, m in options if m} | ({filters.model} if filters.model else set())),
    )


def _line(run: Run, topic: str | None, links: list[Link]) -> RunLine:
    started, finished = utc(run.started_at), utc(run.finished_at)
    assert started is not None
    seconds = (finished - started).total_seconds() if finished else None
    return RunLine(run.id, run.pipeline, run.trigger, started, seconds, run.status, run.verdict, run.stop_reason,
                   run.error, run.model, topic, links)


def run_links(s: Session, run_ids: list[int]) -> dict[int, list[Link]]:
    """Per run: the publications it made and those it registered (a resumed run registers an earlier one's)."""
    if not run_ids:
        return {}
    found: dict[int, dict[int, Link]] = defaultdict(dict)
    columns = (Publication.id, Publication.url, Publication.head_status, Publication.verified_at, Registration.number)
    made = s.execute(select(Publication.run_id, *columns).outerjoin(
        Registration, Registration.publication_id == Publication.id).where(Publication.run_id.in_(run_ids)))
    registered = s.execute(select(Registration.run_id, *columns).join(
        Publication, Publication.id == Registration.publication_id).where(Registration.run_id.in_(run_ids)))
    for run_id, pub_id, url, head, verified_at, number in [*made, *registered]:
        found[run_id][pub_id] = Link(pub_id, url, head, utc(verified_at), number)
    return {run_id: sorted(links.values(), key=lambda link: link.publication_id) for run_id, links in found.items()}


def _totals(s: Session, filters: Filters, start: datetime, end: datetime) -> list[PipelineTotals]:
    in_day = (Run.started_at >= start, Run.started_at < end)
    verdicts: dict[str, dict[str, int]] = defaultdict(dict)
    for pipeline, verdict, n in s.execute(filters.run_filter(
            select(Run.pipeline, func.coalesce(Run.verdict, Run.status), func.count()).where(*in_day)
            .group_by(Run.pipeline, func.coalesce(Run.verdict, Run.status)))):
        verdicts[pipeline][verdict] = n
    published: dict[str, tuple[int, int, int]] = {}
    for pipeline, n, verified, registered in s.execute(filters.run_filter(
            select(Run.pipeline, func.count(), func.count(Publication.verified_at), func.count(Registration.id))
            .select_from(Publication).join(Run, Run.id == Publication.run_id)
            .outerjoin(Registration, Registration.publication_id == Publication.id)
            .where(Publication.created_at >= start, Publication.created_at < end).group_by(Run.pipeline))):
        published[pipeline] = (n, verified, registered)
    turns = filters.run_filter(select(Run.pipeline, Claim.run_id, Claim.turn).join(Run, Run.id == Claim.run_id)
                               .where(*in_day, Claim.backed.is_(False)).distinct()).subquery()
    caught = dict(s.execute(select(turns.c.pipeline, func.count()).group_by(turns.c.pipeline)).all())
    return [
        PipelineTotals(pipeline, sum(verdicts[pipeline].values()), dict(sorted(verdicts[pipeline].items())),
                       *published.get(pipeline, (0, 0, 0)), caught.get(pipeline, 0))
        for pipeline in sorted(set(verdicts) | set(published))
    ]


@dataclass(frozen=True)
class PublicationLine:
    id: int
    run_id: int
    pipeline: str
    created_at: datetime
    target: str
    url: str
    head_status: int | None
    verified_at: datetime | None
    registration: str | None
    registered_at: datetime | None
    run_verdict: str | None
    topic: str | None
    content_coverage: float | None  # once the ledger records it (issue #14); None before


@dataclass(frozen=True)
class PublicationsPage:
    filters: Filters
    publications: list[PublicationLine]
    has_next: bool
    pipelines: list[str]
    models: list[str]


def publications_page(s: Session, filters: Filters, tz: ZoneInfo) -> PublicationsPage:
    """Publications, newest first, with their verification and registration; filters by the making run."""
    coverage = getattr(Publication, "content_coverage", None)
    stmt = filters.run_filter(
        select(Publication, Registration.number, Registration.created_at, Run.pipeline, Run.verdict, Topic.title,
               *([coverage] if coverage is not None else []))
        .join(Run, Run.id == Publication.run_id).outerjoin(Topic, Topic.id == Publication.topic_id)
        .outerjoin(Registration, Registration.publication_id == Publication.id))
    if filters.verdict:
        stmt = stmt.where(Run.verdict == filters.verdict)
    if filters.day:
        start, end = day_bounds(filters.day, tz)
        stmt = stmt.where(Publication.created_at >= start, Publication.created_at < end)
    rows = s.execute(stmt.order_by(Publication.id.desc()).limit(PAGE_SIZE + 1)
                     .offset((filters.page - 1) * PAGE_SIZE)).all()
    lines = []
    for row in rows[:PAGE_SIZE]:
        p = row[0]
        created = utc(p.created_at)
        assert created is not None
        lines.append(PublicationLine(p.id, p.run_id, row[3], created, p.target, p.url, p.head_status, utc(p.verified_at),
                                     row[1], utc(row[2]), row[4], row[5], row[6] if coverage is not None else None))
    pipelines = set(s.scalars(select(distinct(Run.pipeline)))) | ({filters.pipeline} if filters.pipeline else set())
    models = {m for m in s.scalars(select(distinct(Run.model))) if m} | ({filters.model} if filters.model else set())
    return PublicationsPage(filters, lines, len(rows) > PAGE_SIZE, sorted(pipelines), sorted(models))
