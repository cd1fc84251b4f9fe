"""Retention: the bulky texts of old runs removed from the ledger, in batches; the facts stay.

A run is pruned when it is finished or interrupted (never queued, running, awaiting review or approved:
``PRUNABLE``), started before the cut-off, and not pruned yet (``runs.pruned_at``). In one transaction per
batch of ``BATCH_RUNS`` runs, pruning clears:

    turns.text                the model's text of each turn                      -> ''
    tool_calls.arguments      when longer than KEEP_CHARS                       -> ''
    tool_calls.result         fields whose JSON is longer than KEEP_CHARS         dropped, named in "_pruned"
    sources.text              the extracted text, unless the run published        -> NULL (its sha256 stays)
    draft_versions.body       versions nothing names (see below)                  -> ''

and sets ``runs.pruned_at``. What a reader still needs is kept: every row and count the claim-vs-fact audit
(``factline diff``), ``report``, the dashboard and the registrations read (runs, claims, nudges, events, fact
checks, tool call names, outcomes, ids, URLs and numbers); the text each publication holds now (its
``draft_version_id``, updated by each correction) and every version a publication change, an outbox intent
or a review names; and the source texts of every run that published, since ``factline correct`` checks a
correction against them. Publications, registrations, retractions and corrections are never written.

With an archive, a batch's texts are appended to it as JSON Lines (one object per run) and the file is
fsynced before the batch's transaction clears them. A prune killed midway loses nothing: a batch either
committed (and its lines were on disk first) or rolled back (its runs are pruned by the next prune, and
their lines may then appear twice; a line the kill tore is cut off by the next prune's ``Archive``). Each batch opens with the write on ``runs`` that
re-checks every condition under the write lock, so a daemon working beside it is never pruned under.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from sqlalchemy import Engine, exists, func, or_, select, text, update
from sqlalchemy.orm import Session, sessionmaker

from pipeline.ledger.models import (AgentTurn, Draft, DraftVersion, Publication, PublicationChange, PublicationIntent,
                                    Review, Run, Source, ToolCall)
from pipeline.outcome import RunStatus

PRUNABLE = (RunStatus.finished, RunStatus.interrupted)
BATCH_RUNS = 500
KEEP_CHARS = 200
PRUNED_KEY = "_pruned"
PRUNED_NOTE = "text pruned"
"""What readers show where a pruned run's text was."""


@dataclass(frozen=True)
class Pruned:
    """What one prune did: runs pruned, texts cleared, archive lines written."""

    runs: int
    texts: int
    archived: int


def _prunable(before: datetime) -> Any:
    return (Run.status.in_([str(s) for s in PRUNABLE]), Run.started_at < before, Run.pruned_at.is_(None))


def prunable_runs(s: Session, before: datetime) -> int:
    """How many runs a prune before ``before`` would prune now."""
    return s.scalar(select(func.count()).select_from(Run).where(*_prunable(before))) or 0


def short_result(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` without its fields longer than KEEP_CHARS as JSON; the dropped ones named under "_pruned"."""
    kept, dropped = {}, []
    for key, value in result.items():
        if len(json.dumps(value, ensure_ascii=False)) <= KEEP_CHARS:
            kept[key] = value
        else:
            dropped.append(key)
    return {**kept, PRUNED_KEY: dropped} if dropped else result


class Archive:
    """JSON Lines appended to ``path``; ``write`` returns once the lines are fsynced. A torn last line (a prune
    killed in the middle of a batch's write, which then never committed) is cut off before the first append,
    so that the next line does not glue onto it."""

    def __init__(self, path: Path) -> None:
        created = not path.exists()
        if not created:
            cut_torn_line(path)
        self.file: IO[str] = path.open("a", encoding="utf-8")
        if created:  # the new file's name must survive a crash too
            folder = os.open(path.resolve().parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)

    def write(self, records: Iterable[dict[str, Any]]) -> int:
        lines = [json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records]
        self.file.writelines(lines)
        self.file.flush()
        os.fsync(self.file.fileno())
        return len(lines)

    def close(self) -> None:
        self.file.close()


def cut_torn_line(path: Path) -> None:
    """Truncate ``path`` just after its last newline (to nothing when it has none), fsynced."""
    chunk = 1 << 16
    with path.open("r+b") as file:
        end = position = file.seek(0, os.SEEK_END)
        keep = 0
        while position > 0:
            start = max(0, position - chunk)
            file.seek(start)
            newline = file.read(position - start).rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            position = start
        if keep < end:
            file.truncate(keep)
            os.fsync(file.fileno())


def _named() -> Any:
    """A version some publication, publication change, outbox intent or review names (each column indexed)."""
    return or_(exists().where(Publication.draft_version_id == DraftVersion.id),
               exists().where(PublicationChange.version_id == DraftVersion.id),
               exists().where(PublicationIntent.draft_version_id == DraftVersion.id),
               exists().where(Review.version_id == DraftVersion.id))


def _texts(s: Session, run_ids: list[int]) -> dict[str, list[Any]]:
    """The rows of these runs that hold a text pruning clears, by table."""
    published = select(Publication.run_id).where(Publication.run_id.in_(run_ids))
    return {
        "turns": list(s.scalars(select(AgentTurn).where(AgentTurn.run_id.in_(run_ids), AgentTurn.text != "")
                                .order_by(AgentTurn.run_id, AgentTurn.turn))),
        "tool_calls": list(s.scalars(select(ToolCall).where(ToolCall.run_id.in_(run_ids))
                                     .order_by(ToolCall.run_id, ToolCall.seq))),
        "sources": list(s.scalars(select(Source).where(Source.run_id.in_(run_ids), Source.text.is_not(None),
                                                       Source.run_id.not_in(published))
                                  .order_by(Source.run_id, Source.number))),
        "versions": list(s.execute(select(DraftVersion, Draft.run_id).join(Draft, Draft.id == DraftVersion.draft_id)
                                   .where(Draft.run_id.in_(run_ids), DraftVersion.body != "", ~_named())
                                   .order_by(DraftVersion.id))),
    }


def _clear(rows: dict[str, list[Any]], now: datetime, archive: Archive | None,
           runs: dict[int, Run]) -> tuple[int, int]:
    """Clear the texts of ``rows`` in the session, having archived them (when asked): the UPDATEs are sent at
    the commit, after the archive's fsync. Returns (texts cleared, archive lines)."""
    records: dict[int, dict[str, Any]] = {
        run_id: {"run_id": run_id, "pipeline": run.pipeline, "started_at": run.started_at, "pruned_at": now,
                 "turns": [], "tool_calls": [], "sources": [], "draft_versions": []} for run_id, run in runs.items()}
    cleared = 0
    for turn in rows["turns"]:
        records[turn.run_id]["turns"].append({"turn": turn.turn, "text": turn.text})
        turn.text, cleared = "", cleared + 1
    for call in rows["tool_calls"]:
        long_arguments = len(call.arguments) > KEEP_CHARS
        result = short_result(call.result) if isinstance(call.result, dict) else call.result
        if not long_arguments and result is call.result:
            continue
        records[call.run_id]["tool_calls"].append({"seq": call.seq, "name": call.name, "arguments": call.arguments,
                                                   "result": call.result})
        if long_arguments:
            call.arguments, cleared = "", cleared + 1
        if result is not call.result:
            call.result, cleared = result, cleared + 1
    for source in rows["sources"]:
        records[source.run_id]["sources"].append({"number": source.number, "source": source.source,
                                                  "digest": source.digest, "text": source.text})
        source.text, cleared = None, cleared + 1
    for version, run_id in rows["versions"]:
        records[run_id]["draft_versions"].append({"id": version.id, "version": version.version, "kind": version.kind,
                                                  "title": version.title, "body": version.body})
        version.body, cleared = "", cleared + 1
    return cleared, archive.write(records.values()) if archive is not None else 0


@dataclass(frozen=True)
class Batch:
    runs: int  # pruned by this batch (0: another prune took them meanwhile)
    texts: int
    archived: int
    last_id: int  # the highest run id looked at: the next batch starts after it


def prune_batch(sessions: sessionmaker[Session], before: datetime, archive: Archive | None,
                size: int = BATCH_RUNS, after: int = 0) -> Batch | None:
    """Prune the next ``size`` prunable runs with an id above ``after``, in one transaction; None when no run
    is left. Runs another prune (a replica's) took meanwhile are skipped."""
    with sessions() as s:
        candidates = list(s.scalars(select(Run.id).where(Run.id > after, *_prunable(before))
                                    .order_by(Run.id).limit(size)))
    if not candidates:
        return None
    now = datetime.now(timezone.utc)
    with sessions.begin() as s:
        # the first statement writes: SQLite takes its write lock here (waiting its busy timeout), and every
        # condition is checked again under it
        ids = list(s.scalars(update(Run).where(Run.id.in_(candidates), *_prunable(before))
                             .values(pruned_at=now).returning(Run.id)))
        if not ids:
            return Batch(0, 0, 0, candidates[-1])
        runs = {r.id: r for r in s.scalars(select(Run).where(Run.id.in_(ids)).order_by(Run.id))}
        texts, lines = _clear(_texts(s, ids), now, archive, runs)  # the commit sends the UPDATEs
    return Batch(len(ids), texts, lines, candidates[-1])


def prune(sessions: sessionmaker[Session], before: datetime, archive_path: Path | None = None,
          progress: Callable[[int, int], None] | None = None, size: int = BATCH_RUNS,
          stop: threading.Event | None = None) -> Pruned:
    """Prune every run prunable before ``before``, batch by batch in id order; ``progress(done, total)`` after
    each. ``stop`` set (the daemon stopping) ends it between two batches."""
    with sessions() as s:
        total = prunable_runs(s, before)
    archive = Archive(archive_path) if archive_path is not None else None
    done = texts = lines = last_id = 0
    try:
        while not (stop is not None and stop.is_set()) and (
                batch := prune_batch(sessions, before, archive, size, last_id)) is not None:
            done, texts, lines, last_id = done + batch.runs, texts + batch.texts, lines + batch.archived, batch.last_id
            reclaim(sessions.kw["bind"])
            if progress is not None:
                progress(done, max(total, done))
    finally:
        if archive is not None:
            archive.close()
    return Pruned(done, texts, lines)


def reclaim(engine: Engine) -> None:
    """SQLite: give the pages a batch freed back to the file system, when the ledger is in incremental
    auto-vacuum (every ledger created since migration 0012, or VACUUMed once), and fold the WAL back into the
    file. A no-op elsewhere."""
    if engine.dialect.name != "sqlite":
        return
    with engine.connect() as conn:
        if conn.execute(text("PRAGMA auto_vacuum")).scalar() == 2:
            conn.commit()
            # the pragma frees one page per step, and sqlite3's execute() steps once: executescript steps to the end
            conn.connection.driver_connection.executescript("PRAGMA incremental_vacuum;")  # type: ignore[union-attr]
        conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))


def vacuum(engine: Engine) -> None:
    """Rewrite the ledger compactly: SQLite VACUUM (the file shrinks, and it switches to incremental
    auto-vacuum; writers wait meanwhile), PostgreSQL VACUUM ANALYZE (space made reusable, no long lock)."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        if engine.dialect.name == "sqlite":
            conn.execute(text("PRAGMA auto_vacuum=INCREMENTAL"))
            conn.execute(text("VACUUM"))
            conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
        else:
            conn.execute(text("VACUUM ANALYZE"))


def ledger_size(engine: Engine) -> int:
    """Bytes the ledger takes: the SQLite file with its WAL, or pg_database_size."""
    if engine.dialect.name == "sqlite":
        path = Path(str(engine.url.database))
        return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.is_file())
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT pg_database_size(current_database())")).scalar() or 0)
