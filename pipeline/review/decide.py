"""What `factline review` and the dashboard's Review page share: an editor's decision, carried out once.

    approve(run, editor, edit=None)   the edit (if any) becomes a version of its own, checked again; then the
                                      compare-and-set awaiting_review -> approved (pipeline.ledger.reviews)
    reject(run, editor, reason, requeue)
    carry_out(publisher, run)         approved -> running, then publish, register, report (pipeline.review.publisher)

Each answer is a ``Decision``: accepted or not, and one line for the editor (who decided first, when).
"""

from __future__ import annotations

from dataclasses import dataclass

from loguru import logger
from sqlalchemy.orm import Session, sessionmaker

from capabilities.errors import ToolRejected
from capabilities.fact_check import check_version
from capabilities.publish import check_publishable
from capabilities.records import DraftVersionRecord
from pipeline.ledger import reviews, runs
from pipeline.ledger.models import Review, Run
from pipeline.ledger.reviews import Decision
from pipeline.ledger.store import LedgerStore
from pipeline.outcome import ReviewAction, RunStatus
from pipeline.review.publisher import Continued, continue_approved
from pipeline.runtime import Publisher


@dataclass(frozen=True)
class Edit:
    """An editor's text: a Markdown file whose first line ``# Title`` is the title (else the held title stays)."""

    title: str | None
    body: str

    @classmethod
    def parse(cls, text: str) -> Edit:
        lines = text.replace("\r\n", "\n").strip("\n").split("\n")
        if lines and lines[0].startswith("# "):
            return cls(lines[0][2:].strip(), "\n".join(lines[1:]).strip("\n") + "\n")
        return cls(None, "\n".join(lines).strip("\n") + "\n")


def recheck(store: LedgerStore, version: DraftVersionRecord) -> None:
    """The checks an edited text passes again before it may be published; raises ToolRejected.

    What publish checks of any text, then the fact check of issue #22 (capabilities.fact_check.check_version)
    in the mode of the run's own check, recorded on the edited version: in strict mode a fact the edit added
    and no source holds refuses it ("1 fact not in the sources: '73%'").
    """
    check_publishable(version.title, version.body)
    mode = store.fact_check_mode() or "off"
    topic = store.topic(version.topic_id)
    assert topic is not None  # a draft version always belongs to a topic
    if mode == "off":
        store.record_fact_check(draft_version_id=version.id, round=0, mode=mode, status="off",
                                detail="FACT_CHECK off: nothing checked", facts=[])
        return
    report = check_version(store, version, topic, mode)
    if mode == "strict" and not report.passed:
        raise ToolRejected(report.summary())


def approve(sessions: sessionmaker[Session], run_id: int, editor: str | None, edit: Edit | None = None, *,
            take: bool = False) -> Decision:
    """Approve run ``run_id`` (publishing ``edit`` as a version of its own, checked again, when given);
    ``take``: this process publishes it next (pipeline.review.publisher.continue_approved)."""
    version_id = None
    if edit is not None:
        with sessions() as s:
            run = s.get(Run, run_id)
            held = reviews.requested(s, run_id)
            awaiting = run is not None and run.status == RunStatus.awaiting_review and held is not None
            pipeline = run.pipeline if run is not None else "content"
            held_version = held.version_id if held is not None else None
        if awaiting and held_version is not None:
            refused, version_id = _edited_version(sessions, run_id, pipeline, held_version, editor, edit)
            if refused is not None:
                return refused
    with sessions.begin() as s:
        decision = reviews.approve(s, run_id, editor, version_id, take=take)
    logger.info("review.approve", run_id=run_id, editor=editor, accepted=decision.accepted, line=decision.line)
    return decision


def _edited_version(sessions: sessionmaker[Session], run_id: int, pipeline: str, held_version: int,
                    editor: str | None, edit: Edit) -> tuple[Decision | None, int | None]:
    """The edit stored as a version of the held draft, then checked; a refusal is recorded as an attempt."""
    store = LedgerStore(sessions, run_id, pipeline)
    held = store.draft_version(held_version)
    assert held is not None
    title = edit.title or held.title
    version = store.add_draft_version(topic_id=held.topic_id, draft_id=held.draft_id, kind="edited", title=title,
                                      body=edit.body, score=None, scorer=f"editor:{editor or '-'}"[:32])
    try:
        recheck(store, version)
    except ToolRejected as exc:
        line = f"run {run_id}: the edit (version {version.id}) is refused: {exc.detail}; the run still awaits review"
        with sessions.begin() as s:
            s.add(Review(run_id=run_id, action=ReviewAction.approve, accepted=False, editor=editor,
                                 version_id=version.id, detail=line, requeue=False))
        return Decision(False, line, run_id, version.id), None
    return None, version.id


def reject(sessions: sessionmaker[Session], run_id: int, editor: str | None, reason: str, requeue: bool) -> Decision:
    with sessions.begin() as s:
        decision = reviews.reject(s, run_id, editor, reason, requeue)
    logger.info("review.reject", run_id=run_id, editor=editor, accepted=decision.accepted, line=decision.line)
    return decision


def carry_out(rt: Publisher, run_id: int) -> Continued | None:
    """Take the approved run and publish it here; None when another process took it first."""
    with rt.sessions.begin() as s:
        taken = runs.take_approved(s, run_id)
    if not taken:
        return None
    return continue_approved(rt, run_id)


def is_owed(sessions: sessionmaker[Session], run_id: int) -> bool:
    """An approved run that no live process is publishing (after returning the orphans of dead processes)."""
    with sessions.begin() as s:
        runs.return_orphans(s)
    with sessions() as s:
        run = s.get(Run, run_id)
        return run is not None and run.status == RunStatus.approved and run.sent_at is None


def carry_out_owed(rt: Publisher) -> list[Continued]:
    """Every approved run of this pipeline that no process is publishing (one whose process died): published now."""
    with rt.sessions.begin() as s:
        runs.return_orphans(s)
    with rt.sessions() as s:
        owed = reviews.owed(s, rt.settings.pipeline)
    return [done for run_id in owed if (done := carry_out(rt, run_id)) is not None]
