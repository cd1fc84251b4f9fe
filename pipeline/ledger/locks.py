"""Locks that serialize what two processes must not do at the same time on one ledger.

    migration_lock(engine)     around Alembic's upgrade: any number of processes may start together on an
                               empty ledger (daemon replicas, runs, Celery workers); one migrates, the others
                               wait and then find the schema at head
    writer_lock(session, ...)  first statement of a transaction that reads then writes business state (the
                               topic claim): the next such transaction starts after this one commits

PostgreSQL: advisory locks (session-level for migrations, on a connection of their own; transaction-level
for writers, released by the commit). SQLite: a ``flock`` on a file beside the database for migrations
(the schema's own tables cannot be locked before they exist), ``BEGIN IMMEDIATE`` for writers (SQLite's
single writer lock, taken at the start, so no transaction reads a snapshot it cannot later write from).
fcntl is the standard library's and all this needs (Linux and macOS are where factline runs).
"""

from __future__ import annotations

import fcntl
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

MIGRATION_LOCK_ID = 0x66616374  # "fact": one advisory lock id per database, for Alembic's upgrade


def _lock_id(name: str) -> int:
    """A stable signed 64-bit advisory lock id for ``name``."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big", signed=True)


@contextmanager
def migration_lock(engine: Engine) -> Iterator[None]:
    """Hold the ledger's migration lock: an advisory lock (PostgreSQL) or ``<file>.migrate.lock`` (SQLite)."""
    url = engine.url
    if url.get_backend_name() == "postgresql":
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:id)"), {"id": MIGRATION_LOCK_ID})
            conn.commit()
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:id)"), {"id": MIGRATION_LOCK_ID})
                conn.commit()
        return
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        lock_path = Path(url.database).with_name(Path(url.database).name + ".migrate.lock")
        with lock_path.open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file is closed, or the process dies
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        return
    yield  # an in-memory database belongs to one process


def writer_lock(s: Session, name: str) -> None:
    """Make ``s``'s transaction the only one holding ``name`` (PostgreSQL) or the writer (SQLite) until it ends.

    Must be the transaction's first statement: on SQLite it is the BEGIN itself.
    """
    if s.get_bind().dialect.name == "postgresql":
        s.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _lock_id(name)})
    else:
        s.execute(text("BEGIN IMMEDIATE"))
