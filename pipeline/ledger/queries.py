"""Reading the ledger: verdicts, the claim-vs-fact diff, run listings. Rows in, dataclasses out.

One run's whole record (calls, claims, nudges, events) is pipeline.ledger.detail.run_detail.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pipeline.ledger.models import (Claim, Draft, DraftVersion, FactCheck, FactCheckItem, Publication, Registration, Run,
                                   RunEvent, ToolCall)
from pipeline.outcome import CallOutcome, EventKind, FindingKind, Verdict


@dataclass(frozen=True)
class RunDiff:
    """The claim-vs-fact audit of one run (what scripts/ledger_diff.py prints)."""

    run_id: int
    verdict: Verdict | None
    claimed: list[str]
    called: list[str]
    hallucinated: list[str]
    ungrounded: list[str]
    prose_calls: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # rejected, failed, dedup, shadow, retries, escalations, stops

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def has_hallucinations(self) -> bool:
        return bool(self.hallucinated or self.ungrounded or self.prose_calls)

    def line(self) -> str:
        """The one line scripts/ledger_diff.py prints (and the dashboard shows on top of a run)."""
        def fmt(items: list[str]) -> str:
            return "{" + ",".join(items) + "}"

        extra = f" prose_calls={fmt(self.prose_calls)}" if self.prose_calls else ""
        extra += "".join(f" {k}={v}" for k, v in sorted(self.counts.items()))
        return (f"run {self.run_id} verdict={self.verdict} claimed={fmt(self.claimed)} called={fmt(self.called)} "
                f"hallucinated={fmt(self.hallucinated)} ungrounded={fmt(self.ungrounded)}{extra}")


def diffs(s: Session, run_ids: list[int]) -> list[RunDiff]:
    verdicts = dict(s.execute(select(Run.id, Run.verdict).where(Run.id.in_(run_ids))).all())
    called: dict[int, set[str]] = {i: set() for i in run_ids}
    for run_id, name in s.execute(select(ToolCall.run_id, ToolCall.name).where(
            ToolCall.run_id.in_(run_ids), ToolCall.outcome == CallOutcome.ok).distinct()):
        called[run_id].add(name)
    claims: dict[int, dict[str, list[str]]] = {i: {kind: [] for kind in FindingKind} for i in run_ids}
    for run_id, kind, capability, span in s.execute(select(Claim.run_id, Claim.kind, Claim.capability, Claim.span)
                                                    .where(Claim.run_id.in_(run_ids)).order_by(Claim.id)):
        bucket = claims[run_id][kind]
        value = capability if kind != FindingKind.ungrounded else span
        if value not in bucket:
            bucket.append(value)
    counts: dict[int, dict[str, int]] = {i: {} for i in run_ids}
    for run_id, outcome, n in s.execute(select(ToolCall.run_id, ToolCall.outcome, func.count()).where(
            ToolCall.run_id.in_(run_ids), ToolCall.outcome != CallOutcome.ok).group_by(ToolCall.run_id, ToolCall.outcome)):
        counts[run_id][outcome] = n
    for run_id, n in s.execute(select(ToolCall.run_id, func.count()).where(
            ToolCall.run_id.in_(run_ids), ToolCall.reason == "shadow").group_by(ToolCall.run_id)):
        counts[run_id]["shadow"] = n
    event_names = {EventKind.tool_retry: "retries", EventKind.llm_retry: "retries", EventKind.escalation: "escalations",
                   EventKind.stop: "stops"}
    for run_id, kind, n in s.execute(select(RunEvent.run_id, RunEvent.kind, func.count()).where(
            RunEvent.run_id.in_(run_ids)).group_by(RunEvent.run_id, RunEvent.kind)):
        key = event_names.get(kind, kind)
        counts[run_id][key] = counts[run_id].get(key, 0) + n
    latest = select(FactCheck.run_id, func.max(FactCheck.id).label("check_id")).where(
        FactCheck.run_id.in_(run_ids)).group_by(FactCheck.run_id).subquery()
    for run_id, n in s.execute(select(latest.c.run_id, func.count()).join(
            FactCheckItem, FactCheckItem.fact_check_id == latest.c.check_id).where(
            FactCheckItem.supported.is_(False)).group_by(latest.c.run_id)):
        counts[run_id]["unsupported_facts"] = n  # in the run's last fact check
    result = []
    for run_id in run_ids:
        c = claims[run_id]
        verdict = verdicts.get(run_id)
        result.append(RunDiff(
            run_id=run_id, verdict=Verdict(verdict) if verdict else None, claimed=sorted(c[FindingKind.claim]),
            called=sorted(called[run_id]), hallucinated=sorted(set(c[FindingKind.claim]) - called[run_id]),
            ungrounded=c[FindingKind.ungrounded], prose_calls=sorted(c[FindingKind.prose_call]), counts=counts[run_id],
        ))
    return result


def last_run_ids(s: Session, n: int) -> list[int]:
    return list(reversed(s.scalars(select(Run.id).order_by(Run.id.desc()).limit(n)).all()))


def is_success(s: Session, run_id: int) -> bool:
    """A registration made in this run, for a publication whose page was verified to hold the article, and a report executed after it."""
    registered = s.scalar(
        select(func.count()).select_from(Registration).join(Publication, Publication.id == Registration.publication_id)
        .where(Registration.run_id == run_id, Publication.verified_at.is_not(None))
    )
    if not registered:  # every turn before the registration asks: one query, not three
        return False
    register_seq = s.scalar(select(func.max(ToolCall.seq)).where(
        ToolCall.run_id == run_id, ToolCall.name == "register", ToolCall.outcome == CallOutcome.ok))
    if register_seq is None:
        return False
    reported = s.scalar(select(func.count()).select_from(ToolCall).where(
        ToolCall.run_id == run_id, ToolCall.name == "report", ToolCall.outcome.in_((CallOutcome.ok, CallOutcome.dedup)),
        ToolCall.seq > register_seq))
    return bool(reported)


def latest_version(s: Session, run_id: int, kind: str) -> int | None:
    """The id of the latest draft version of ``kind`` this run made (a dry run previews its preview kind's)."""
    return s.scalar(select(func.max(DraftVersion.id)).join(Draft, Draft.id == DraftVersion.draft_id).where(
        Draft.run_id == run_id, DraftVersion.kind == kind))


def is_done(s: Session, run_id: int, preview: str | None = None) -> bool:
    """The business state that ends a run: for a dry run (``preview``, the version kind it previews) a version
    of that kind, else is_success."""
    if preview is not None:
        return latest_version(s, run_id, preview) is not None
    return is_success(s, run_id)


def judge(s: Session, run_id: int, stop_verdict: Verdict | None, preview: str | None = None) -> Verdict:
    """The run's verdict from its rows. A stop rule's verdict wins; success needs the facts, never words.

    A dry run (``preview``: the version kind it previews) that made a version of that kind is ``previewed``
    (the runner renders it to var/preview/); one that did not ends like any run that stopped short.
    """
    if stop_verdict is not None:
        return stop_verdict
    if preview is not None and latest_version(s, run_id, preview) is not None:
        return Verdict.previewed
    if is_success(s, run_id):
        return Verdict.success
    diff = diffs(s, [run_id])[0]
    if diff.has_hallucinations:
        return Verdict.hallucinated
    publications = s.execute(select(Publication.verified_at).where(
        Publication.id.in_(run_publication_ids(s, run_id)))).all()
    if publications and not any(p.verified_at for p in publications):
        return Verdict.unverified
    exhausted = s.scalar(select(func.count()).select_from(ToolCall).where(
        ToolCall.run_id == run_id, ToolCall.reason == "retry_exhausted"))
    return Verdict.unavailable if exhausted else Verdict.incomplete


def unverified_reason(s: Session, run_id: int) -> str | None:
    """Why the run's publications are not verified, from what their last checks found (one line)."""
    found = s.execute(select(Publication.id, Publication.content_found).where(
        Publication.id.in_(run_publication_ids(s, run_id)), Publication.verified_at.is_(None))
        .order_by(Publication.id)).all()
    return "; ".join(f"publication {pid}: {what or 'not checked'}" for pid, what in found) or None


def run_publication_ids(s: Session, run_id: int) -> list[int]:
    """Publications this run made or touched (a resumed run publishes by replaying an earlier one)."""
    made = set(s.scalars(select(Publication.id).where(Publication.run_id == run_id)))
    for result in s.scalars(select(ToolCall.result).where(
            ToolCall.run_id == run_id, ToolCall.name == "publish", ToolCall.outcome.in_((CallOutcome.ok, CallOutcome.dedup)))):
        if result and isinstance(result.get("publication_id"), int):
            made.add(result["publication_id"])
    return sorted(made)
