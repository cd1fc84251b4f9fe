"""Probe runs in the ledger: open or resume a run by its key, record answers as they come, read them back.

Functions take the session first; the caller owns the transaction (``with sessions.begin() as s``).
ORM rows stay inside the session: what leaves it is a ``Verdict``, a ``StoredAnswer`` or a ``RunInfo``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from pipeline.ledger.models import ProbeResult, ProbeRun, utcnow
from pipeline.probe.scoring import Verdict

__all__ = ["RunInfo", "RunKey", "StoredAnswer", "answered", "finish_run", "latest_runs", "open_run", "record", "stored"]


@dataclass(frozen=True)
class RunKey:
    """What makes two probe runs comparable; re-running with the same key resumes the latest run."""

    model: str
    mode: str
    source: str
    prompt_version: str
    catalog_version: str
    suite_version: str


@dataclass(frozen=True)
class RunInfo:
    id: int
    key: RunKey
    status: str
    tokens: int
    started_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True)
class StoredAnswer:
    """One probe answered under one variant: the reply scored (verdict) or the endpoint's refusal (error)."""

    probe_id: str
    variant: str
    verdict: Verdict | None
    error: str | None
    reply: dict[str, Any] | None
    tokens: int
    latency_ms: int


def _key_filter(key: RunKey) -> list[Any]:
    return [getattr(ProbeRun, name) == value for name, value in key.__dict__.items()]


def _info(row: ProbeRun) -> RunInfo:
    key = RunKey(row.model, row.mode, row.source, row.prompt_version, row.catalog_version, row.suite_version)
    return RunInfo(row.id, key, row.status, row.tokens, row.started_at, row.finished_at)


def open_run(s: Session, key: RunKey, *, fresh: bool) -> RunInfo:
    """The latest run with this key (marked running again), or a new one when there is none or ``fresh``."""
    row = None if fresh else s.scalars(
        select(ProbeRun).where(*_key_filter(key)).order_by(ProbeRun.id.desc()).limit(1)
    ).first()
    if row is None:
        row = ProbeRun(**key.__dict__)
        s.add(row)
    row.status, row.finished_at = "running", None
    s.flush()
    return _info(row)


def answered(s: Session, run_id: int) -> set[tuple[str, str]]:
    """(probe_id, variant) pairs this run already holds an answer for."""
    rows = s.execute(select(ProbeResult.probe_id, ProbeResult.variant).where(ProbeResult.probe_run_id == run_id))
    return {(probe_id, variant) for probe_id, variant in rows}


def record(s: Session, run_id: int, answer: StoredAnswer, kind: str) -> None:
    """Store one answer and add its tokens to the run's total."""
    v = answer.verdict
    s.add(ProbeResult(
        probe_run_id=run_id, probe_id=answer.probe_id, kind=kind, variant=answer.variant, reply=answer.reply,
        error=answer.error, unknown_tool=v and v.unknown_tool, malformed=v and v.malformed, shadow=v and v.shadow,
        hallucinated_argument=v and v.hallucinated_argument, outcome=v and v.outcome,
        tokens=answer.tokens, latency_ms=answer.latency_ms,
    ))
    s.execute(update(ProbeRun).where(ProbeRun.id == run_id).values(tokens=ProbeRun.tokens + answer.tokens))


def finish_run(s: Session, run_id: int, status: str) -> None:
    """Close the run with ``status`` (finished, capped or interrupted)."""
    s.execute(update(ProbeRun).where(ProbeRun.id == run_id).values(status=status, finished_at=utcnow()))


def stored(s: Session, run_id: int) -> list[StoredAnswer]:
    """Every answer of the run, in the order they were recorded."""
    rows = s.scalars(select(ProbeResult).where(ProbeResult.probe_run_id == run_id).order_by(ProbeResult.id))
    return [
        StoredAnswer(
            r.probe_id, r.variant,
            None if r.error is not None else Verdict(
                r.probe_id, r.kind, bool(r.unknown_tool), bool(r.malformed), r.shadow, r.hallucinated_argument,
                r.outcome,
            ),
            r.error, r.reply, r.tokens, r.latency_ms,
        )
        for r in rows
    ]


def latest_runs(s: Session) -> list[RunInfo]:
    """The latest run of every key, oldest first: the rows of the trend table."""
    rows = s.scalars(select(ProbeRun).order_by(ProbeRun.id)).all()
    latest: dict[RunKey, RunInfo] = {}
    for row in rows:
        info = _info(row)
        latest.pop(info.key, None)
        latest[info.key] = info
    return list(latest.values())
