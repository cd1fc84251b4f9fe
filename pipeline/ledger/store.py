"""LedgerStore: the capabilities.store.Store protocol over the ledger, one short transaction per call.

Each write commits at once, so a crash right after a side effect still leaves its row: the next
run finds it by idempotency key and does not repeat the side effect.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from capabilities.records import ContentCheck, DraftVersionRecord, PublicationRecord, RegistrationRecord, TopicRecord
from pipeline.ledger.models import Draft, DraftVersion, Publication, Registration, Run, Topic
from pipeline.ledger.numbers import next_registration_number
from pipeline.ledger.summary import run_summary


def _version_record(version: DraftVersion, draft: Draft) -> DraftVersionRecord:
    return DraftVersionRecord(
        id=version.id, draft_id=draft.id, run_id=draft.run_id, topic_id=draft.topic_id, version=version.version,
        kind=version.kind, title=version.title, body=version.body, score=version.score,
    )


def _publication_record(p: Publication) -> PublicationRecord:
    return PublicationRecord(
        id=p.id, run_id=p.run_id, topic_id=p.topic_id, draft_version_id=p.draft_version_id, target=p.target,
        external_id=p.external_id, url=p.url, idempotency_key=p.idempotency_key, http_status=p.http_status,
        verified_at=p.verified_at, content_coverage=p.content_coverage, content_digest=p.content_digest,
        content_found=p.content_found,
    )


def _registration_record(r: Registration) -> RegistrationRecord:
    return RegistrationRecord(id=r.id, run_id=r.run_id, publication_id=r.publication_id, number=r.number)


class LedgerStore:
    """The ledger as one run of one pipeline sees it."""

    def __init__(self, sessions: sessionmaker[Session], run_id: int, pipeline: str = "content") -> None:
        self.sessions = sessions
        self.run_id = run_id
        self.pipeline = pipeline

    # topics -----------------------------------------------------------------
    def topic(self, topic_id: int) -> TopicRecord | None:
        with self.sessions() as s:
            row = s.get(Topic, topic_id)
            return TopicRecord(row.id, row.title) if row else None

    def topic_for_run(self) -> TopicRecord | None:
        with self.sessions() as s:
            run = s.get(Run, self.run_id)
            if run is None or run.topic_id is None:
                return None
            row = s.get(Topic, run.topic_id)
            return TopicRecord(row.id, row.title) if row else None

    def claim_topic(self, titles: list[str], forced: str | None) -> TopicRecord | None:
        """Forced title, else a topic published but never registered (resume), else the first unused one.

        Topics are the pipeline's own: the same title in two pipelines is two topics.
        """
        with self.sessions.begin() as s:
            wanted = [forced] if forced else titles
            known = {t.title: t for t in s.scalars(select(Topic).where(
                Topic.pipeline == self.pipeline, Topic.title.in_(wanted)))}
            for title in wanted:
                if title not in known:
                    known[title] = Topic(pipeline=self.pipeline, title=title)
                    s.add(known[title])
            s.flush()
            mine = Publication.pipeline == self.pipeline
            registered = set(s.scalars(select(Publication.topic_id).where(mine).join(
                Registration, Registration.publication_id == Publication.id)))
            busy = set(s.scalars(select(Run.topic_id).where(
                Run.pipeline == self.pipeline, Run.status == "running", Run.id != self.run_id)))
            candidates = [known[t] for t in wanted if known[t].id not in registered and known[t].id not in busy]
            unfinished = set(s.scalars(select(Publication.topic_id).where(mine))) - registered
            candidates.sort(key=lambda t: t.id not in unfinished)  # stable: resumes first, then source order
            if not candidates:
                return None
            chosen = candidates[0]
            s.get(Run, self.run_id).topic_id = chosen.id  # type: ignore[union-attr]
            return TopicRecord(chosen.id, chosen.title)

    # drafts -----------------------------------------------------------------
    def add_draft_version(
        self, *, topic_id: int, draft_id: int | None, kind: str, title: str, body: str, score: int | None,
        scorer: str | None,
    ) -> DraftVersionRecord:
        with self.sessions.begin() as s:
            if draft_id is None:
                draft = Draft(run_id=self.run_id, topic_id=topic_id)
                s.add(draft)
                s.flush()
            else:
                draft = s.get_one(Draft, draft_id)
            number = s.scalar(select(func.coalesce(func.max(DraftVersion.version), 0)).where(
                DraftVersion.draft_id == draft.id)) + 1
            version = DraftVersion(draft_id=draft.id, version=number, kind=kind, title=title, body=body,
                                   score=score, scorer=scorer)
            s.add(version)
            s.flush()
            return _version_record(version, draft)

    def draft_version(self, version_id: int) -> DraftVersionRecord | None:
        with self.sessions() as s:
            version = s.get(DraftVersion, version_id)
            return _version_record(version, s.get_one(Draft, version.draft_id)) if version else None

    def latest_version(self, draft_id: int) -> DraftVersionRecord | None:
        with self.sessions() as s:
            draft = s.get(Draft, draft_id)
            if draft is None:
                return None
            version = s.scalars(select(DraftVersion).where(DraftVersion.draft_id == draft_id)
                                .order_by(DraftVersion.version.desc()).limit(1)).first()
            return _version_record(version, draft) if version else None

    # publications -----------------------------------------------------------
    def publication(self, publication_id: int) -> PublicationRecord | None:
        with self.sessions() as s:
            row = s.get(Publication, publication_id)
            return _publication_record(row) if row else None

    def publication_by_key(self, key: str) -> PublicationRecord | None:
        with self.sessions() as s:
            row = s.scalars(select(Publication).where(Publication.idempotency_key == key)).first()
            return _publication_record(row) if row else None

    def add_publication(
        self, *, topic_id: int, draft_version_id: int, target: str, external_id: str, url: str, key: str
    ) -> PublicationRecord:
        try:
            with self.sessions.begin() as s:
                row = Publication(pipeline=self.pipeline, run_id=self.run_id, topic_id=topic_id, draft_version_id=draft_version_id,
                                  target=target, external_id=external_id, url=url, idempotency_key=key)
                s.add(row)
                s.flush()
                return _publication_record(row)
        except IntegrityError:
            existing = self.publication_by_key(key)  # a concurrent writer won: its row is the publication
            if existing is None:
                raise
            return existing

    def record_check(self, publication_id: int, check: ContentCheck, digest: str) -> PublicationRecord:
        with self.sessions.begin() as s:
            row = s.get_one(Publication, publication_id)
            row.http_status = check.status
            row.verified_at = datetime.now(timezone.utc) if check.verified else None
            row.content_coverage = check.coverage
            row.content_digest = digest
            row.content_found = check.found[:500]
            s.flush()
            return _publication_record(row)

    # registrations ----------------------------------------------------------
    def registration_for(self, publication_id: int) -> RegistrationRecord | None:
        with self.sessions() as s:
            row = s.scalars(select(Registration).where(Registration.publication_id == publication_id)).first()
            return _registration_record(row) if row else None

    def add_registration(self, publication_id: int) -> RegistrationRecord:
        """Register under the day's next number (pipeline.ledger.numbers); a concurrent registration wins."""
        try:
            with self.sessions.begin() as s:
                number = next_registration_number(s, datetime.now(timezone.utc))
                row = Registration(pipeline=self.pipeline, run_id=self.run_id, publication_id=publication_id,
                                   number=number)
                s.add(row)
                s.flush()
                return _registration_record(row)
        except IntegrityError:
            existing = self.registration_for(publication_id)  # another run registered it first
            if existing is None:
                raise
            return existing

    def run_summary(self) -> dict[str, object]:
        with self.sessions() as s:
            return run_summary(s, self.run_id)
