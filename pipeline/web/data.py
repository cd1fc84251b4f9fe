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

from sqlalchemy import Select, String, case, distinct, func, select
from sqlalchemy.orm import Session

from pipeline.ledger.daily import day_bounds
from pipeline.ledger.detail import tick_lateness
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
    http_status: int | None
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
    late: float | None = None  # a scheduled run: seconds from its tick to its start (or to a worker taking it)

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
    Every statement is an indexed range or an ``IN`` over ids already in hand: a join with a whole table
    lets PostgreSQL choose a hash join over all of it, which grows with the ledger.
    """
    start, end = day_bounds(day, tz)
    in_day = (Run.started_at >= start, Run.started_at < end)
    day_runs = s.execute(select(Run.id, Run.pipeline, Run.model, func.coalesce(Run.verdict, Run.status, type_=String))
                         .where(*in_day)).all()
    stmt = filters.run_filter(select(Run).where(*in_day))
    if filters.verdict:
        stmt = stmt.where(Run.verdict == filters.verdict)
    rows = s.scalars(stmt.order_by(Run.pipeline, _failures_first(), Run.id.desc())
                     .limit(PAGE_SIZE + 1).offset((filters.page - 1) * PAGE_SIZE)).all()
    page = rows[:PAGE_SIZE]
    topics = dict(s.execute(select(Topic.id, Topic.title).where(
        Topic.id.in_({r.topic_id for r in page if r.topic_id is not None}))).all()) if page else {}
    links = run_links(s, [run.id for run in page])
    return TodayPage(
        day=day, time_zone=str(tz), filters=filters, totals=_totals(s, filters, day_runs, start, end),
        runs=[_line(run, topics.get(run.topic_id), links.get(run.id, [])) for run in page],
        has_next=len(rows) > PAGE_SIZE,
        pipelines=sorted({r.pipeline for r in day_runs} | ({filters.pipeline} if filters.pipeline else set())),
        models=sorted({r.model for r in day_runs if r.model} | ({filters.model} if filters.model else set())),
    )


def _line(run: Run, topic: str | None, links: list[Link]) -> RunLine:
    started, finished = utc(run.started_at), utc(run.finished_at)
    assert started is not None
    seconds = (finished - started).total_seconds() if finished else None
    lateness = tick_lateness(run.scheduled_for, run.started_at, run.sent_at)
    late = lateness.get("start", lateness.get("taken"))
    return RunLine(run.id, run.pipeline, run.trigger, started, seconds, run.status, run.verdict, run.stop_reason,
                   run.error, run.model, topic, links, late)


def run_links(s: Session, run_ids: list[int]) -> dict[int, list[Link]]:
    """Per run: the publications it made and those it registered (a resumed run registers an earlier one's)."""
    if not run_ids:
        return {}
    found: dict[int, dict[int, Link]] = defaultdict(dict)
    columns = (Publication.id, Publication.url, Publication.http_status, Publication.verified_at, Registration.number)
    made = s.execute(select(Publication.run_id, *columns).outerjoin(
        Registration, Registration.publication_id == Publication.id).where(Publication.run_id.in_(run_ids)))
    registered = s.execute(select(Registration.run_id, *columns).join(
        Publication, Publication.id == Registration.publication_id).where(Registration.run_id.in_(run_ids)))
    for run_id, pub_id, url, head, verified_at, number in [*made, *registered]:
        found[run_id][pub_id] = Link(pub_id, url, head, utc(verified_at), number)
    return {run_id: sorted(links.values(), key=lambda link: link.publication_id) for run_id, links in found.items()}


def _chunks(ids: list[int], size: int = 5_000) -> list[list[int]]:
    """IN lists of at most ``size`` ids (SQLite allows 32,766 bound parameters per statement)."""
    return [ids[i:i + size] for i in range(0, len(ids), size)]


def _id_span(column: Any, ids: set[int]) -> Any:
    """``column`` between the smallest and largest of ``ids``: one index range instead of an IN list of a
    thousand parameters (which PostgreSQL plans slowly). A day's ids are nearly contiguous; the caller keeps
    only the rows whose id is in ``ids``, so the answer is exact whatever the ids are."""
    return column.between(min(ids), max(ids))


def _totals(s: Session, filters: Filters, day_runs: list[Any], start: datetime, end: datetime) -> list[PipelineTotals]:
    """``day_runs``: (id, pipeline, model, verdict or status) of every run started in [start, end)."""
    owner = {r.id: (r.pipeline, r.model) for r in day_runs}

    def chosen(pipeline: str, model: str | None) -> bool:
        return (not filters.pipeline or pipeline == filters.pipeline) and (not filters.model or model == filters.model)

    verdicts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in day_runs:
        if chosen(r.pipeline, r.model):
            verdicts[r.pipeline][r[3]] += 1
    caught: dict[str, int] = defaultdict(int)
    counted = {r.id for r in day_runs if chosen(r.pipeline, r.model)}
    if counted:
        for run_id, _turn in s.execute(select(Claim.run_id, Claim.turn).where(
                _id_span(Claim.run_id, counted), Claim.backed.is_(False)).distinct()):
            if run_id in counted:
                caught[owner[run_id][0]] += 1
    made = s.execute(select(Publication.id, Publication.run_id, Publication.verified_at).where(
        Publication.created_at >= start, Publication.created_at < end)).all()
    made_ids = {p.id for p in made}
    registered = set(s.scalars(select(Registration.publication_id).where(
        _id_span(Registration.publication_id, made_ids)))) & made_ids if made_ids else set()
    for ids in _chunks(sorted({p.run_id for p in made} - set(owner))):  # made today by a run of an earlier day
        owner.update({i: (p, m) for i, p, m in s.execute(select(Run.id, Run.pipeline, Run.model).where(Run.id.in_(ids)))})
    published: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for p in made:
        pipeline, model = owner[p.run_id]
        if chosen(pipeline, model):
            figures = published[pipeline]
            figures[0] += 1
            figures[1] += p.verified_at is not None
            figures[2] += p.id in registered
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
    http_status: int | None
    verified_at: datetime | None
    registration: str | None
    registered_at: datetime | None
    run_verdict: str | None
    topic: str | None
    content_coverage: float | None  # None: checked before content checks existed, or no page to measure
    retracted_at: datetime | None = None  # factline retract
    corrections: int = 0  # factline correct: times corrected in place


@dataclass(frozen=True)
class PublicationsPage:
    filters: Filters
    publications: list[PublicationLine]
    has_next: bool
    pipelines: list[str]
    models: list[str]


def publications_page(s: Session, filters: Filters, tz: ZoneInfo) -> PublicationsPage:
    """Publications, newest first, with their verification and registration; filters by the making run."""
    stmt = filters.run_filter(
        select(Publication, Registration.number, Registration.created_at, Run.pipeline, Run.verdict, Topic.title,
               Registration.corrections)
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
        lines.append(PublicationLine(p.id, p.run_id, row[3], created, p.target, p.url, p.http_status, utc(p.verified_at),
                                     row[1], utc(row[2]), row[4], row[5], p.content_coverage, utc(p.retracted_at),
                                     row[6] or 0))
    pipelines = set(s.scalars(select(distinct(Run.pipeline)))) | ({filters.pipeline} if filters.pipeline else set())
    models = {m for m in s.scalars(select(distinct(Run.model))) if m} | ({filters.model} if filters.model else set())
    return PublicationsPage(filters, lines, len(rows) > PAGE_SIZE, sorted(pipelines), sorted(models))
