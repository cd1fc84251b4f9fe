"""Runs as a list: one summary row per run, newest first (what `factline runs` prints as a table or JSON).

Times are timezone-aware UTC (SQLite returns them naive; they were written in UTC). The topic is the one
the run picked; the URL is the run's latest publication, verified or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pipeline.ledger.models import Publication, Run, Topic


@dataclass(frozen=True)
class RunSummary:
    run_id: int
    trigger: str
    started_at: datetime
    finished_at: datetime | None
    seconds: float | None  # None while the run is running
    status: str
    verdict: str | None
    stop_reason: str | None
    model: str | None
    topic: str | None
    url: str | None


def _utc(when: datetime | None) -> datetime | None:
    return when.replace(tzinfo=timezone.utc) if when is not None and when.tzinfo is None else when


def recent_runs(s: Session, limit: int) -> list[RunSummary]:
    """The ``limit`` newest runs with their topic, then their latest publications' URLs by those runs' ids.

    Two index lookups: grouping every publication by run first (one query) cost 1.7 s at a million runs."""
    rows = s.execute(select(Run, Topic.title).outerjoin(Topic, Topic.id == Run.topic_id)
                     .order_by(Run.id.desc()).limit(limit)).all()
    latest = (select(func.max(Publication.id)).where(Publication.run_id.in_([run.id for run, _ in rows]))
              .group_by(Publication.run_id))
    urls = dict(s.execute(select(Publication.run_id, Publication.url).where(Publication.id.in_(latest))).tuples().all())
    result = []
    for run, topic in rows:
        url = urls.get(run.id)
        started, finished = _utc(run.started_at), _utc(run.finished_at)
        assert started is not None
        result.append(RunSummary(
            run_id=run.id, trigger=run.trigger, started_at=started, finished_at=finished,
            seconds=(finished - started).total_seconds() if finished else None, status=run.status,
            verdict=run.verdict, stop_reason=run.stop_reason, model=run.model, topic=topic, url=url))
    return result


def run_exists(s: Session, run_id: int) -> bool:
    return s.get(Run, run_id) is not None
