"""The ledger: SQLAlchemy 2.0 typed models. What the system executed, never what the model said it did.

Business identity is enforced by unique constraints: one run per scheduled tick of a pipeline, one
running run per topic of a pipeline (the topic claim, a partial unique index),
one topic title per pipeline, one publication per idempotency key, one registration per publication,
unique registration numbers (allocated from a per-day counter row), one answer per probe and prompt
variant in a probe run. Every business row carries the pipeline it belongs to.
"""

from __future__ import annotations

from datetime import datetime, timezone
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Enum,
    ForeignKey,
    Index,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from pipeline.outcome import RunStatus, Verdict

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {dict[str, Any]: JSON, list[str]: JSON, datetime: DateTime(timezone=True)}


def stored_enum(kind: type[StrEnum]) -> Enum:
    """A StrEnum column stored as its values in VARCHAR(16), as the plain string column it replaced (no migration,
    no CHECK constraint): written only from the enum (a stray string fails as it is written), read back as it."""
    return Enum(kind, native_enum=False, create_constraint=False, length=16, validate_strings=True,
                values_callable=lambda members: [m.value for m in members])


HOLDING = text("status IN ('running', 'awaiting_review', 'approved')")  # pipeline.outcome.HOLDS_TOPIC


class Run(Base):
    """One run of a pipeline. A run running, awaiting review or approved owns its topic: no other such run
    of its pipeline has it."""

    __tablename__ = "runs"
    __table_args__ = (
        UniqueConstraint("pipeline", "scheduled_for", name="uq_runs_tick"),
        Index("uq_runs_running_topic", "pipeline", "topic_id", unique=True,
              postgresql_where=HOLDING, sqlite_where=HOLDING),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    pipeline: Mapped[str] = mapped_column(String(64), default="content")
    trigger: Mapped[str] = mapped_column(String(16))  # manual | schedule
    dry_run: Mapped[bool] = mapped_column(Boolean, default=False)  # factline run --dry-run: preview, nothing published
    scheduled_for: Mapped[datetime | None]
    started_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)  # the dashboard's day ranges
    finished_at: Mapped[datetime | None]
    status: Mapped[RunStatus] = mapped_column(stored_enum(RunStatus), default=RunStatus.running, index=True)
    verdict: Mapped[Verdict | None] = mapped_column(stored_enum(Verdict), index=True)
    stop_reason: Mapped[str | None] = mapped_column(String(32))
    error: Mapped[str | None] = mapped_column(Text)
    model: Mapped[str | None] = mapped_column(String(200))
    prompt_version: Mapped[str | None] = mapped_column(String(16))
    catalog_version: Mapped[str | None] = mapped_column(String(16))
    tool_call_mode: Mapped[str | None] = mapped_column(String(16))
    topic_id: Mapped[int | None] = mapped_column(ForeignKey("topics.id"))
    tokens_used: Mapped[int] = mapped_column(default=0)
    host: Mapped[str | None] = mapped_column(String(200))
    pid: Mapped[int | None]
    sent_at: Mapped[datetime | None]  # celery executor: when the tick's task was last sent to the broker
    heartbeat_at: Mapped[datetime | None]  # celery executor: the worker running it was alive at this time
    trace_id: Mapped[str | None] = mapped_column(String(32))  # its OpenTelemetry trace (pipeline.tracing), when traced
    pruned_at: Mapped[datetime | None]  # factline db prune cleared its bulky texts (pipeline.ledger.prune)


class Topic(Base):
    __tablename__ = "topics"
    __table_args__ = (UniqueConstraint("pipeline", "title", name="uq_topics_pipeline_title"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    pipeline: Mapped[str] = mapped_column(String(64), default="content")
    title: Mapped[str] = mapped_column(String(500))
    first_seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    # what the topics file (or the feed entry) said when it was last picked: config.topics.TopicSpec
    sources: Mapped[list[str] | None] = mapped_column(JSON)  # URLs and absolute file paths, in order
    brief: Mapped[str | None] = mapped_column(Text)
    tags: Mapped[list[str] | None] = mapped_column(JSON)


class Source(Base):
    """One source of a run's topic, read once per run (capabilities.sources): what was asked, what came back."""

    __tablename__ = "sources"
    __table_args__ = (UniqueConstraint("run_id", "source"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"))  # indexed by the unique constraint
    topic_id: Mapped[int] = mapped_column(ForeignKey("topics.id"))
    number: Mapped[int]  # [1], [2]... as the draft cites it and the page lists it
    source: Mapped[str] = mapped_column(String(2000))  # the URL or path as the topic gives it
    final_url: Mapped[str | None] = mapped_column(String(2000))  # after redirects
    status: Mapped[int | None]  # the HTTP status (None: a local file, or no answer)
    ok: Mapped[bool] = mapped_column(Boolean)
    title: Mapped[str | None] = mapped_column(String(500))
    digest: Mapped[str | None] = mapped_column(String(64))  # sha256 of the extracted text
    text: Mapped[str | None] = mapped_column(Text)  # the extracted main text
    failure: Mapped[str | None] = mapped_column(String(500))  # why it could not be used, one line
    fetched_at: Mapped[datetime] = mapped_column(default=utcnow)


class FactCheck(Base):
    """One fact check of a version (capabilities.fact_check): its verdict, and the version publish may take."""

    __tablename__ = "fact_checks"

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    draft_version_id: Mapped[int] = mapped_column(ForeignKey("draft_versions.id"), index=True)  # the text checked
    round: Mapped[int]  # 0 the first check, 1.. after each revision
    mode: Mapped[str] = mapped_column(String(8))  # strict | warn | off
    status: Mapped[str] = mapped_column(String(8))  # passed | failed | warned | off
    facts: Mapped[int] = mapped_column(default=0)
    unsupported: Mapped[int] = mapped_column(default=0)
    detail: Mapped[str | None] = mapped_column(String(500))  # one line: "2 facts not in the sources: ..."
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class FactCheckItem(Base):
    """One checkable fact of a checked text, with its verdict and the passage that backs it."""

    __tablename__ = "fact_check_items"

    id: Mapped[int] = mapped_column(primary_key=True)
    fact_check_id: Mapped[int] = mapped_column(ForeignKey("fact_checks.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # capabilities.factcheck.FactKind
    fact: Mapped[str] = mapped_column(Text)
    sentence: Mapped[str] = mapped_column(Text)
    supported: Mapped[bool] = mapped_column(Boolean)
    source_number: Mapped[int | None]  # the source that backs it; 0 the brief; None unsupported
    passage: Mapped[str | None] = mapped_column(Text)


class ToolCall(Base):
    """The fact ledger: one row per tool call the model emitted, executed or not."""

    __tablename__ = "tool_calls"
    __table_args__ = (UniqueConstraint("run_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    seq: Mapped[int]
    turn: Mapped[int]
    call_id: Mapped[str | None] = mapped_column(String(100))
    name: Mapped[str] = mapped_column(String(200))
    arguments: Mapped[str] = mapped_column(Text)  # raw text as the model sent it
    outcome: Mapped[str] = mapped_column(String(16))  # pipeline.outcome.CallOutcome
    reason: Mapped[str | None] = mapped_column(String(40))
    shadow_of: Mapped[str | None] = mapped_column(String(64))
    result: Mapped[dict[str, Any] | None]
    error_class: Mapped[str | None] = mapped_column(String(100))
    detail: Mapped[str | None] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(default=0)
    latency_ms: Mapped[int] = mapped_column(default=0)
    idempotency_key: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Draft(Base):
    __tablename__ = "drafts"

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    topic_id: Mapped[int] = mapped_column(ForeignKey("topics.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class DraftVersion(Base):
    __tablename__ = "draft_versions"
    __table_args__ = (UniqueConstraint("draft_id", "version"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    draft_id: Mapped[int] = mapped_column(ForeignKey("drafts.id"), index=True)
    version: Mapped[int]
    kind: Mapped[str] = mapped_column(String(16))  # draft | humanized
    title: Mapped[str] = mapped_column(String(500))
    body: Mapped[str] = mapped_column(Text)
    score: Mapped[int | None]
    scorer: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Publication(Base):
    __tablename__ = "publications"

    id: Mapped[int] = mapped_column(primary_key=True)
    pipeline: Mapped[str] = mapped_column(String(64), default="content", index=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    topic_id: Mapped[int] = mapped_column(ForeignKey("topics.id"), index=True)
    draft_version_id: Mapped[int] = mapped_column(ForeignKey("draft_versions.id"), index=True)  # what it holds now
    target: Mapped[str] = mapped_column(String(32))
    external_id: Mapped[str] = mapped_column(String(200))
    url: Mapped[str] = mapped_column(String(2000))
    idempotency_key: Mapped[str] = mapped_column(String(200), unique=True)
    http_status: Mapped[int | None]  # the last check's answer to GET (None: not requested, no answer)
    verified_at: Mapped[datetime | None]  # when a check last found the article on the page; None if it did not
    content_coverage: Mapped[float | None]  # the share of the article the page held at the last check
    content_digest: Mapped[str | None] = mapped_column(String(64))  # sha256 of the title and body HTML sent
    content_found: Mapped[str | None] = mapped_column(String(500))  # what the last check found, one line
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)  # the dashboard's day filter
    retracted_at: Mapped[datetime | None]  # factline retract: taken down (the row and its registration stay)


class PublicationIntent(Base):
    """The outbox: a publication written down before its request leaves, completed when the target answers.

    ``pending`` is committed before anything is sent to the target; ``published`` (with the publication row,
    in one transaction) once the target answered or its lookup by key found the item. A pending row whose
    run died is settled at the next start, or by the next attempt on its topic (pipeline.ledger.outbox).
    """

    __tablename__ = "publication_intents"

    id: Mapped[int] = mapped_column(primary_key=True)
    pipeline: Mapped[str] = mapped_column(String(64), default="content")
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)  # the run that last attempted it
    topic_id: Mapped[int] = mapped_column(ForeignKey("topics.id"), index=True)
    draft_version_id: Mapped[int] = mapped_column(ForeignKey("draft_versions.id"), index=True)
    target: Mapped[str] = mapped_column(String(32))
    idempotency_key: Mapped[str] = mapped_column(String(200), unique=True)
    content_digest: Mapped[str] = mapped_column(String(64))  # sha256 of the title and body to be published
    status: Mapped[str] = mapped_column(String(16), default="pending", index=True)  # pipeline.outcome.IntentStatus
    publication_id: Mapped[int | None] = mapped_column(ForeignKey("publications.id"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    completed_at: Mapped[datetime | None]


class Registration(Base):
    __tablename__ = "registrations"

    id: Mapped[int] = mapped_column(primary_key=True)
    pipeline: Mapped[str] = mapped_column(String(64), default="content", index=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    publication_id: Mapped[int] = mapped_column(ForeignKey("publications.id"), unique=True)
    number: Mapped[str] = mapped_column(String(32), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    retracted_at: Mapped[datetime | None]  # its publication was retracted: the number is kept, marked
    corrections: Mapped[int] = mapped_column(default=0)  # factline correct: the same number, corrected N times


class RegistrationCounter(Base):
    """The last registration number given out on one UTC day (YYYYMMDD); incremented under its row lock."""

    __tablename__ = "registration_counters"

    day: Mapped[str] = mapped_column(String(8), primary_key=True)
    last: Mapped[int]


class PublicationChange(Base):
    """What an editor did to a publication after it went out: a retraction or a correction, who, when, why.

    A correction names the version now published (``version_id``) and what its check found again.
    """

    __tablename__ = "publication_changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    publication_id: Mapped[int] = mapped_column(ForeignKey("publications.id"), index=True)
    action: Mapped[str] = mapped_column(String(16))  # retract | correct
    editor: Mapped[str | None] = mapped_column(String(200))
    reason: Mapped[str] = mapped_column(Text)
    version_id: Mapped[int | None] = mapped_column(ForeignKey("draft_versions.id"), index=True)
    detail: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Review(Base):
    """The review of a run held before publish: its request, then every editor's attempt, accepted or not.

    ``requested`` names the version held and where its preview page is; ``approve`` names the version to
    publish (the held one, or the editor's edit as a version of its own); ``reject`` its reason and whether
    the topic goes back to the queue; ``expire`` REVIEW_EXPIRE_HOURS passing. A refused attempt (the run was
    already decided) is recorded too, with why (``detail``): who tried what, and when, is never lost.
    """

    __tablename__ = "reviews"

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    action: Mapped[str] = mapped_column(String(16))  # pipeline.outcome.ReviewAction
    accepted: Mapped[bool] = mapped_column(Boolean)
    editor: Mapped[str | None] = mapped_column(String(200))
    version_id: Mapped[int | None] = mapped_column(ForeignKey("draft_versions.id"), index=True)
    reason: Mapped[str | None] = mapped_column(Text)
    requeue: Mapped[bool] = mapped_column(Boolean, default=False)
    preview: Mapped[str | None] = mapped_column(String(1000))
    detail: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class AgentTurn(Base):
    """What the model wrote in one turn, verbatim (NULs escaped): the text the guard read, shown by the dashboard."""

    __tablename__ = "turns"
    __table_args__ = (UniqueConstraint("run_id", "turn"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"))  # indexed by the unique constraint
    turn: Mapped[int]
    text: Mapped[str] = mapped_column(Text)
    calls: Mapped[int] = mapped_column(default=0)
    tokens: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Claim(Base):
    """Something the model's text asserted: a capability's completion, an artifact, or a tool call in prose."""

    __tablename__ = "claims"

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    turn: Mapped[int]
    kind: Mapped[str] = mapped_column(String(16))  # pipeline.outcome.FindingKind
    capability: Mapped[str | None] = mapped_column(String(64))
    span: Mapped[str] = mapped_column(Text)
    backed: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Nudge(Base):
    __tablename__ = "nudges"

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    turn: Mapped[int]
    kind: Mapped[str] = mapped_column(String(24))  # pipeline.outcome.NudgeKind
    detail: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class RunEvent(Base):
    """Everything else worth counting: LLM retries, escalations, stops."""

    __tablename__ = "run_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id"), index=True)
    kind: Mapped[str] = mapped_column(String(32))  # pipeline.outcome.EventKind
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ProbeRun(Base):
    """One run of the probe suite; resume finds the latest run with the same key (see pipeline.probe.storage)."""

    __tablename__ = "probe_runs"
    __table_args__ = (
        Index("ix_probe_runs_key", "model", "mode", "source", "prompt_version", "catalog_version", "suite_version"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    model: Mapped[str] = mapped_column(String(200))
    mode: Mapped[str] = mapped_column(String(16))  # native | constrained
    source: Mapped[str] = mapped_column(String(16))  # factline | bfcl | all
    prompt_version: Mapped[str] = mapped_column(String(16))
    catalog_version: Mapped[str] = mapped_column(String(16))
    suite_version: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
    status: Mapped[str] = mapped_column(String(16), default="running")  # running|finished|capped|interrupted
    tokens: Mapped[int] = mapped_column(default=0)


class ProbeResult(Base):
    """The raw reply to one probe under one system-prompt variant, and its Verdict fields."""

    __tablename__ = "probe_results"
    __table_args__ = (UniqueConstraint("probe_run_id", "probe_id", "variant"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    probe_run_id: Mapped[int] = mapped_column(ForeignKey("probe_runs.id"))  # indexed by the unique constraint
    probe_id: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))
    variant: Mapped[str] = mapped_column(String(16))  # matched | overclaimed
    reply: Mapped[dict[str, Any] | None]  # {"message": raw assistant message, "content", "tool_calls"}
    error: Mapped[str | None] = mapped_column(Text)  # the endpoint refused this request (e.g. HTTP 400)
    unknown_tool: Mapped[bool | None]
    malformed: Mapped[bool | None]
    shadow: Mapped[bool | None]
    hallucinated_argument: Mapped[bool | None]
    outcome: Mapped[str | None] = mapped_column(String(16))
    tokens: Mapped[int] = mapped_column(default=0)
    latency_ms: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
