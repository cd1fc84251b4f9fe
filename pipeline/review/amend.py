"""After publishing: retract a publication, or correct it in place, recorded with who, when and why.

    retract(publisher, publication, reason, editor)   the target takes it down (WordPress: the post leaves
                                                      `publish`; the local site: 410 with a notice, out of the
                                                      index and feed); the row and its registration stay,
                                                      marked retracted
    correct(publisher, publication, edit, reason, editor)
                                                      the edit becomes a version of its own, checked again, the
                                                      same post or page is updated (same URL), its page is
                                                      verified again; the registration keeps its number with
                                                      the correction counted

A retracted publication cannot be corrected or retracted again (one line, exit 1). A correction whose page
check fails is recorded with what the page held, and answered as not verified.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from loguru import logger
from sqlalchemy import select, update

from capabilities.base import CapabilityContext
from capabilities.errors import CapabilityError, ToolRejected
from capabilities.publish import content_digest, source_refs
from capabilities.records import Article
from capabilities.verify import verify_publication
from pipeline.ledger.models import Draft, DraftVersion, Publication, PublicationChange, Registration, Topic
from pipeline.ledger.store import LedgerStore
from pipeline.review.decide import Edit, recheck
from pipeline.review.publisher import NoTextModel
from pipeline.runtime import Publisher


@dataclass(frozen=True)
class Amended:
    done: bool
    line: str


def _publication(rt: Publisher, publication_id: int) -> Publication | None:
    with rt.sessions() as s:
        row = s.get(Publication, publication_id)
        if row is not None:
            s.expunge(row)
        return row


def retract(rt: Publisher, publication_id: int, reason: str, editor: str | None) -> Amended:
    row = _publication(rt, publication_id)
    if row is None:
        raise LookupError(f"no publication {publication_id} in the ledger")
    if row.retracted_at is not None:
        return Amended(False, f"publication {publication_id} was already retracted at {row.retracted_at:%Y-%m-%d %H:%M:%S}")
    try:
        rt.target.retract(row.external_id, f"Retracted: {reason}")
    except CapabilityError as exc:
        return Amended(False, f"publication {publication_id}: the target refused the retraction: {exc.detail}")
    at = datetime.now(timezone.utc)
    with rt.sessions.begin() as s:
        s.execute(update(Publication).where(Publication.id == publication_id).values(retracted_at=at))
        s.execute(update(Registration).where(Registration.publication_id == publication_id).values(retracted_at=at))
        s.add(PublicationChange(publication_id=publication_id, action="retract", editor=editor, reason=reason))
    logger.info("publication.retracted", publication_id=publication_id, editor=editor)
    return Amended(True, f"publication {publication_id} retracted ({row.url}); its registration is kept, marked retracted")


def correct(rt: Publisher, publication_id: int, edit: Edit, reason: str, editor: str | None) -> Amended:
    row = _publication(rt, publication_id)
    if row is None:
        raise LookupError(f"no publication {publication_id} in the ledger")
    if row.retracted_at is not None:
        return Amended(False, f"publication {publication_id} is retracted; a retracted article is not corrected")
    with rt.sessions() as s:
        current = s.get_one(DraftVersion, row.draft_version_id)
        draft = s.get_one(Draft, current.draft_id)
        topic_row = s.get_one(Topic, row.topic_id)
        topic, tags = topic_row.title, tuple(topic_row.tags or ())
        title, draft_id, topic_id = edit.title or current.title, draft.id, draft.topic_id
    store = LedgerStore(rt.sessions, row.run_id, row.pipeline)
    version = store.add_draft_version(topic_id=topic_id, draft_id=draft_id, kind="correction", title=title,
                                      body=edit.body, score=None, scorer=f"editor:{editor or '-'}"[:32])
    try:
        recheck(store, version)
        rt.target.update(row.external_id, Article(title, edit.body, row.idempotency_key, topic, rt.settings.language,
                                                  source_refs(store), tags))
    except (ToolRejected, CapabilityError) as exc:
        return Amended(False, f"publication {publication_id}: the correction (version {version.id}) is refused: "
                              f"{exc.detail}; the page is unchanged")
    with rt.sessions.begin() as s:
        s.execute(update(Publication).where(Publication.id == publication_id).values(
            draft_version_id=version.id, content_digest=content_digest(title, edit.body)))
    ctx = CapabilityContext(run_id=row.run_id, settings=rt.settings, store=store, http=rt.http, page_http=rt.page_http,
                            text_model=NoTextModel(), target=rt.target)
    record = store.publication(publication_id)
    assert record is not None
    rt.deadline.start(rt.settings.run_max_seconds)
    try:
        checked = verify_publication(ctx, record, version)
        found = checked.content_found
    except CapabilityError as exc:  # the page did not answer: the correction is out, its check is not
        checked, found = record, f"the page check failed: {exc.detail}"
    finally:
        rt.deadline.clear()
    verified = checked.verified_at is not None and found == checked.content_found
    with rt.sessions.begin() as s:
        s.add(PublicationChange(publication_id=publication_id, action="correct", editor=editor, reason=reason,
                                version_id=version.id, detail=found))
        s.execute(update(Registration).where(Registration.publication_id == publication_id).values(
            corrections=Registration.corrections + 1))
        number = s.scalar(select(Registration.number).where(Registration.publication_id == publication_id))
    logger.info("publication.corrected", publication_id=publication_id, version_id=version.id, verified=verified)
    kept = f"; registration {number} kept, correction noted" if number else ""
    if not verified:
        return Amended(False, f"publication {publication_id} corrected at {row.url} but NOT verified: "
                              f"{found}{kept}")
    return Amended(True, f"publication {publication_id} corrected in place at {row.url} (version {version.id}), "
                         f"verified: {found}{kept}")
