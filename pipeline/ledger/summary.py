"""The run summary that the report capability returns: counted from ledger rows only."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pipeline.ledger.models import Claim, Draft, DraftVersion, Nudge, Publication, Registration, Run, Topic, ToolCall


def run_summary(s: Session, run_id: int) -> dict[str, object]:
    run = s.get_one(Run, run_id)
    topic = s.get(Topic, run.topic_id) if run.topic_id else None
    versions = s.execute(
        select(DraftVersion.id, DraftVersion.kind, DraftVersion.score)
        .join(Draft, Draft.id == DraftVersion.draft_id).where(Draft.run_id == run_id).order_by(DraftVersion.id)
    ).all()
    registrations = {r.publication_id: r.number for r in s.scalars(select(Registration).where(Registration.run_id == run_id))}
    pub_ids = set(registrations) | set(s.scalars(select(Publication.id).where(Publication.run_id == run_id)))
    publications = [
        {"publication_id": p.id, "url": p.url, "http_status": p.http_status, "verified": p.verified_at is not None,
         "content_coverage": p.content_coverage,
         "registration_number": registrations.get(p.id)}
        for p in s.scalars(select(Publication).where(Publication.id.in_(pub_ids)).order_by(Publication.id))
    ]
    outcomes = dict(s.execute(select(ToolCall.outcome, func.count()).where(ToolCall.run_id == run_id)
                              .group_by(ToolCall.outcome)).all())
    return {
        "run_id": run_id,
        "topic": topic.title if topic else None,
        "versions": [{"version_id": v.id, "kind": v.kind, "score": v.score} for v in versions],
        "publications": publications,
        "registrations": len(registrations),
        "tool_calls": outcomes,
        "nudges": s.scalar(select(func.count()).select_from(Nudge).where(Nudge.run_id == run_id)),
        "unbacked_claims": s.scalar(select(func.count()).select_from(Claim).where(
            Claim.run_id == run_id, Claim.backed.is_(False))),
    }
