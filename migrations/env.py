"""Alembic environment: imports only the ledger's Base and the settings."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Engine

from config import load_settings
from pipeline.ledger.models import Base

target_metadata = Base.metadata


def run_migrations() -> None:
    engine: Engine | None = context.config.attributes.get("engine")
    if engine is None:
        from pipeline.ledger.db import make_engine

        engine = make_engine(load_settings().database_url)
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=connection.dialect.name == "sqlite",
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations()
