"""LedgerStore: the capabilities.store.Store protocol over the ledger, one short transaction per call.

Each write commits at once, so a crash right after a side effect still leaves its row: the next
run finds it by idempotency key and does not repeat the side effect.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from capabilities.verify import REFUSED_LINK
from capabilities.records import (ContentCheck, DraftVersionRecord, PublicationRecord, RegistrationRecord, SourceText,
                                  TopicRecord)
from capabilities.factcheck import CheckedFact
from pipeline.ledger.models import (Draft, DraftVersion, FactCheck, FactCheckItem, Publication, PublicationIntent,
                                   Registration, Run, Source, Topic)
from pipeline.ledger.locks import writer_lock
from pipeline.ledger.numbers import next_registration_number
from pipeline.ledger.summary import run_summary
from pipeline.ledger.reviews import rejected_topics
from pipeline.outcome import HOLDS_TOPIC, IntentStatus
from pipeline.tracing import NO_TRACING, Tracing

TOPIC_BATCH = 1000  # rows per INSERT: 2,000 bind parameters, far below PostgreSQL's 65,535 and SQLite's 32,766


def _version_record(version: DraftVersion, draft: Draft) -> DraftVersionRecord:
    return DraftVersionRecord(
        id=version.id, draft_id=draft.id, run_id=draft.run_id, topic_id=draft.topic_id, version=version.version,
        kind=version.kind, title=version.title, body=version.body, score=version.score,
    )


def _topic_record(row: Topic) -> TopicRecord:
    return TopicRecord(row.id, row.title, tuple(row.sources or ()), row.brief, tuple(row.tags or ()))


def _source_record(row: Source) -> SourceText:
    return SourceText(number=row.number, source=row.source, final_url=row.final_url, status=row.status, ok=row.ok,
                      title=row.title, digest=row.digest, text=row.text, failure=row.failure)


def _publication_record(p: Publication) -> PublicationRecord:
    return PublicationRecord(
        id=p.id, run_id=p.run_id, topic_id=p.topic_id, draft_version_id=p.draft_version_id, target=p.target,
        external_id=p.external_id, url=p.url, idempotency_key=p.idempotency_key, http_status=p.http_status,
        verified_at=p.verified_at, content_coverage=p.content_coverage, content_digest=p.content_digest,
        content_found=p.content_found,
    )


def _registration_record(r: Registration) -> RegistrationRecord:
    return RegistrationRecord(id=r.id, run_id=r.run_id, publication_id=r.publication_id, number=r.number)


def complete_intent(sessions: sessionmaker[Session], key: str, external_id: str, url: str) -> PublicationRecord:
    """Turn the pending intent ``key`` into its publications row (one transaction); the row if it exists already.

    The publication belongs to the run that last attempted it (the intent's run): the one whose request
    reached the target, even when another process settles it later.
    """
    try:
        with sessions.begin() as s:
            writer_lock(s, f"publication:{key}")  # SQLite: read and write in one writer transaction
            intent = s.scalars(select(PublicationIntent).where(PublicationIntent.idempotency_key == key)).one()
            if intent.publication_id is not None:
                return _publication_record(s.get_one(Publication, intent.publication_id))
            row = Publication(pipeline=intent.pipeline, run_id=intent.run_id, topic_id=intent.topic_id,
                              draft_version_id=intent.draft_version_id, target=intent.target,
                              external_id=external_id, url=url, idempotency_key=key)
            s.add(row)
            s.flush()
            intent.status, intent.publication_id = IntentStatus.published, row.id
            intent.completed_at = datetime.now(timezone.utc)
            return _publication_record(row)
    except IntegrityError:  # another process settled it first: its row is the publication
        with sessions() as s:
            existing = s.scalars(select(Publication).where(Publication.idempotency_key == key)).one()
            return _publication_record(existing)


class LedgerStore:
    """The ledger as one run of one pipeline sees it. What it records of a fact check also goes to the span
    current in the trace (pipeline.tracing), as RunJournal does with the rest of the run."""

    def __init__(self, sessions: sessionmaker[Session], run_id: int, pipeline: str = "content",
                 tracing: Tracing = NO_TRACING) -> None:
        self.sessions = sessions
        self.run_id = run_id
        self.pipeline = pipeline
        self.tracing = tracing

    # topics -----------------------------------------------------------------
    def topic(self, topic_id: int) -> TopicRecord | None:
        with self.sessions() as s:
            row = s.get(Topic, topic_id)
            return _topic_record(row) if row else None

    def topic_for_run(self) -> TopicRecord | None:
        with self.sessions() as s:
            run = s.get(Run, self.run_id)
            if run is None or run.topic_id is None:
                return None
            row = s.get(Topic, run.topic_id)
            return _topic_record(row) if row else None

    def claim_topic(self, titles: list[str], forced: str | None) -> TopicRecord | None:
        """Forced title, else a topic published but never registered (resume), else the first unused one.

        Topics are the pipeline's own: the same title in two pipelines is two topics. The choice is made
        under the pipeline's writer lock (pipeline.ledger.locks) and bound to this run: while the run is
        `running` (or awaiting review, or approved) no other run of the pipeline can take the topic (the partial unique index
        uq_runs_running_topic), whichever process continues the run.
        """
        wanted = [forced] if forced else list(dict.fromkeys(titles))
        ids = self._ensure_topics(wanted)
        for attempt in (1, 2):
            try:
                with self.sessions.begin() as s:
                    writer_lock(s, f"topic-claim:{self.pipeline}")
                    chosen = self._choose(s, [(ids[t], t) for t in wanted], forced is not None)
                    if chosen is not None:
                        s.execute(update(Run).where(Run.id == self.run_id).values(topic_id=chosen.id))
                    return chosen
            except IntegrityError:  # a claim made without the lock won the index; choose again, once
                if attempt == 2:
                    raise
        return None

    def describe_topic(self, topic_id: int, sources: tuple[str, ...], brief: str | None,
                       tags: tuple[str, ...]) -> TopicRecord:
        """Write what the topics source says of the topic now (its sources, brief and tags) onto its row."""
        with self.sessions.begin() as s:
            row = s.get_one(Topic, topic_id)
            row.sources, row.brief, row.tags = list(sources) or None, brief, list(tags) or None
            s.flush()
            return _topic_record(row)

    # sources ----------------------------------------------------------------
    def run_sources(self) -> list[SourceText]:
        with self.sessions() as s:
            rows = s.scalars(select(Source).where(Source.run_id == self.run_id).order_by(Source.number))
            return [_source_record(row) for row in rows]

    def add_source(self, *, topic_id: int, source: SourceText) -> SourceText:
        """Record a source as read; one row per (run, source): a second attempt gets the first row back."""
        try:
            with self.sessions.begin() as s:
                row = Source(run_id=self.run_id, topic_id=topic_id, number=source.number, source=source.source[:2000],
                             final_url=(source.final_url or "")[:2000] or None, status=source.status, ok=source.ok,
                             title=(source.title or "")[:500] or None, digest=source.digest, text=source.text,
                             failure=(source.failure or "")[:500] or None)
                s.add(row)
                s.flush()
                return _source_record(row)
        except IntegrityError:
            with self.sessions() as s:
                return _source_record(s.scalars(select(Source).where(
                    Source.run_id == self.run_id, Source.source == source.source[:2000])).one())

    def _ensure_topics(self, titles: list[str]) -> dict[str, int]:
        """The ids of ``titles``, inserting the new ones: idempotent (ON CONFLICT DO NOTHING) and batched."""
        with self.sessions() as s:
            ids = dict(s.execute(select(Topic.title, Topic.id).where(Topic.pipeline == self.pipeline)).all())
        missing = [t for t in titles if t not in ids]
        for start in range(0, len(missing), TOPIC_BATCH):
            chunk = missing[start:start + TOPIC_BATCH]
            with self.sessions.begin() as s:
                insert = postgresql.insert if s.get_bind().dialect.name == "postgresql" else sqlite.insert
                s.execute(insert(Topic).on_conflict_do_nothing(index_elements=["pipeline", "title"]),
                          [{"pipeline": self.pipeline, "title": t} for t in chunk])
                ids.update(s.execute(select(Topic.title, Topic.id).where(
                    Topic.pipeline == self.pipeline, Topic.title.in_(chunk))).all())
        return ids

    def _choose(self, s: Session, wanted: list[tuple[int, str]], forced: bool) -> TopicRecord | None:
        # busy before registered: a run that registers and finishes between the two reads is seen as registered
        busy = set(s.scalars(select(Run.topic_id).where(
            Run.pipeline == self.pipeline, Run.status.in_(HOLDS_TOPIC), Run.id != self.run_id)))
        busy |= rejected_topics(s, self.pipeline)  # an editor said no, without --requeue
        mine = Publication.pipeline == self.pipeline
        registered = set(s.scalars(select(Publication.topic_id).where(mine).join(
            Registration, Registration.publication_id == Publication.id)))
        pending = PublicationIntent.status == IntentStatus.pending
        unfinished = (set(s.scalars(select(Publication.topic_id).where(mine)))
                      | set(s.scalars(select(PublicationIntent.topic_id).where(
                          PublicationIntent.pipeline == self.pipeline, pending)))) - registered
        # a post whose link the client cannot even request is not resumed: every later run would end the same way
        refused = set() if forced else set(s.scalars(select(Publication.topic_id).where(
            mine, Publication.content_found.startswith(REFUSED_LINK))))
        candidates = [(i, t) for i, t in wanted if i not in registered | busy | refused]
        candidates.sort(key=lambda c: c[0] not in unfinished)  # stable: resumes first, then source order
        return TopicRecord(*candidates[0]) if candidates else None

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

    # fact checks ------------------------------------------------------------
    def record_fact_check(self, *, draft_version_id: int, round: int, mode: str, status: str, detail: str,
                          facts: list[CheckedFact]) -> None:
        """One check and each of its facts, in one transaction; then the check as span events (_trace_fact_check)."""
        with self.sessions.begin() as s:
            check = FactCheck(run_id=self.run_id, draft_version_id=draft_version_id, round=round, mode=mode,
                              status=status, facts=len(facts), unsupported=sum(not f.supported for f in facts),
                              detail=detail[:500])
            s.add(check)
            s.flush()
            s.add_all(FactCheckItem(fact_check_id=check.id, kind=f.fact.kind, fact=f.fact.text, sentence=f.fact.sentence,
                                    supported=f.supported, source_number=f.source_number, passage=f.passage)
                      for f in facts)
        self._trace_fact_check(draft_version_id, round, mode, status, facts)

    def _trace_fact_check(self, draft_version_id: int, round: int, mode: str, status: str,
                          facts: list[CheckedFact]) -> None:
        """The check's row as a ``factline.fact_check`` event on the current span (the fact_check tool call's
        execute_tool); each unsupported fact's text and sentence (article text) only with content capture."""
        unsupported = [f for f in facts if not f.supported]
        span = self.tracing.current()
        span.event("factline.fact_check", {
            "draft_version_id": draft_version_id, "round": round, "mode": mode, "status": status,
            "facts": len(facts), "unsupported": len(unsupported),
            "unsupported_kinds": [str(f.fact.kind) for f in unsupported]})
        if self.tracing.content_capture:
            for f in unsupported:
                span.event("factline.fact_check.unsupported", {
                    "draft_version_id": draft_version_id, "round": round, "kind": str(f.fact.kind),
                    "fact": f.fact.text, "sentence": f.fact.sentence})

    def fact_check_status(self, draft_version_id: int) -> str | None:
        """The status of the version's latest fact check (passed, warned, failed, off), None if never checked."""
        with self.sessions() as s:
            return s.scalar(select(FactCheck.status).where(FactCheck.draft_version_id == draft_version_id)
                            .order_by(FactCheck.id.desc()).limit(1))

    def fact_check_mode(self) -> str | None:
        """The mode of this run's latest fact check (strict, warn, off), None if it made none."""
        with self.sessions() as s:
            return s.scalar(select(FactCheck.mode).where(FactCheck.run_id == self.run_id)
                            .order_by(FactCheck.id.desc()).limit(1))

    # publications -----------------------------------------------------------
    def publication(self, publication_id: int) -> PublicationRecord | None:
        with self.sessions() as s:
            row = s.get(Publication, publication_id)
            return _publication_record(row) if row else None

    def publication_by_key(self, key: str) -> PublicationRecord | None:
        with self.sessions() as s:
            row = s.scalars(select(Publication).where(Publication.idempotency_key == key)).first()
            return _publication_record(row) if row else None

    def intend_publication(self, *, topic_id: int, draft_version_id: int, target: str, key: str, digest: str) -> None:
        """Write the publication down as pending, committed, before anything is sent to the target.

        Idempotent by key: a later attempt (this run continued, or another run resuming the topic)
        takes the pending row over; a published one is left as it is.
        """
        with self.sessions.begin() as s:
            insert = postgresql.insert if s.get_bind().dialect.name == "postgresql" else sqlite.insert
            values = {"run_id": self.run_id, "draft_version_id": draft_version_id, "content_digest": digest}
            s.execute(insert(PublicationIntent).values(
                pipeline=self.pipeline, topic_id=topic_id, target=target, idempotency_key=key,
                status=IntentStatus.pending, **values,
            ).on_conflict_do_update(index_elements=["idempotency_key"], set_=values,
                                    where=PublicationIntent.status == IntentStatus.pending))

    def complete_publication(self, *, key: str, external_id: str, url: str) -> PublicationRecord:
        """The target holds the pending publication ``key``: its publications row, in the intent's transaction."""
        return complete_intent(self.sessions, key, external_id, url)

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
