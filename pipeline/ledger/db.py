"""Engines, sessions and migrations. Alembic migrations run automatically at start."""

from __future__ import annotations

from pathlib import Path

from typing import TYPE_CHECKING

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

import migrations

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(migrations.__file__).resolve().parent


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, foreign keys and a busy timeout, and its folder is created."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            cursor = dbapi_conn.cursor()
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
    """Apply every migration up to head (idempotent)."""
    from alembic import command

    command.upgrade(alembic_config(engine), "head")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def open_ledger(database_url: str) -> sessionmaker[Session]:
    """Engine + migrations to head + a session factory: what every command that writes the ledger needs."""
    engine = make_engine(database_url)
    upgrade(engine)
    return session_factory(engine)


def read_ledger(database_url: str, create: bool = True) -> sessionmaker[Session]:
    """A session factory for read-only audits (ledger_diff): no migration, no alembic import.

    ``create=False``: a SQLite ledger that does not exist raises FileNotFoundError instead of being created.
    """
    parsed = make_url(database_url)
    if not create and parsed.get_backend_name() == "sqlite" and not Path(parsed.database or "").is_file():
        raise FileNotFoundError(parsed.database)
    return session_factory(make_engine(database_url))
