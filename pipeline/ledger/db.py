"""Engines, sessions and migrations. Alembic migrations run automatically when a command writes.

Commands that only read (runs, report, diff, probe report) open the ledger with ``read_ledger``:
no migration, no folder or file created. A SQLite ledger that is not there raises ``LedgerMissing``
before anything is opened; ``LedgerUnreadable`` says why an existing one cannot be read.

    LedgerError
    ├── LedgerMissing      DATABASE_URL names a SQLite file that does not exist
    ├── LedgerNewer        its schema is at a migration this factline does not ship (a newer factline made it):
    │                      refused at start by every command, reads and writes alike, and by `factline web`
    └── LedgerUnreadable   cannot connect, no ledger tables there, or a schema older than this factline
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

import migrations
from pipeline.ledger.locks import migration_lock

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(migrations.__file__).resolve().parent


class LedgerError(Exception):
    """The ledger cannot be used for this command; the message is one line for people."""


class LedgerMissing(LedgerError):
    pass


class LedgerUnreadable(LedgerError):
    pass


class LedgerNewer(LedgerError):
    pass


REVISION = re.compile(r"^revision(?:: str)? = ['\"]([^'\"]+)['\"]", re.MULTILINE)
DOWN_REVISION = re.compile(r"^down_revision(?:: [^=]+)? = ['\"]([^'\"]+)['\"]", re.MULTILINE)


@cache
def _in_migrations(field: re.Pattern[str]) -> frozenset[str]:
    """``field`` of every shipped migration, read from the files once per process: they do not change under a
    running factline, and a process that opens several ledgers (a scheduler of many pipelines, the tests)
    would otherwise read them all again at each open."""
    return frozenset(m.group(1) for f in (MIGRATIONS_DIR / "versions").glob("*.py")
                     if (m := field.search(f.read_text())))


def known_revisions() -> frozenset[str]:
    """The migrations this factline ships, read from their files (read-only commands never import alembic)."""
    return _in_migrations(REVISION)


def head_revisions() -> frozenset[str]:
    """The shipped migrations no other one follows: where ``upgrade`` takes a ledger."""
    return known_revisions() - _in_migrations(DOWN_REVISION)


def _revisions(conn: Connection) -> set[str]:
    if "alembic_version" not in inspect(conn).get_table_names():
        return set()
    return {str(r) for r in conn.execute(text("SELECT version_num FROM alembic_version")).scalars()}


def refuse_newer(conn: Connection, database_url: str) -> None:
    """LedgerNewer when the ledger's migration is not one of this factline's: it would misread or break it."""
    known = known_revisions()
    if unknown := sorted(r for r in _revisions(conn) if r not in known):
        raise LedgerNewer(f"the ledger at {shown_url(database_url)} (DATABASE_URL) is at migration {unknown[0]}, "
                          f"made by a newer factline (this one knows up to {max(known)}): run that factline's "
                          "commands on it; nothing was read or written")


def shown_url(url: str) -> str:
    """DATABASE_URL as it may be printed: the password hidden, a SQLite path made absolute."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        return str(Path(parsed.database).resolve())
    return parsed.render_as_string(hide_password=True)


def make_engine(url: str, create: bool = True) -> Engine:
    """An engine for ``url``; SQLite gets WAL, foreign keys and a busy timeout, and (``create``) its folder."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if create and parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            cursor = dbapi_conn.cursor()
            # a new ledger gives the pages `factline db prune` frees back to the file system (an older one
            # records the wish, and takes it at its next VACUUM: `factline db prune --vacuum`)
            cursor.execute("PRAGMA auto_vacuum=INCREMENTAL")
            cursor.execute("PRAGMA journal_mode=WAL")
            # NORMAL under WAL: a commit survives a crash of the process (not of the OS); a side effect whose
            # row a power cut lost is still found by the target's lookup-by-key, so nothing is done twice.
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def alembic_config(engine: Engine) -> Config:
    from alembic.config import Config  # imported here: read-only commands never load alembic

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["engine"] = engine
    return cfg


def upgrade(engine: Engine) -> None:
    """Apply every migration up to head (idempotent), under the ledger's migration lock.

    Processes that start together on an empty ledger take turns: the first migrates, the others find
    the schema at head (pipeline.ledger.locks).
    """
    from alembic import command

    with migration_lock(engine):
        command.upgrade(alembic_config(engine), "head")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def open_ledger(database_url: str) -> sessionmaker[Session]:
    """Engine + migrations to head + a session factory: what every command that writes the ledger needs.

    A ledger already at head is not handed to alembic (importing it and reading the migrations is most of
    what opening costs a short command); any other goes through ``upgrade``, under its lock."""
    engine = make_engine(database_url)
    with engine.connect() as conn:
        refuse_newer(conn, database_url)
        at_head = _revisions(conn) == head_revisions()
    if not at_head:
        upgrade(engine)
    return session_factory(engine)


def read_ledger(database_url: str) -> sessionmaker[Session]:
    """A session factory for read-only commands: no migration, no alembic import, nothing created.

    Raises LedgerMissing when a SQLite ledger file is absent, LedgerUnreadable when the database cannot
    be reached or holds no ledger.
    """
    parsed = make_url(database_url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        if not Path(parsed.database).is_file():
            raise LedgerMissing(f"no ledger at {shown_url(database_url)} (DATABASE_URL); nothing has run here "
                                "yet: set DATABASE_URL, or run from the folder factline runs in")
    engine = make_engine(database_url, create=False)
    try:
        with engine.connect() as conn:
            tables = set(inspect(conn).get_table_names())
            refuse_newer(conn, database_url)
    except DBAPIError as exc:
        raise LedgerUnreadable(f"cannot open the ledger at {shown_url(database_url)} (DATABASE_URL): "
                               f"{exc.orig.__class__.__name__}") from None
    if "runs" not in tables:
        raise LedgerUnreadable(f"{shown_url(database_url)} (DATABASE_URL) holds no factline ledger")
    return session_factory(engine)


def unreadable(exc: DBAPIError, database_url: str) -> LedgerUnreadable:
    """A query on an opened ledger failed: most likely a ledger made by an older factline."""
    return LedgerUnreadable(f"cannot read the ledger at {shown_url(database_url)} ({exc.orig.__class__.__name__}); "
                            "if an older factline made it, `factline db upgrade` brings it up to date")
